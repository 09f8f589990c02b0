"""What an OpenAI-compatible server says of itself: its context length and its slots.

A client that ignores them sends prompts the server refuses (HTTP 400 past the context) and
more requests than it serves at once, which then queue inside the server, where their wait
counts against the client's timeout (issue 32: 7 requests cancelled in one millisecond). The
two answers read here are the ones the servers publish:

- vLLM: ``GET /v1/models`` lists each model with ``max_model_len``;
- llama.cpp's ``llama-server``: ``GET /props`` (beside ``/v1``) gives ``total_slots`` and
  ``default_generation_settings.n_ctx`` (the context of one slot).

Anything missing stays ``None`` (unknown): the settings then decide, and without them the
client behaves as before. Read once per server and process.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import httpx

logger = logging.getLogger(__name__)

PROFILE_TIMEOUT = 5.0


@dataclass(frozen=True)
class ServerProfile:
    """What the server told: tokens of context per request and requests served at once."""

    context_tokens: int | None = None
    slots: int | None = None


_PROFILES: dict[str, ServerProfile] = {}


async def read_profile(client: httpx.AsyncClient, base_url: str, model: str) -> ServerProfile:
    """The server's profile (cached per ``base_url``); never raises for what it answers."""
    if base_url in _PROFILES:
        return _PROFILES[base_url]
    context = _model_context(await _get_json(client, f"{base_url}/models"), model)
    props = await _get_json(client, f"{_root(base_url)}/props")
    slots = _positive(props.get("total_slots")) if isinstance(props, dict) else None
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        if isinstance(settings, dict) and _positive(settings.get("n_ctx")):
            context = _positive(settings.get("n_ctx"))
    profile = ServerProfile(context_tokens=context, slots=slots)
    logger.info(
        "llm: %s serves a context of %s tokens in %s slots",
        base_url,
        context or "unknown",
        slots or "unknown",
    )
    _PROFILES[base_url] = profile
    return profile


def forget_profiles() -> None:
    """Drop what was read (tests start servers on reused ports)."""
    _PROFILES.clear()


async def _get_json(client: httpx.AsyncClient, url: str) -> Any:
    try:
        answer = await client.get(url, timeout=PROFILE_TIMEOUT)
        return answer.json() if answer.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def _model_context(listing: Any, model: str) -> int | None:
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    dicts = [e for e in entries if isinstance(e, dict)]
    named = [e for e in dicts if e.get("id") == model] or dicts[:1]
    return _positive(named[0].get("max_model_len")) if named else None


def _root(base_url: str) -> str:
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
