"""models.model_for and LLMSettings: a model per stage, defaulting to the main model."""

from __future__ import annotations

import pytest

from metaserver.models import ModelConfigError, model_for
from metaserver.models.openai_compat import OpenAICompatModel
from metaserver.settings import Settings


def test_each_stage_uses_its_own_model_or_the_main_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METASERVER_LLM__BASE_URL", "http://vllm:8000/v1")
    monkeypatch.setenv("METASERVER_LLM__MODEL", "large")
    monkeypatch.setenv("METASERVER_LLM__DESCRIPTIONS_MODEL", "small")
    monkeypatch.setenv("METASERVER_LLM__TIMEOUT", "7.5")
    monkeypatch.setenv("METASERVER_LLM__MAX_CONCURRENCY", "32")
    llm = Settings().llm
    descriptions, review = model_for(llm, "descriptions"), model_for(llm, "review")
    assert isinstance(descriptions, OpenAICompatModel)
    assert isinstance(review, OpenAICompatModel)
    assert (descriptions.name, review.name) == ("small", "large")
    assert review.timeout == 7.5 and review.max_concurrency == 32
    assert review.base_url == "http://vllm:8000/v1"


def test_no_model_configured_is_a_config_error() -> None:
    assert not Settings().llm.enabled
    with pytest.raises(ModelConfigError, match="METASERVER_LLM__MODEL"):
        model_for(Settings().llm, "selection")


def test_a_stage_model_may_live_at_its_own_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METASERVER_LLM__BASE_URL", "http://vllm:8000/v1")
    monkeypatch.setenv("METASERVER_LLM__MODEL", "large")
    monkeypatch.setenv("METASERVER_LLM__DESCRIPTIONS_MODEL", "small")
    monkeypatch.setenv("METASERVER_LLM__ENDPOINTS", '{"small": "http://vllm-small:8000/v1"}')
    llm = Settings().llm
    descriptions, review = model_for(llm, "descriptions"), model_for(llm, "review")
    assert isinstance(descriptions, OpenAICompatModel)
    assert isinstance(review, OpenAICompatModel)
    assert descriptions.base_url == "http://vllm-small:8000/v1"
    assert review.base_url == "http://vllm:8000/v1"
