"""bench/retrieval_fields.py: each variant takes out one field, and only for its run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from metaserver.registry import embeddings, search

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _module() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("fields_bench", BENCH / "retrieval_fields.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fields_bench"] = module
    spec.loader.exec_module(module)
    return module


def test_each_bm25_variant_zeroes_its_own_column_only() -> None:
    bench = _module()
    for column in ("words", "description", "parameters", "origin", "requests"):
        _, attribute, weights = bench.VARIANTS[f"bm25 without {column}"]
        assert attribute == "BM25_WEIGHTS"
        changed = [
            name
            for name, now, before in zip(bench.COLUMNS, weights, search.BM25_WEIGHTS, strict=True)
            if now != before
        ]
        assert changed == [column] and weights[bench.COLUMNS.index(column)] == 0.0


def test_the_embedding_variants_leave_out_what_they_say() -> None:
    bench = _module()
    requests = ["what is the price of AAPL"]
    _, _, texts = bench.VARIANTS["embedding without example requests"]
    assert texts("get_price", "Latest price.", requests) == ["get price: Latest price."]
    _, _, document = bench.VARIANTS["embedding without name words"]
    assert document("get_price", "Latest  price.") == "Latest price."
    assert document("get_price", "") == "get price"
    _, _, document = bench.VARIANTS["embedding without description"]
    assert document("get_price", "Latest price.") == "get price"


def test_a_variant_is_undone_after_its_run() -> None:
    bench = _module()
    module, attribute, value = bench.VARIANTS["embedding without description"]
    original = embeddings.tool_document
    with bench.replaced(module, attribute, value):
        assert embeddings.tool_document("get_price", "Latest price.") == "get price"
    assert embeddings.tool_document is original
    assert embeddings.tool_document("get_price", "Latest price.") == "get price: Latest price."
