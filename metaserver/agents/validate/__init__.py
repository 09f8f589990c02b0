"""Validation stage: every tool called through a real MCP client, protocol checks, value
comparison, replay of the generated tests.
"""
