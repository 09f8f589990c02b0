"""The LLM layer: one :class:`Model` base and one module per backend.

- :mod:`metaserver.models.openai_compat`: any OpenAI-compatible server (vLLM, llama.cpp, Ollama).
- :mod:`metaserver.models.vllm_engine`: vLLM inside this process (extra ``metaserver[vllm]``).

:func:`model_for` builds the model a pipeline stage uses, from the settings.
"""

from __future__ import annotations

from typing import Literal

from metaserver.models.base import ContextBudget, Message, Model, ModelResponse, OutputSchema
from metaserver.models.errors import (
    ModelAPIError,
    ModelConfigError,
    ModelError,
    ModelOutputError,
    ModelSkipped,
    ModelTimeout,
)
from metaserver.models.openai_compat import OpenAICompatModel
from metaserver.settings import LLMSettings

Stage = Literal["selection", "descriptions", "examples", "review"]

__all__ = [
    "ContextBudget",
    "Message",
    "Model",
    "ModelAPIError",
    "ModelConfigError",
    "ModelError",
    "ModelOutputError",
    "ModelResponse",
    "ModelSkipped",
    "ModelTimeout",
    "OutputSchema",
    "Stage",
    "model_for",
]


def model_for(settings: LLMSettings, stage: Stage) -> Model:
    """The model ``stage`` uses: its own name when set, else ``settings.model``.

    Raises:
        ModelConfigError: no model is configured, or the backend's extra is missing.
    """
    if not settings.enabled:
        raise ModelConfigError(
            "no model configured: set METASERVER_LLM__BASE_URL and METASERVER_LLM__MODEL"
        )
    name = settings.model_for(stage)
    if settings.backend == "vllm":
        # Lazily: vLLM is an optional extra, and importing it takes seconds.
        from metaserver.models.vllm_engine import VLLMEngineModel

        return VLLMEngineModel(
            name,
            tensor_parallel_size=settings.tensor_parallel_size,
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
        )
    base_url = settings.endpoints.get(name) or settings.base_url
    assert base_url is not None  # enabled guarantees it for this backend
    return OpenAICompatModel(
        name,
        base_url,
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        timeout=settings.timeout,
        retries=settings.retries,
        retry_backoff=settings.retry_backoff,
        max_concurrency=settings.max_concurrency,
        max_tokens=settings.max_tokens,
        temperature=settings.temperature,
        context_tokens=settings.context_tokens,
        server_slots=settings.server_slots,
    )
