"""The registry: registered servers and tools (SQLite), search over them, live children."""

from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.registry.store import Registry

__all__ = ["Registry", "ServerRecord", "ToolRecord"]
