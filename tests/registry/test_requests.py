"""Deterministic example requests: from a tool's name, its server's name and its parameters."""

from __future__ import annotations

from metaserver.registry.requests import (
    MAX_CHARS,
    MAX_REQUESTS,
    clean_requests,
    name_words,
    server_purpose,
    template_requests,
)


def test_name_words_split_snake_kebab_and_camel_case() -> None:
    assert name_words("getRecipeById") == "get Recipe By Id"
    assert name_words("get-weibo_trending.now") == "get weibo trending now"


def test_the_server_purpose_drops_packaging_words() -> None:
    assert server_purpose("MCP Yahoo Finance") == "yahoo finance"
    assert server_purpose("Whois MCP") == "whois"
    assert server_purpose("mcp-server-git: A git MCP server") == "git a git"
    assert server_purpose("MCP Server") == ""


def test_requests_name_the_service_and_what_the_request_supplies() -> None:
    schema = {"type": "object", "properties": {"symbol": {}, "startDate": {}, "end": {}, "x": {}}}
    assert template_requests("MCP Yahoo Finance", "getStockPrice", schema) == [
        "get stock price with yahoo finance",
        "get stock price by symbol, start date, end",  # at most three parameters
    ]
    # The same input, the same requests (they are stored and embedded once).
    assert template_requests("MCP Yahoo Finance", "getStockPrice", schema) == template_requests(
        "MCP Yahoo Finance", "getStockPrice", schema
    )


def test_a_bare_tool_gets_its_name_and_a_server_named_in_it_is_not_repeated() -> None:
    assert template_requests("MCP Server", "ping", {"type": "object"}) == ["ping"]
    assert template_requests("git", "git_status", {}) == ["git status"]
    assert template_requests("srv", "__", {}) == []


def test_clean_requests_bounds_count_length_and_lines() -> None:
    raw = ["  a\n b ", "a b", "", "x" * 500, "c", "d"]
    cleaned = clean_requests(raw)
    assert cleaned == ["a b", "x" * MAX_CHARS, "c"]
    assert len(cleaned) == MAX_REQUESTS
