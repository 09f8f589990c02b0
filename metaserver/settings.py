"""One documented settings object, read from ``METASERVER_*`` environment variables.

Nesting uses ``__``: ``METASERVER_LLM__BASE_URL``, ``METASERVER_SANDBOX__BACKEND``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class LLMSettings(BaseModel):
    """The optional local model (any OpenAI-compatible server, such as vLLM)."""

    base_url: str | None = Field(
        default=None, description="OpenAI-compatible base URL; unset means no LLM at all."
    )
    model: str | None = Field(default=None, description="Model name served at base_url.")
    api_key: SecretStr | None = Field(default=None, description="Bearer key for the LLM server.")

    @property
    def enabled(self) -> bool:
        return bool(self.base_url and self.model)


class SandboxSettings(BaseModel):
    """How untrusted repository code is confined."""

    backend: Literal["auto", "bwrap", "process", "docker"] = Field(
        default="auto",
        description="auto picks the strongest backend that works; a named one fails closed.",
    )
    memory_mb: int = Field(default=4096, ge=64, description="Address-space limit per child.")
    cpu_seconds: int = Field(default=600, ge=1, description="CPU-time limit per child.")
    open_files: int = Field(default=1024, ge=16, description="Open-file limit per child.")
    file_size_mb: int = Field(default=1024, ge=1, description="Largest file a child may write.")
    processes: int = Field(default=256, ge=8, description="Process limit (non-root uids only).")


class AuthSettings(BaseModel):
    """Authentication of the meta-server's HTTP transport."""

    token: SecretStr | None = Field(
        default=None,
        description="Bearer token HTTP clients must send; required to bind a non-loopback host.",
    )


class IndexSettings(BaseModel):
    """Where packages come from: a public index, a mirror, or a local wheelhouse."""

    url: str = Field(default="https://pypi.org/simple", description="Package index (PEP 503).")
    extra_url: str | None = Field(default=None, description="An extra index searched as well.")
    find_links: str | None = Field(default=None, description="A wheelhouse directory or URL.")
    offline: bool = Field(
        default=False, description="Use only the package cache and the wheelhouse."
    )


class TimeoutSettings(BaseModel):
    """Wall-clock limits, in seconds, for each kind of child process."""

    fetch: float = Field(default=120, gt=0, description="git clone or download.")
    environment: float = Field(default=600, gt=0, description="Building one environment.")
    probe: float = Field(default=120, gt=0, description="The analysis probe.")
    server_start: float = Field(default=60, gt=0, description="A generated server's handshake.")
    tool_call: float = Field(default=30, gt=0, description="One call of a generated tool.")


class Settings(BaseSettings):
    """Everything an operator can set. Every field reads ``METASERVER_<FIELD>``."""

    model_config = SettingsConfigDict(
        env_prefix="METASERVER_", env_nested_delimiter="__", extra="ignore"
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
    max_tools: int = Field(default=12, ge=1, le=200, description="Tools per server, at most.")
    max_rounds: int = Field(default=3, ge=1, le=10, description="Validate/fix rounds, at most.")
    max_concurrent_conversions: int = Field(default=2, ge=1, description="convert_repo at once.")
    max_live_children: int = Field(default=8, ge=1, description="Generated servers kept running.")
    child_idle_seconds: float = Field(default=300, gt=0, description="Idle child is stopped.")
    result_max_bytes: int = Field(default=1_000_000, ge=1024, description="Cap on one result.")
    expose_direct_tools: bool = Field(
        default=True,
        description="Also expose validated tools as <server>_<tool>; off for huge registries.",
    )
    fastmcp_requirement: str = Field(
        default="fastmcp==4.1.6",
        description="The FastMCP a generated server runs on (installed into its environment).",
    )
    llm: LLMSettings = Field(default_factory=LLMSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    timeouts: TimeoutSettings = Field(default_factory=TimeoutSettings)

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
    def staging_dir(self) -> Path:
        """Half-made things live here until they are complete, then move into place."""
        return self.home / "staging"
