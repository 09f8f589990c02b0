"""The in-memory vectors search ranks by: the two-step nearest search and its products."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from metaserver.registry.embeddings import DIMENSION
from metaserver.registry.vectors import (
    REDUCE_FROM,
    REDUCED,
    ToolVectors,
    assemble,
    dot_rows,
    principal_basis,
    principal_directions,
    sampled_means,
)


def _unit(rows: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _vectors(tools: int, seed: int = 3) -> ToolVectors:
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 5, size=tools).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    matrix = _unit(rng.standard_normal((int(counts.sum()), DIMENSION)).astype(np.float32))
    return ToolVectors(
        generation=1,
        ids=np.arange(100, 100 + tools, dtype=np.int64),
        servers=np.array([f"s{i % 3}" for i in range(tools)], dtype=np.str_),
        starts=starts,
        counts=counts,
        matrix=matrix,
        centroids=np.ascontiguousarray(sampled_means(matrix, starts, counts)),
    )


def _exact(vectors: ToolVectors, query: npt.NDArray[np.float32]) -> list[float]:
    """Each tool's score computed one tool at a time, the plain way."""
    scores = []
    for start, count in zip(vectors.starts, vectors.counts, strict=True):
        rows = vectors.matrix[start : start + count].astype(np.float64) @ query
        scores.append(0.5 * (rows.max() + rows.mean()))
    return scores


def test_dot_is_the_matrix_product() -> None:
    vectors = _vectors(400)
    query = vectors.matrix[7]
    assert dot_rows(vectors.centroids, query).dtype == np.float32
    assert np.allclose(dot_rows(vectors.centroids, query), vectors.centroids @ query, atol=1e-5)


def test_nearest_ranks_as_the_exact_score_when_every_tool_is_a_candidate() -> None:
    vectors = _vectors(60)  # depth 20 takes 3 x 20 = every tool to the exact score
    rng = np.random.default_rng(5)
    queries = _unit(vectors.matrix[[0, 9, 33]] + 0.3 * rng.standard_normal((3, DIMENSION)))
    found = vectors.nearest(queries.astype(np.float32), None, 20, -1.0)
    for query, ranked in zip(queries, found, strict=True):
        scores = _exact(vectors, query)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[:20]
        assert ranked == [int(vectors.ids[i]) for i in order]


def test_the_first_pass_keeps_the_tools_a_query_is_about() -> None:
    vectors = _vectors(3000)
    # A query near tool 1234's texts finds it first although only 3 x depth tools are scored.
    start, count = int(vectors.starts[1234]), int(vectors.counts[1234])
    query = _unit(vectors.matrix[start : start + count].mean(axis=0, keepdims=True))[0]
    found = vectors.nearest(query[None, :], None, 5, 0.2)[0]
    assert found[0] == 1334
    scores = _exact(vectors, query)
    assert all(scores[i - 100] >= 0.2 for i in found)


def test_nearest_keeps_to_a_server_and_a_floor() -> None:
    vectors = _vectors(90)
    query = vectors.matrix[:1]
    found = vectors.nearest(query, "s1", 10, -1.0)[0]
    assert found and all(vectors.servers[i - 100] == "s1" for i in found)
    assert vectors.nearest(query, "nobody", 10, -1.0) == [[]]
    high = vectors.nearest(query, None, 10, 0.99)[0]
    assert high == [100] or high == []  # only a tool whose texts are this very vector


def _low_rank(tools: int, rank: int, seed: int = 4) -> ToolVectors:
    """Tools whose vectors all lie in one ``rank``-dimensional subspace (as a model's outputs
    mostly do), with the first pass's basis."""
    rng = np.random.default_rng(seed)
    span = np.linalg.qr(rng.standard_normal((DIMENSION, rank)))[0].T.astype(np.float32)
    vectors = _vectors(tools, seed)
    matrix = _unit(rng.standard_normal((len(vectors.matrix), rank)).astype(np.float32) @ span)
    centroids = np.ascontiguousarray(sampled_means(matrix, vectors.starts, vectors.counts))
    basis = principal_directions(centroids)
    return replace(
        vectors,
        matrix=matrix,
        centroids=centroids,
        basis=basis,
        reduced=np.ascontiguousarray(centroids @ basis.T),
    )


