# metaserver: the meta-server over HTTP, installed with uv from the lock file.
#
#   docker build -t metaserver .
#   docker run -e METASERVER_AUTH__TOKEN=... -p 8765:8765 -v metaserver-data:/data metaserver
#
# Air-gapped builds: pass a mirror with --build-arg PIP_INDEX_URL=... (also used by uv).

FROM python:3.11-slim AS build
ARG PIP_INDEX_URL=https://pypi.org/simple
ENV PIP_INDEX_URL=${PIP_INDEX_URL} \
    UV_DEFAULT_INDEX=${PIP_INDEX_URL} \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv
RUN pip install --no-cache-dir "uv>=0.13.8,<0.14"
WORKDIR /app
# Dependencies first: this layer is rebuilt only when the lock file changes.
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-dev --no-install-project
COPY metaserver ./metaserver
RUN uv sync --frozen --no-dev --no-editable

FROM python:3.11-slim
# git: git sources; bubblewrap: the strongest sandbox backend (works where the container may
# create user namespaces; otherwise METASERVER_SANDBOX__BACKEND=auto falls back to process).
RUN apt-get update \
    && apt-get install -y --no-install-recommends git bubblewrap ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 metaserver \
    && mkdir /data && chown metaserver /data
COPY --from=build /app/.venv /app/.venv
ENV PATH=/app/.venv/bin:$PATH \
    METASERVER_HOME=/data \
    UV_PYTHON_DOWNLOADS=never \
    PYTHONUNBUFFERED=1
USER metaserver
VOLUME /data
EXPOSE 8765
# A server reachable beyond loopback must not run without a token: refuse to start.
ENTRYPOINT ["/bin/sh", "-c", "if [ -z \"$METASERVER_AUTH__TOKEN\" ]; then echo 'metaserver: set METASERVER_AUTH__TOKEN (the bearer token HTTP clients must send)' >&2; exit 2; fi; exec metaserver serve --transport http --host 0.0.0.0 --port 8765 \"$@\"", "metaserver"]
