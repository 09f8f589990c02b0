"""The generate stage's door: :func:`generate`, a standalone FastMCP server directory
rendered from ToolSpecs (:mod:`.render`; its documents: :mod:`.documents`)."""

from metaserver.agents.generate.render import generate

__all__ = ["generate"]
