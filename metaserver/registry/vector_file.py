"""The searchable tools' stored vectors in a file beside the registry, memory-mapped read-only
(issue 31).

Held in the process, the 58,000 rows of 20,000 tools were 85 MB of a searched meta-server's
resident memory, though a search reads the rows of a few hundred candidates only. In this
file they are pages of the system's cache: the process maps them, drops its mapping of the
pages it read (:func:`release_rows`) once the means are computed from every row and after
each search, and the next read of a row maps its page again from the cache, with no copy
(a minor fault). Clean file pages are what the kernel reclaims first under pressure, and
every process serving the home shares them.

The file is ``<registry>.vectors``: a header (magic, the registry's ``search_state``
generation the rows are of, dimension, model, tool and row counts, the size of the server
names), the rows (float32, little-endian), then each tool's id and row count (int64), the
index of its server (uint32) and the distinct server names (a JSON list). It is written
whole by whichever process finds it missing or of another generation, from one read
transaction of the registry (the generation and the rows of one snapshot), into a private
temporary file that the writer maps, then (on a thread of its own) flushes to disk and
renames over the old one: several processes share one home, a reader sees a whole file or
the one before, and a reader that mapped the old file keeps it (the rename never changes
its pages; a process that exits first waits for it). A file of another generation, model or
size, or whose sizes and counts disagree, is not mapped; search then rebuilds it from SQLite
(:func:`metaserver.registry.vectors.searchable_vectors`). Where it cannot be written (a
read-only home, a full disk) search holds the rows in memory as before.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import mmap
import os
import struct
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from metaserver.registry.embeddings import DIMENSION, MODEL_ID, Vectors, blob_rows

logger = logging.getLogger(__name__)

MAGIC = b"MSVECS01"
# magic, generation, dimension, model tag, tools, rows, bytes of server names, spare
_HEADER = struct.Struct("<8sqq8sqqqq")
_MODEL = hashlib.sha256(MODEL_ID.encode()).digest()[:8]
_ROW = 4 * DIMENSION
# Per tool: its id and its row count (int64 each), its server's index (uint32).
_PER_TOOL = 8 + 8 + 4
# A temporary file older than this is left over by a process that died while writing.
_ABANDONED_S = 600.0


def vector_path(registry: Path) -> Path:
    """The vector file of the registry at ``registry``."""
    return registry.with_name(registry.name + ".vectors")


@dataclass(frozen=True)
class Stored:
    """The searchable tools' ids, servers, row counts and rows (tool after tool), of one
    registry generation; ``mapping`` is the file the rows are read from, None for rows held
    in memory."""

    generation: int
    ids: list[int]
    servers: list[str]
    counts: npt.NDArray[np.int64]
    matrix: Vectors
    mapping: mmap.mmap | None = None


def release_rows(mapping: mmap.mmap | None) -> None:
    """Drop this process's mapping of the pages of ``mapping`` it has read: they stay in the
    system's page cache, and a later read maps them again (a minor fault, no copy). Nothing
    for rows held in memory (None), or where the system has no ``MADV_DONTNEED``."""
    advice = getattr(mmap, "MADV_DONTNEED", None)
    if mapping is not None and advice is not None:
        with contextlib.suppress(OSError, ValueError):  # closed, or refused: kept mapped
            mapping.madvise(advice)


def load(path: Path, generation: int) -> Stored | None:
    """The vectors in the file at ``path`` when it holds ``generation``'s, whole and of this
    model; else None (missing, of another generation, or corrupt)."""
    try:
        with path.open("rb") as file:
            return _map(file, os.fstat(file.fileno()).st_size, generation)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("vector file %s not used (rebuilt from the registry): %s", path, exc)
        return None


def write(path: Path, generation: int, rows: Iterable[tuple[int, str, bytes]]) -> Stored:
    """Write ``generation``'s searchable rows (each tool's id, server and stored blob) to a
    temporary file beside ``path`` and return them mapped from it; a thread then flushes it
    to disk and renames it to ``path`` (:func:`settle` waits for it).

    The flush took 0.2 to 0.7 s on a loaded machine, and this process needs only its
    mapping: another process finds the file once it is whole on disk, and until then
    finds the old one stale and writes its own. Raises OSError when the file cannot be
    written; nothing is left behind then.
    """
    directory = path.parent
    _remove_abandoned(directory, path.name)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=f"{path.name}.", suffix=".tmp")
    file = os.fdopen(fd, "w+b")
    try:
        file.write(bytes(_HEADER.size))
        ids: list[int] = []
        counts: list[int] = []
        index: list[int] = []
        names: dict[str, int] = {}
        for tool_id, server, blob in rows:
            count = blob_rows(blob)
            if not count:
                continue
            ids.append(tool_id)
            counts.append(count)
            index.append(names.setdefault(server, len(names)))
            file.write(memoryview(blob)[: count * _ROW])  # whole rows (blob_rows)
        listed = json.dumps(list(names)).encode()
        file.write(np.asarray(ids, dtype="<i8").tobytes())
        file.write(np.asarray(counts, dtype="<i8").tobytes())
        file.write(np.asarray(index, dtype="<u4").tobytes())
        file.write(listed)
        file.seek(0)
        file.write(
            _HEADER.pack(
                MAGIC, generation, DIMENSION, _MODEL, len(ids), sum(counts), len(listed), 0
            )
        )
        file.flush()
        # Mapped before the rename: another process may put a newer file in its place.
        stored = _map(file, file.seek(0, os.SEEK_END), generation)
        if stored is None:  # what was just written does not read back
            raise OSError(f"vector file {temporary} did not read back")
    except BaseException:
        file.close()
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    settling = threading.Thread(
        target=_settle, args=(file, Path(temporary), path), name="metaserver-vectors", daemon=True
    )
    with _SETTLING_LOCK:
        _SETTLING.append(settling)
    settling.start()
    return stored


_SETTLING: list[threading.Thread] = []
_SETTLING_LOCK = threading.Lock()


def _settle(file: BinaryIO, temporary: Path, path: Path) -> None:
    """Flush the written ``file`` to disk and rename it from ``temporary`` to ``path``: a
    reader never finds a file under that name that a crash could have left part-written."""
    try:
        with file:
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        logger.warning("vector file %s not kept: %s", path, exc)
        with contextlib.suppress(OSError):
            temporary.unlink()
    finally:
        with _SETTLING_LOCK:
            _SETTLING.remove(threading.current_thread())


def settle(timeout: float = 30.0) -> None:
    """Wait for the files this process has written to be renamed into place (at exit: a
    short-lived process's file is for the next ones; tests)."""
    with _SETTLING_LOCK:
        pending = list(_SETTLING)
    for thread in pending:
        thread.join(timeout)


atexit.register(settle, 10.0)


def _map(file: BinaryIO, size: int, generation: int) -> Stored | None:
    """The vectors of the open ``file`` of ``size`` bytes, each size and count checked
    against the others and the file's; None when it is of another generation."""
    if size < _HEADER.size:
        raise ValueError(f"{size} bytes, shorter than a header")
    file.seek(0)
    header = file.read(_HEADER.size)
    if len(header) != _HEADER.size:
        raise ValueError("the header was cut short")
    magic, held, dimension, model, tools, rows, names, _ = _HEADER.unpack(header)
    if magic != MAGIC or dimension != DIMENSION or model != _MODEL:
        raise ValueError("not a vector file of this model and format")
    if held != generation:
        return None
    if not 0 <= tools <= rows or names < 0:
        raise ValueError(f"{tools} tools, {rows} rows, {names} bytes of names")
    matrix_end = _HEADER.size + rows * _ROW
    tail = tools * _PER_TOOL + names
    if matrix_end + tail != size:
        raise ValueError(f"{size} bytes where the header says {matrix_end + tail}")
    mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    offset = matrix_end
    ids = np.frombuffer(mapping[offset : offset + 8 * tools], dtype="<i8").astype(np.int64)
    offset += 8 * tools
    counts = np.frombuffer(mapping[offset : offset + 8 * tools], dtype="<i8").astype(np.int64)
    offset += 8 * tools
    index = np.frombuffer(mapping[offset : offset + 4 * tools], dtype="<u4").astype(np.int64)
    offset += 4 * tools
    listed = json.loads(mapping[offset : offset + names].decode())
    if not isinstance(listed, list) or not all(isinstance(name, str) for name in listed):
        raise ValueError("the server names are not a list of names")
    if tools and (counts.min() < 1 or int(counts.sum()) != rows or index.max() >= len(listed)):
        raise ValueError("the tools' row counts or servers disagree with the file")
    matrix = np.frombuffer(mapping, dtype="<f4", count=rows * DIMENSION, offset=_HEADER.size)
    return Stored(
        generation=generation,
        ids=ids.tolist(),
        servers=[listed[i] for i in index.tolist()],
        counts=counts,
        matrix=matrix.reshape(rows, DIMENSION),
        mapping=mapping,
    )


def _remove_abandoned(directory: Path, name: str) -> None:
    """Remove temporary vector files that a process which died while writing left behind."""
    now = time.time()
    for leftover in directory.glob(f"{name}.*.tmp"):
        with contextlib.suppress(OSError):
            if now - leftover.stat().st_mtime > _ABANDONED_S:
                leftover.unlink()
