"""LLM agents: optional enhancers of the deterministic pipeline (docs/ARCHITECTURE.md, "Data flow").

- :func:`refine_specs`: selection, names and descriptions, example arguments, after design.
- :func:`llm_diagnose`: a repair from a fixed catalogue for a tool that failed validation.

Prompts live in :mod:`metaserver.prompts`; models in :mod:`metaserver.models`.
"""

from metaserver.agents.llm.refine import refine_specs
from metaserver.agents.llm.review import Diagnosis, llm_diagnose

__all__ = ["Diagnosis", "llm_diagnose", "refine_specs"]
