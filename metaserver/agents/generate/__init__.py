"""Generate stage: a standalone FastMCP server directory rendered from ToolSpecs."""
