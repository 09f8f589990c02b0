"""metaserver: a self-hosted MCP server that makes MCP servers.

See ``docs/ARCHITECTURE.md`` for the data flow: fetch -> environment -> analysis -> design ->
generate -> validate (-> review -> fix) -> register.
"""

__version__ = "0.1.0"
GENERATOR_VERSION = __version__

__all__ = ["GENERATOR_VERSION", "__version__"]
