"""One conversion's parts, carried through the stages instead of threaded as parameters.

:class:`Conversion` is what every stage after fetch needs (settings, sandbox, the report it
fills, the fetched workspace, the token that names its directories); :class:`Draft` adds
the built environment and renders the server directory, which validation and repair do
again each time the set of tools changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metaserver.agents.generate.render import generate
from metaserver.contracts import ConversionReport, Environment, ToolEvidence, ToolSpec, Workspace
from metaserver.sandbox import Sandbox
from metaserver.settings import Settings


@dataclass
class Conversion:
    """A conversion once its source is fetched: the server's name is known from here on."""

    settings: Settings
    sandbox: Sandbox
    report: ConversionReport
    workspace: Workspace
    token: str
    max_tools: int
    paper: str | None = None  # the source paper's text, served as doc://<server>/paper
    # Tools the README's entry points may take beyond max_tools (0: max_tools is the cap).
    documented_cap: int = 0

    @property
    def name(self) -> str:
        return self.report.server

    @property
    def venv(self) -> Path:
        """Where its environment is built (``<name>-<token>``, like every directory it owns)."""
        return self.settings.environments_dir / f"{self.name}-{self.token}"

    @property
    def server_dir(self) -> Path:
        return self.settings.servers_dir / f"{self.name}-{self.token}"


@dataclass
class Draft:
    """The server being built: a conversion with its environment."""

    conversion: Conversion
    environment: Environment

    @property
    def settings(self) -> Settings:
        return self.conversion.settings

    @property
    def sandbox(self) -> Sandbox:
        return self.conversion.sandbox

    @property
    def report(self) -> ConversionReport:
        return self.conversion.report

    @property
    def workspace(self) -> Workspace:
        return self.conversion.workspace

    @property
    def server_dir(self) -> Path:
        return self.conversion.server_dir

    def render(self, specs: list[ToolSpec], evidence: list[ToolEvidence] | None = None) -> None:
        """(Re)write the server directory for ``specs`` (with their evidence once known)."""
        generate(
            self.server_dir,
            self.conversion.name,
            specs,
            self.workspace,
            self.environment,
            evidence,
            max_bytes=self.settings.result_max_bytes,
            paper=self.conversion.paper,
        )
