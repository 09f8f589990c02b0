"""profile: the context and slots a server reports, read as llama-server and vLLM publish them."""

from __future__ import annotations

import httpx
from llm_server import ScriptedLLM

from metaserver.models.profile import ServerProfile, read_profile


async def profile_of(server: ScriptedLLM) -> ServerProfile:
    async with httpx.AsyncClient() as client:
        return await read_profile(client, server.url, "scripted")


async def test_llama_server_reports_slots_and_context_in_props() -> None:
    with ScriptedLLM(slots=4, context=4096, reports="llama") as server:
        assert await profile_of(server) == ServerProfile(context_tokens=4096, slots=4)


async def test_vllm_reports_the_context_in_its_model_listing() -> None:
    with ScriptedLLM(slots=4, context=16384, reports="vllm") as server:
        assert await profile_of(server) == ServerProfile(context_tokens=16384, slots=None)


async def test_a_server_that_reports_nothing_leaves_both_unknown() -> None:
    with ScriptedLLM(slots=4, context=4096, reports="none") as server:
        assert await profile_of(server) == ServerProfile()


async def test_an_unreachable_server_is_unknown_not_an_error() -> None:
    async with httpx.AsyncClient() as client:
        found = await read_profile(client, "http://127.0.0.1:9/v1", "scripted")
    assert found == ServerProfile()
