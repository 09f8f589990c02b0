"""vllm_engine: the missing-extra error, and batching through a stand-in vllm module.

vLLM itself is not installed in the test environment (it needs a GPU); the stand-in module
has vLLM's offline API shape (``LLM.chat``, ``SamplingParams``, ``StructuredOutputsParams``)
so that the engine's own code (batching, structured outputs, token counts) really runs.
"""

from __future__ import annotations

import asyncio
import sys
import types
from typing import Any

import pytest

from metaserver.models import Message, ModelConfigError, OutputSchema, model_for
from metaserver.settings import LLMSettings

MESSAGES = [Message(role="user", content="Hi")]


def test_a_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` raise ImportError
    from metaserver.models.vllm_engine import VLLMEngineModel

    with pytest.raises(ModelConfigError, match=r"uv pip install 'metaserver\[vllm\]'"):
        VLLMEngineModel("/models/small")
    with pytest.raises(ModelConfigError, match="METASERVER_LLM__BASE_URL"):
        model_for(LLMSettings(backend="vllm", model="/models/small"), "descriptions")


class _Output:
    def __init__(self, text: str) -> None:
        self.text, self.token_ids, self.finish_reason = text, [1, 2, 3], "stop"


class _RequestOutput:
    def __init__(self, text: str) -> None:
        self.prompt_token_ids = [1] * 10
        self.outputs = [_Output(text)]


def stand_in_vllm() -> tuple[types.ModuleType, types.ModuleType, list[Any]]:
    batches: list[Any] = []

    class LLM:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

        def chat(self, conversations: Any, sampling_params: Any, use_tqdm: bool) -> Any:
            batches.append((conversations, sampling_params))
            return [_RequestOutput('{"ok": true}') for _ in conversations]

    class SamplingParams:
        def __init__(self, **kwargs: Any) -> None:
            self.kwargs = kwargs

    class StructuredOutputsParams:
        def __init__(self, json: Any) -> None:
            self.json = json

    vllm = types.ModuleType("vllm")
    vllm.LLM = LLM  # type: ignore[attr-defined]
    vllm.SamplingParams = SamplingParams  # type: ignore[attr-defined]
    sampling = types.ModuleType("vllm.sampling_params")
    sampling.StructuredOutputsParams = StructuredOutputsParams  # type: ignore[attr-defined]
    return vllm, sampling, batches


async def test_concurrent_requests_are_batched_into_one_chat_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vllm, sampling, batches = stand_in_vllm()
    monkeypatch.setitem(sys.modules, "vllm", vllm)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", sampling)
    from metaserver.models import vllm_engine

    monkeypatch.setattr(vllm_engine, "_ENGINES", {})
    output = OutputSchema(name="ok", json_schema={"type": "object"})
    model = model_for(LLMSettings(backend="vllm", model="/models/small"), "review")
    results = await asyncio.gather(*(model.request_json(MESSAGES, output) for _ in range(5)))
    assert [data for data, _ in results] == [{"ok": True}] * 5
    assert results[0][1].tokens_in == 10 and results[0][1].tokens_out == 3
    (conversations, params), *rest = batches
    assert not rest and len(conversations) == 5
    assert params[0].kwargs["structured_outputs"].json == {"type": "object"}
    assert params[0].kwargs["temperature"] == 0.0
