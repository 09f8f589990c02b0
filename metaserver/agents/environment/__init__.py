"""The environment stage's door: :func:`build_environment`, an isolated uv environment the
repository's code imports from (the strategy ladder of :mod:`.build`)."""

from metaserver.agents.environment.build import build_environment

__all__ = ["build_environment"]
