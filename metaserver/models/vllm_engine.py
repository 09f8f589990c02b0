"""An in-process vLLM engine, for batch use on a machine with GPUs (extra ``metaserver[vllm]``).

Loading a model takes minutes and all of a GPU's memory, so there is one engine per model
per process, shared by every conversion. Requests that arrive together, from any conversion,
are gathered into one ``LLM.chat`` call, because vLLM's throughput comes from batching; the
blocking call runs in a worker thread so the event loop stays free. vLLM is imported only
when an engine is built: importing this module never needs it, and a missing extra fails
with the command that installs it.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from metaserver.models.base import Message, Model, ModelResponse, OutputSchema
from metaserver.models.errors import ModelAPIError, ModelConfigError, ModelOutputError

INSTALL_HINT = "uv pip install 'metaserver[vllm]'"
_BATCH_WINDOW = 0.01  # seconds to wait for companions of a request; small against generation

_ENGINES: dict[tuple[str, int], Any] = {}
_ENGINE_LOCK = threading.Lock()  # vllm.LLM is not thread-safe: one chat() at a time
_BATCHERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], _Batcher]]
_BATCHERS = weakref.WeakKeyDictionary()


def import_vllm() -> Any:
    """The ``vllm`` module.

    Raises:
        ModelConfigError: vLLM is not installed, with the command that installs it.
    """
    try:
        return importlib.import_module("vllm")
    except ImportError as exc:
        raise ModelConfigError(
            "the in-process vLLM engine (METASERVER_LLM__BACKEND=vllm) needs the vllm extra: "
            f"{INSTALL_HINT}  (the same as `uv pip install vllm`; or serve the model with "
            "`vllm serve` and set METASERVER_LLM__BASE_URL instead)"
        ) from exc


class VLLMEngineModel(Model):
    """A model loaded into this process with vLLM's offline ``LLM`` class.

    Args:
        name: a model directory (air-gapped sites) or a hub name.
        tensor_parallel_size: GPUs one copy of the model is split over.
        max_tokens: the longest answer.
        temperature: sampling temperature.
    """

    def __init__(
        self,
        name: str,
        *,
        tensor_parallel_size: int = 1,
        max_tokens: int = 2048,
        temperature: float = 0.0,
    ) -> None:
        self._vllm = import_vllm()  # fail at construction, not at the first request
        self.name = name
        self.tensor_parallel_size = tensor_parallel_size
        self.max_tokens, self.temperature = max_tokens, temperature

    async def request(
        self,
        messages: Sequence[Message],
        *,
        output: OutputSchema | None = None,
        deadline: float | None = None,
    ) -> ModelResponse:
        # In-process on a GPU: batched with every other request, no deadline is fitted.
        key = (self.name, self.tensor_parallel_size)
        per_loop = _BATCHERS.setdefault(asyncio.get_running_loop(), {})
        batcher = per_loop.get(key)
        if batcher is None:
            batcher = per_loop[key] = _Batcher(self._vllm, *key)
        params: dict[str, Any] = {"max_tokens": self.max_tokens, "temperature": self.temperature}
        if output is not None:
            params.update(structured_output_params(output.json_schema))
        return await batcher.submit([m.model_dump() for m in messages], params)


@dataclass
class _Pending:
    messages: list[dict[str, str]]
    params: dict[str, Any]
    future: asyncio.Future[ModelResponse] = field(repr=False)


class _Batcher:
    """Gathers concurrent requests for one engine into batched ``LLM.chat`` calls."""

    max_batch = 256

    def __init__(self, vllm: Any, name: str, tensor_parallel_size: int) -> None:
        self.vllm, self.name, self.tensor_parallel_size = vllm, name, tensor_parallel_size
        self.queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self.worker = asyncio.create_task(self._serve())

    async def submit(self, messages: list[dict[str, str]], params: dict[str, Any]) -> ModelResponse:
        future: asyncio.Future[ModelResponse] = asyncio.get_running_loop().create_future()
        await self.queue.put(_Pending(messages, params, future))
        return await future

    async def _serve(self) -> None:
        while True:
            batch = [await self.queue.get()]
            await asyncio.sleep(_BATCH_WINDOW)
            while not self.queue.empty() and len(batch) < self.max_batch:
                batch.append(self.queue.get_nowait())
            try:
                answers = await asyncio.to_thread(self._generate, batch)
            except Exception as exc:  # an engine failure fails this batch, not the worker
                answers = [ModelAPIError(self.name, f"{type(exc).__name__}: {exc}")] * len(batch)
            for pending, answer in zip(batch, answers, strict=True):
                if pending.future.done():  # the caller gave up (timeout, cancel)
                    continue
                if isinstance(answer, ModelResponse):
                    pending.future.set_result(answer)
                else:
                    pending.future.set_exception(answer)

    def _generate(self, batch: list[_Pending]) -> list[ModelResponse | Exception]:
        with _ENGINE_LOCK:
            key = (self.name, self.tensor_parallel_size)
            if key not in _ENGINES:
                _ENGINES[key] = self.vllm.LLM(
                    model=self.name, tensor_parallel_size=self.tensor_parallel_size
                )
            started = time.monotonic()
            outputs = _ENGINES[key].chat(
                [p.messages for p in batch],
                sampling_params=[self.vllm.SamplingParams(**p.params) for p in batch],
                use_tqdm=False,
            )
        seconds = round(time.monotonic() - started, 3)
        return [self._response(out, seconds) for out in outputs]

    def _response(self, out: Any, seconds: float) -> ModelResponse | Exception:
        completion = out.outputs[0]
        response = ModelResponse(
            text=completion.text,
            model=self.name,
            tokens_in=len(out.prompt_token_ids or []),
            tokens_out=len(completion.token_ids or []),
            seconds=seconds,
        )
        if completion.finish_reason == "length":
            error = ModelOutputError(self.name, "answer cut off at max_tokens")
            error.tokens_in, error.tokens_out = response.tokens_in, response.tokens_out
            return error
        return response


def structured_output_params(schema: dict[str, Any]) -> dict[str, Any]:
    """SamplingParams keywords that constrain decoding to ``schema``, for old and new vLLM."""
    sampling = importlib.import_module("vllm.sampling_params")
    if hasattr(sampling, "StructuredOutputsParams"):  # vLLM >= 0.11
        return {"structured_outputs": sampling.StructuredOutputsParams(json=schema)}
    return {"guided_decoding": sampling.GuidedDecodingParams(json=schema)}