def test_the_principal_basis_keeps_the_dot_products_of_its_span() -> None:
    vectors = _low_rank(2000, 40)
    assert vectors.basis is not None and vectors.reduced is not None
    assert vectors.basis.shape == (REDUCED, DIMENSION)
    assert np.allclose(vectors.basis @ vectors.basis.T, np.eye(REDUCED), atol=1e-4)
    query = vectors.matrix[11]
    assert np.allclose(
        vectors.reduced @ (vectors.basis @ query), vectors.centroids @ query, atol=1e-4
    )


def test_nearest_on_the_reduced_means_finds_what_the_full_ones_do() -> None:
    reduced = _low_rank(3000, 60)
    full = replace(reduced, basis=None, reduced=None)
    rng = np.random.default_rng(8)
    picks = reduced.matrix[[5, 700, 2900]] + 0.2 * rng.standard_normal((3, DIMENSION))
    queries = _unit(picks.astype(np.float32) @ (reduced.basis.T @ reduced.basis))  # type: ignore[union-attr]
    assert reduced.nearest(queries, None, 20, 0.0) == full.nearest(queries, None, 20, 0.0)
    assert all(len(found) == 20 for found in full.nearest(queries, None, 20, 0.0))


def test_the_basis_is_kept_while_the_registry_keeps_its_size(tmp_path: Path) -> None:
    path = tmp_path / "registry.sqlite3"
    rng = np.random.default_rng(2)
    small = rng.standard_normal((REDUCE_FROM - 1, DIMENSION)).astype(np.float32)
    assert principal_basis(path, small) is None
    first = principal_basis(path, rng.standard_normal((REDUCE_FROM, DIMENSION)).astype(np.float32))
    assert first is not None
    grown = rng.standard_normal((REDUCE_FROM + 12, DIMENSION)).astype(np.float32)
    assert principal_basis(path, grown) is first  # a server added: the same directions
    tripled = rng.standard_normal((3 * REDUCE_FROM, DIMENSION)).astype(np.float32)
    assert principal_basis(path, tripled) is not first


def test_without_kept_means_the_ranking_and_scores_are_the_same() -> None:
    """A large registry keeps no means (its first pass reads the reduced ones): the exact
    score computes its candidates' from their rows, to the same floats."""
    kept = _low_rank(3000, 60)
    computed = replace(kept, centroids=None)
    tools = np.arange(0, 3000, 7)
    assert kept.centroids is not None
    assert np.array_equal(computed.means(tools), kept.centroids[tools])
    rng = np.random.default_rng(9)
    queries = _unit(kept.matrix[[3, 1500]] + 0.3 * rng.standard_normal((2, DIMENSION)))
    queries = queries.astype(np.float32)
    assert np.array_equal(
        computed.similarity(tools, queries[0]), kept.similarity(tools, queries[0])
    )
    assert computed.nearest(queries, None, 20, -1.0) == kept.nearest(queries, None, 20, -1.0)


def test_a_large_registry_keeps_no_means(tmp_path: Path) -> None:
    """From REDUCE_FROM tools on, the vectors hold the reduced means, not the full ones;
    under it the full means and no reduced pass."""
    rng = np.random.default_rng(6)
    for tools in (REDUCE_FROM - 1, REDUCE_FROM):
        counts = rng.integers(1, 4, size=tools).astype(np.int64)
        matrix = _unit(rng.standard_normal((int(counts.sum()), DIMENSION)).astype(np.float32))
        ids = list(range(tools))
        made = assemble(tmp_path / f"{tools}.sqlite3", 1, ids, ["s"] * tools, counts, matrix)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
        means = sampled_means(matrix, starts, counts)
        if tools < REDUCE_FROM:
            assert made.reduced is None and np.array_equal(made.centroids, means)  # type: ignore[arg-type]
        else:
            assert made.centroids is None and made.basis is not None
            assert np.array_equal(made.reduced, means @ made.basis.T)  # type: ignore[arg-type]
            assert np.array_equal(made.means(np.arange(tools)), means)
