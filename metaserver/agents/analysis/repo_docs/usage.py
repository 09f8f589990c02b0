"""Moved to :mod:`metaserver.agents.repo_docs.usage` (see this package's docstring)."""

from metaserver.agents.repo_docs.usage import mine_usage

__all__ = ["mine_usage"]
