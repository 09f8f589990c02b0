"""What each field of a tool's search documents adds to retrieval, by k-fold cross validation.

Runs bench/retrieval.py's measurement once with everything a tool is searched by, then once
without each field, each in a fresh registry (so the in-memory indexes are built anew):

- BM25 (``search.BM25_WEIGHTS``, one weight per ``tools_fts`` column): the tool's name split
  into words, its description, its parameters (names and descriptions), its origin (server
  name, import target), its example requests;
- the embedding (``embeddings.tool_texts``): the example requests' vectors, and the two halves
  of the embedded document (the name as words, the description).

For each it prints the mean figures, the per-fold table and the k-fold verdict of taking the
field out against the run with every field (ARCHITECTURE.md, decision 34): a field earns its
place when taking it out does not pass (the mean falls, or a fold falls by more than 0.02).

    uv run python bench/retrieval_fields.py TOOLS.jsonl QUERIES.jsonl [--folds 5]
        [--cache /tmp/metaserver-retrieval-cache] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import (
    DEPTH,
    build_registry,
    cached_embeddings,
    evaluate,
    fold_table,
    judge,
    read_jsonl,
)

from metaserver.registry import embeddings, search
from metaserver.registry.requests import name_words
from metaserver.settings import Settings

# The tools_fts columns bm25 weighs, in order (server and tool are UNINDEXED).
COLUMNS = ("server", "tool", "words", "description", "parameters", "origin", "requests")


def _without_column(column: str) -> tuple[float, ...]:
    return tuple(
        0.0 if name == column else weight
        for name, weight in zip(COLUMNS, search.BM25_WEIGHTS, strict=True)
    )


def _document_only(name: str, description: str, requests: Sequence[str]) -> list[str]:
    return [embeddings.tool_document(name, description)]


def _description_only(name: str, description: str) -> str:
    return " ".join(description.split()) or name_words(name)


def _name_only(name: str, description: str) -> str:
    return name_words(name)


# Each variant: its name, and the module attribute it replaces with what.
VARIANTS: dict[str, tuple[Any, str, Any]] = {
    **{
        f"bm25 without {column}": (search, "BM25_WEIGHTS", _without_column(column))
        for column in COLUMNS[2:]
    },
    "embedding without example requests": (embeddings, "tool_texts", _document_only),
    "embedding without name words": (embeddings, "tool_document", _description_only),
    "embedding without description": (embeddings, "tool_document", _name_only),
}


@contextmanager
def replaced(module: Any, attribute: str, value: Any) -> Iterator[None]:
    original = getattr(module, attribute)
    setattr(module, attribute, value)
    try:
        yield
    finally:
        setattr(module, attribute, original)


def measure(
    tools: list[dict[str, Any]], queries: list[dict[str, Any]], folds: int, cache: Path | None
) -> dict[str, Any]:
    """bench/retrieval.py's figures, in a registry of its own."""
    with tempfile.TemporaryDirectory(prefix="metaserver-fields-") as home:
        os.environ["METASERVER_HOME"] = home
        with cached_embeddings(cache):
            registry, _ = build_registry(tools, Settings(home=Path(home)))
            search.search_tools(registry, "warm up", limit=DEPTH)
        return evaluate(registry, queries, folds)


def report(name: str, result: dict[str, Any], full: dict[str, Any] | None) -> list[str]:
    means = ", ".join(
        f"{key} {result[key]}" for key in ("recall@1", "recall@5", "recall@10", "ndcg@10")
    )
    lines = [f"\n== {name}: {means}", *fold_table(result["folds"])]
    if full is not None:
        lines += [f"taking it out, {line}" for line in judge(result, full)]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tools", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds")
    parser.add_argument("--cache", type=Path, help="a folder for the tools' embeddings")
    parser.add_argument("--only", nargs="*", choices=sorted(VARIANTS), help="these variants")
    options = parser.parse_args()
    if options.folds < 1:
        parser.error("--folds must be at least 1")
    tools, queries = read_jsonl(options.tools), read_jsonl(options.queries)

    def run() -> dict[str, Any]:
        return measure(tools, queries, options.folds, options.cache)

    full = run()
    print("\n".join(report("every field", full, None)))
    for name in options.only or VARIANTS:
        module, attribute, value = VARIANTS[name]
        with replaced(module, attribute, value):
            result = run()
        print("\n".join(report(name, result, full)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
