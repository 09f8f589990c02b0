"""The embedding model shipped by a package: loads offline, and its vectors mean something."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from metaserver.registry import embeddings
from metaserver.registry.embeddings import (
    DIMENSION,
    MODEL_ID,
    blob_rows,
    embedder,
    forget_embedder,
    from_blobs,
    model_files,
    name_words,
    prepared_model,
    to_blob,
    tool_document,
    tool_texts,
    tool_vectors,
)


def test_the_model_files_are_installed_with_the_package() -> None:
    files = model_files()
    assert files is not None
    model, tokenizer = files
    assert model.suffix == ".onnx" and model.stat().st_size > 10_000_000
    assert tokenizer.name == "tokenizer.json"


def test_vectors_are_unit_length_and_similar_texts_are_closer() -> None:
    model = embedder()
    assert model is not None and embedder() is model  # loaded once per process
    vectors = model.embed(
        ["get the current stock price", "what is a company's share worth today", "bake bread"]
    )
    assert vectors.shape == (3, DIMENSION) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    related, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert related > unrelated + 0.2
    assert model.embed([]).shape == (0, DIMENSION)


def test_threads_asking_at_once_share_one_loaded_model() -> None:
    """A first search and the warm-up's ran at once and each loaded a model session."""
    forget_embedder()
    start = threading.Barrier(2)
    loaded: list[object] = []

    def load() -> None:
        start.wait()
        loaded.append(embedder())

    threads = [threading.Thread(target=load) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loaded[0] is not None and loaded[0] is loaded[1] is embedder()


def test_batching_does_not_change_a_vector() -> None:
    model = embedder()
    assert model is not None
    texts = ["short", "a much longer text about reading spreadsheets and plotting charts " * 3]
    together = model.embed(texts)
    alone = np.vstack([model.embed([text]) for text in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_documents_and_blobs() -> None:
    assert name_words("getRecipeById") == "get Recipe By Id"
    assert name_words("get-weibo_trending.now") == "get weibo trending now"
    assert tool_document("add_numbers", "Add two\n   integers.") == "add numbers: Add two integers."
    assert tool_document("ping", "") == "ping"
    blobs = tool_vectors(
        [("add_numbers", "Add two integers.", ["sum two numbers", "add 2 and 3"]), ("ping", "", [])]
    )
    assert blobs is not None and len(blobs) == 2
    # One vector for the document, one per example request, in that order.
    assert [blob_rows(b) for b in blobs] == [3, 1] and len(blobs[1]) == DIMENSION * 4
    matrix = from_blobs(blobs)
    assert matrix.shape == (4, DIMENSION)
    assert to_blob(matrix[3]) == blobs[1]
    model = embedder()
    assert model is not None
    assert np.allclose(model.embed(["sum two numbers"])[0], matrix[1], atol=1e-4)
    assert tool_texts("add_numbers", "Add.", ["sum"]) == ["add numbers: Add.", "sum"]
    assert from_blobs([]).shape == (0, DIMENSION)
    assert MODEL_ID


def test_query_embeddings_are_remembered_and_equal_fresh_ones() -> None:
    model = embedder()
    assert model is not None
    model.forget_queries()
    texts = ["plot a bar chart", "read a csv file", "plot a bar chart"]
    first = model.embed_queries(texts)
    assert first.shape == (3, DIMENSION)
    assert np.allclose(first, model.embed(texts), atol=1e-4)
    # Asked again, in another order and with a new text: the same vectors, row for row.
    again = model.embed_queries(["read a csv file", "bake bread", "plot a bar chart"])
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0])
    assert np.allclose(again[1], model.embed(["bake bread"])[0], atol=1e-4)
    assert model.embed_queries([]).shape == (0, DIMENSION)
    model.forget_queries()
    assert np.allclose(model.embed_queries(["read a csv file"])[0], first[1], atol=1e-4)


def test_only_the_latest_query_embeddings_are_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    model = embedder()
    assert model is not None
    model.forget_queries()
    monkeypatch.setattr(embeddings, "_REMEMBERED", 2)
    model.embed_queries(["first text", "second text"])
    model.embed_queries(["first text"])  # now the most recent of the two
    model.embed_queries(["third text"])  # pushes out the least recent: "second text"
    assert list(model._remembered) == ["first text", "third text"]
    model.forget_queries()


def test_the_prepared_model_gives_the_shipped_models_vectors(tmp_path: Path) -> None:
    """The session loads a prepared copy (basic optimisations applied, weights in a mapped
    file): the same floats as the shipped file, one text at a time and in batches."""
    files = model_files()
    assert files is not None
    prepared = prepared_model(files[0], tmp_path)
    assert prepared != files[0] and (prepared.parent / "model.data").stat().st_size > 80_000_000
    assert prepared_model(files[0], tmp_path) == prepared  # made once
    texts = [
        "add two numbers",
        "split a sentence into words and count how often each occurs",
        "Solar zenith angle at a date, a latitude and a longitude, in degrees.",
        "x" * 300,
        "convert 3 feet to metres",
        "",
        "résumé naïve café 東京 🙂",
        " ".join(["token"] * 200),
    ]
    shipped = embeddings.Embedder(*files)
    loaded = embeddings.Embedder(prepared, files[1])
    assert loaded.embed(texts).tobytes() == shipped.embed(texts).tobytes()
    for text in texts:
        assert loaded.embed([text]).tobytes() == shipped.embed([text]).tobytes()


def test_a_damaged_prepared_copy_is_made_again(tmp_path: Path) -> None:
    files = model_files()
    assert files is not None
    prepared = prepared_model(files[0], tmp_path)
    data = prepared.parent / "model.data"
    size = data.stat().st_size
    with data.open("r+b") as file:
        file.truncate(size - 4096)
    assert prepared_model(files[0], tmp_path) == prepared  # made again, whole
    assert data.stat().st_size == size
    (prepared.parent / "sizes.json").write_text("[" * 5000)
    assert prepared_model(files[0], tmp_path) == prepared
    assert json.loads((prepared.parent / "sizes.json").read_text())["model.data"] == size
    (tmp_path / "blocked").write_text("")  # where a copy cannot be made
    assert prepared_model(files[0], tmp_path / "blocked") == files[0]  # the shipped file
