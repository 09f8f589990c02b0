"""Existing MCP servers joining the registry (``metaserver add``): :mod:`.endpoint` checks
what was given, :mod:`.add` lists, checks and registers the server."""
