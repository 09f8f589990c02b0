"""The package-index allow-list proxy: the only way out of an install's sandbox.

Installs run build scripts, which are untrusted code, so they get no network of their own
(``--unshare-net``). uv still has to reach the package index: inside the sandbox a small
bridge (:mod:`metaserver.sandbox.bridge`) listens on ``127.0.0.1:PORT`` and forwards every
connection to a unix socket bound into the sandbox, where this proxy, on the host, accepts
``CONNECT host:port`` (https) and absolute-URI requests (plain http) **only** for the hosts of
the configured index (``UV_DEFAULT_INDEX``, ``UV_INDEX``, ``UV_FIND_LINKS``, ...). Anything
else is answered 403 and never dialled (ARCHITECTURE.md, "Sandbox facts").

It runs on its own event loop in a daemon thread, started on first use and shared by every
install of the process, so that synchronous callers of ``Sandbox.wrap`` need no running loop.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import shutil
import threading
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from metaserver.sandbox.scratch import owned_tempdir

logger = logging.getLogger(__name__)

INDEX_VARIABLES = (
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
    "UV_INDEX_URL",
    "UV_EXTRA_INDEX_URL",
    "UV_FIND_LINKS",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
)
# PyPI's index lists files on its CDN host; a mirror usually serves both from one host.
COMPANION_HOSTS = {"pypi.org": ("files.pythonhosted.org",)}
DEFAULT_PORTS = {"https": 443, "http": 80}


def index_hosts(env: Mapping[str, str]) -> frozenset[tuple[str, int]]:
    """(host, port) pairs of every index URL named in ``env`` (space-separated lists too)."""
    allowed: set[tuple[str, int]] = set()
    for variable in INDEX_VARIABLES:
        for url in env.get(variable, "").split():
            parts = urlsplit(url)
            if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
                continue  # a local directory, or nothing
            port = parts.port or DEFAULT_PORTS[parts.scheme]
            allowed.add((parts.hostname.lower(), port))
            for companion in COMPANION_HOSTS.get(parts.hostname.lower(), ()):
                allowed.add((companion, 443))
    return frozenset(allowed)


class AllowListProxy:
    """An HTTP proxy on a unix socket that dials only ``allowed`` (host, port) pairs."""

    def __init__(self, allowed: Iterable[tuple[str, int]]) -> None:
        self.allowed = frozenset(allowed)
        self.denied: list[str] = []
        self.directory = owned_tempdir("proxy")  # removed when this process ends
        self.socket_path = self.directory / "proxy.sock"
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.AbstractServer | None = None
        self._thread = threading.Thread(target=self._serve, name="index-proxy", daemon=True)

    def start(self) -> AllowListProxy:
        self._thread.start()
        if not self._ready.wait(10) or self._server is None:
            raise RuntimeError("the index proxy did not start")
        logger.info("index proxy on %s allows %s", self.socket_path, sorted(self.allowed))
        return self

    def close(self) -> None:
        if self._server is not None:
            self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        shutil.rmtree(self.directory, ignore_errors=True)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._server = self._loop.run_until_complete(
                asyncio.start_unix_server(self._handle, path=str(self.socket_path))
            )
            self.socket_path.chmod(0o666)
        finally:
            self._ready.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._handle_request(reader, writer)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _handle_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        line, _, headers = request.partition(b"\r\n")
        parts = line.decode("latin-1").split()
        if len(parts) != 3:
            return await _answer(writer, 400, "bad request")
        method, target, version = parts
        if method == "CONNECT":
            host, _, port_text = target.rpartition(":")
            path = b""
            port = int(port_text) if port_text.isdigit() else -1
        else:
            url = urlsplit(target)
            if url.scheme != "http" or not url.hostname:
                return await _answer(writer, 400, "absolute http URL expected")
            host, port = url.hostname, url.port or 80
            path = (url.path or "/").encode() + (b"?" + url.query.encode() if url.query else b"")
        host = host.strip("[]").lower()
        if (host, port) not in self.allowed:
            self.denied.append(f"{host}:{port}")
            logger.warning("index proxy: denied %s %s:%s", method, host, port)
            return await _answer(writer, 403, "not the package index")
        upstream_reader, upstream_writer = await asyncio.wait_for(
            asyncio.open_connection(host, port), 30
        )
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            upstream_writer.write(f"{method} ".encode() + path + f" {version}\r\n".encode())
            upstream_writer.write(headers)
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))


async def _answer(writer: asyncio.StreamWriter, status: int, reason: str) -> None:
    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Length: 0\r\n\r\n".encode())
    await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


_proxies: dict[frozenset[tuple[str, int]], AllowListProxy] = {}
_lock = threading.Lock()


def shared_proxy(allowed: frozenset[tuple[str, int]]) -> AllowListProxy:
    """The process-wide proxy for this allow-list, started on first use."""
    with _lock:
        proxy = _proxies.get(allowed)
        if proxy is None:
            proxy = _proxies[allowed] = AllowListProxy(allowed).start()
        return proxy


@atexit.register
def _close_all() -> None:
    for proxy in _proxies.values():
        proxy.close()
