"""The registry: registered servers and tools (SQLite), search over them, live children."""

from metaserver.registry.store import Registry, ServerRecord, ToolRecord

__all__ = ["Registry", "ServerRecord", "ToolRecord"]
