"""bench/retrieval.py: folds, the verdict on a change, and the embedding cache."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import numpy as np

from metaserver.registry.embeddings import DIMENSION, Vectors

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("retrieval_bench", BENCH / "retrieval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["retrieval_bench"] = module
    spec.loader.exec_module(module)
    return module


def _figures(r5: float, r10: float) -> dict[str, float]:
    return {"n": 5, "recall@1": 0.1, "recall@5": r5, "recall@10": r10, "ndcg@10": 0.5}


def test_folds_are_stable_and_cover_every_request() -> None:
    bench = _module()
    ids = [f"request-{i}" for i in range(200)]
    folds = [bench.fold_of(i, 5) for i in ids]
    assert folds == [bench.fold_of(i, 5) for i in ids]
    assert set(folds) == {0, 1, 2, 3, 4}
    queries = [{"id": i} for i in ids]
    scores = [{key: float(n % 2) for key in bench.METRICS} for n in range(200)]
    table = bench.per_fold(queries, scores, 5)
    assert sum(fold["n"] for fold in table) == 200
    assert all(0 <= fold["recall@5"] <= 1 for fold in table)


def test_a_change_passes_only_when_the_mean_rises_and_no_fold_falls_much() -> None:
    bench = _module()
    before = {"folds": [_figures(0.5, 0.6)] * 3}
    better = {"folds": [_figures(0.55, 0.65), _figures(0.49, 0.6), _figures(0.5, 0.62)]}
    lines = bench.judge(better, before)
    assert all(line.endswith("no fold falls by more than 0.02)") for line in lines)
    assert all(": passes" in line for line in lines)
    one_fold_falls = {"folds": [_figures(0.7, 0.8), _figures(0.45, 0.6), _figures(0.5, 0.6)]}
    verdicts = bench.judge(one_fold_falls, before)
    assert "does not pass" in verdicts[0] and ": passes" in verdicts[1]
    assert all("does not pass" in line for line in bench.judge(before, before))


def test_the_fold_table_has_a_row_per_fold_and_the_spread() -> None:
    bench = _module()
    lines = bench.fold_table([_figures(0.4, 0.6), _figures(0.6, 0.8)])
    assert [line.split()[0] for line in lines[1:]] == ["0", "1", "mean", "sd", "min", "max"]
    mean = lines[3].split()
    assert float(mean[2]) == 0.5 and float(mean[3]) == 0.7


def test_the_cache_embeds_each_text_once(tmp_path: Path) -> None:
    bench = _module()
    calls: list[list[str]] = []

    def embed(texts: Sequence[str]) -> Vectors:
        calls.append(list(texts))
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, len(text) % DIMENSION] = 1.0
        return out

    first = bench.EmbeddingCache(tmp_path).wrap(embed)(["a", "bb"])
    again = bench.EmbeddingCache(tmp_path).wrap(embed)(["bb", "ccc", "a"])
    assert calls == [["a", "bb"], ["ccc"]]
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0])
    assert again[1, 3] == 1.0
