"""Example requests: what a user might ask for when a tool is the answer.

Each registered tool keeps a few short requests that search embeds and indexes next to its
description (:mod:`metaserver.registry.vectors`, :mod:`metaserver.registry.search`). A
conversion with a model configured has the model write them from the tool's documentation and
examples (:mod:`metaserver.agents.llm.requests`); otherwise, and for tools registered without
any, they are written here, deterministically, from what the tool says of itself:

- its name as words with the purpose its server's name states ("get current stock price with
  yahoo finance"): a request names the service as often as the operation, and a tool whose
  description says little (or is in another language) is still found by its server's words;
- its name as words with its parameters' names ("get current stock price by symbol"): what a
  request supplies.

Measured on the tool-retrieval set (bench/retrieval.py; ARCHITECTURE.md, decision 17).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# At most this many requests per tool, of at most this many characters: each is one more
# vector per tool in every search (the cost grows with the registry).
MAX_REQUESTS = 3
MAX_CHARS = 200
_PARAMETERS = 3
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[_\-.\s]+")
# Words of a server's name that say what it is, not what it does.
_PACKAGING = re.compile(r"\b(?:mcp|server|service|tools?|api|by)\b", re.IGNORECASE)
_NOT_WORDS = re.compile(r"[^\w\s]+")


def name_words(name: str) -> str:
    """A tool name as words: ``getRecipeById`` and ``get_recipe-by.id`` -> "get Recipe By Id"."""
    return _SEPARATORS.sub(" ", _CAMEL.sub(" ", name)).strip()


def server_purpose(server: str) -> str:
    """The words of a server's name that say what it serves: "MCP Yahoo Finance" -> "yahoo
    finance"; empty when nothing is left."""
    words = _PACKAGING.sub(" ", _NOT_WORDS.sub(" ", name_words(server)))
    return " ".join(words.lower().split())


def template_requests(server: str, name: str, input_schema: Mapping[str, Any]) -> list[str]:
    """The deterministic example requests of tool ``name`` of ``server`` (see the module)."""
    words = name_words(name).lower()
    if not words:
        return []
    requests = []
    purpose = server_purpose(server)
    if purpose and purpose not in words:
        requests.append(f"{words} with {purpose}")
    properties = input_schema.get("properties")
    if isinstance(properties, Mapping) and properties:
        names = [name_words(str(key)).lower() for key in list(properties)[:_PARAMETERS]]
        requests.append(f"{words} by {', '.join(n for n in names if n)}")
    return clean_requests(requests or [words])


def clean_requests(requests: list[str]) -> list[str]:
    """At most :data:`MAX_REQUESTS` distinct, non-empty, single-line requests, each cut to
    :data:`MAX_CHARS` characters."""
    cleaned = (" ".join(str(r).split())[:MAX_CHARS] for r in requests)
    return list(dict.fromkeys(r for r in cleaned if r))[:MAX_REQUESTS]
