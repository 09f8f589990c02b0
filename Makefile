# The commands a contributor needs. `make test` is what CI runs (.ci/run).
.PHONY: setup test lint typecheck unit bench

setup:
	@command -v uv >/dev/null 2>&1 || python3 -m pip install --quiet "uv>=0.13.8,<0.14"
	uv sync --frozen

lint: setup
	uv run --frozen ruff check metaserver tests bench
	uv run --frozen ruff format --check metaserver tests bench

typecheck: setup
	uv run --frozen mypy

unit: setup
	uv run --frozen pytest -m "not integration"

test: lint typecheck
	uv run --frozen pytest

bench: setup
	uv run --frozen python bench/convert_corpus.py
