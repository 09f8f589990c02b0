"""The meta-server: its tools, the generated tools exposed directly, list-changed notifications
and MCP tasks.
"""
