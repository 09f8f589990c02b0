"""Running a notebook as a tool: its code cells, with new parameters, in a fresh process.

The cells run in a child of the generated server (``notebook_runner.py``, the same
interpreter), like a script tool's: a notebook may print, draw, write files, set globals or
hang, and none of that may touch the server. Each run gets a directory of its own under the
server's work directory (the only writable place in the sandbox); the files it writes there
are the run's files, its figures are PNGs beside them. The data files it reads are copied in
read-only, laid out as in the repository around the notebook's folder (``../data/x.csv``
found as beside the notebook, ``workdir``). Standard library only: this module is copied
into generated servers.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from .codecs import dumps_compact
from .decode import work_dir
from .phash import png_hash
from .scripts import STDERR_LINES, read_capped, run_bounded

__all__ = [
    "DEFAULT_TIMEOUT",
    "KEEP_RUNS",
    "NotebookError",
    "data_location",
    "figure_images",
    "run_notebook",
]

DEFAULT_TIMEOUT = 25.0
"""Seconds a run may take when the tool sets none (below the usual 30 s call budget)."""
KEEP_RUNS = 5
"""Run directories kept per notebook; older ones are removed when a new run starts."""
SMALL_VALUE = 64
"""Bytes of a value never replaced by a truncation notice (the notice is about as long)."""
RUNNER = Path(__file__).resolve().with_name("notebook_runner.py")
FIGURES = "figures"
MAX_PNG_BYTES = 20_000_000
"""A saved PNG larger than this is listed without its perceptual hash."""


class NotebookError(RuntimeError):
    """A cell raised, the run crashed, or it ran out of time."""


def run_notebook(
    notebook: dict[str, Any],
    values: dict[str, Any],
    *,
    timeout: float | None = None,
    max_bytes: int = 1_000_000,
    data: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Run ``notebook`` (a NotebookTarget dict) with ``values``; its outputs by cell.

    The files in its ``data`` list are copied read-only from the folder ``data`` into the
    run's directory first (at ``data_location``), and the cells run in its ``workdir``
    there, where they find them as they did beside the notebook; they are not among the
    files the run wrote.

    Returns ``{"notebook", "cells": [{"cell", "value", "text", "stdout", "figures"}],
    "figures": [{"cell", "path", "hash"}], "files": [{"path", "bytes"}, "hash" for a PNG],
    "seconds"}``; paths are relative to the server's work directory.

    Raises:
        NotebookError: a cell raised (which cell, and the error), or the timeout.
    """
    limit = timeout or DEFAULT_TIMEOUT
    stem = Path(str(notebook["path"])).stem
    root = work_dir()
    runs = root / "notebooks"
    runs.mkdir(parents=True, exist_ok=True)
    _prune(runs, stem)
    run_dir = runs / f"{stem}-{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"
    run_dir.mkdir()
    workdir = str(notebook.get("workdir") or "")
    copied = _copy_data(notebook.get("data") or [], workdir, data, run_dir)
    cwd = run_dir / workdir
    cwd.mkdir(parents=True, exist_ok=True)
    control = Path(tempfile.mkdtemp(prefix=".control-", dir=runs))
    try:
        job = {
            "cells": notebook["cells"],
            "parameters_cell": notebook.get("parameters_cell"),
            "parameters_after": notebook.get("parameters_after"),
            "values": values,
            "figures": str(control / FIGURES),
            "output": str(control / "result.json"),
        }
        (control / "job.json").write_text(json.dumps(job), encoding="utf-8")
        started = time.monotonic()
        code, stderr = _run(control / "job.json", cwd, limit, stem, max_bytes)
        seconds = round(time.monotonic() - started, 3)
        output = control / "result.json"
        if not output.exists():
            tail = "\n".join(stderr.rstrip().splitlines()[-STDERR_LINES:])
            raise NotebookError(f"{stem} exited with code {code}: {tail or '(no stderr)'}")
        result = json.loads(output.read_text(encoding="utf-8"))
        error = result.get("error")
        if error:
            raise NotebookError(
                f"{stem}: cell {error['cell']} raised {error['type']}: {error['message']}\n"
                f"{error['traceback']}"
            )
        files = _files(run_dir, root, copied)
        figures = _keep_figures(control / FIGURES, run_dir, root, result["cells"])
    finally:
        shutil.rmtree(control, ignore_errors=True)
    return {
        "notebook": notebook["path"],
        "cells": _fit(result["cells"], max_bytes),
        "figures": figures,
        "files": files,
        "seconds": seconds,
    }


def _fit(cells: list[dict[str, Any]], max_bytes: int) -> list[dict[str, Any]]:
    """The cells within the result budget: a value too large is replaced by its size, the
    largest first, while its text (capped by the runner) and stdout stay to be compared."""
    sizes = sorted(
        ((len(dumps_compact(c.get("value")).encode()), i) for i, c in enumerate(cells)),
        reverse=True,
    )
    total = len(dumps_compact(cells).encode())
    fitted = list(cells)
    for size, index in sizes:
        if size <= SMALL_VALUE or (total <= max_bytes * 3 // 4 and size <= max_bytes // 4):
            break  # within budget, or only values too small to be worth a notice are left
        fitted[index] = dict(fitted[index], value={"truncated": True, "bytes": size})
        total -= size
    return fitted


def figure_images(result: dict[str, Any], max_bytes: int) -> list[str]:
    """The run's figures as base64 PNG, for MCP image content, while they fit ``max_bytes``."""
    images: list[str] = []
    left = max_bytes
    for figure in result.get("figures") or []:
        path = work_dir() / str(figure.get("path", ""))
        if not path.is_file():
            continue
        encoded = base64.b64encode(path.read_bytes()).decode("ascii")
        if len(encoded) > left:
            break
        images.append(encoded)
        left -= len(encoded)
    return images


def _run(job: Path, cwd: Path, limit: float, stem: str, max_bytes: int) -> tuple[int, str]:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", MPLBACKEND="Agg")
    with (
        tempfile.TemporaryFile(dir=job.parent) as out,
        tempfile.TemporaryFile(dir=job.parent) as err,
    ):
        command = [sys.executable, "-I", str(RUNNER), str(job)]
        try:
            code = run_bounded(command, cwd=cwd, env=env, out=out, err=err, limit=limit)
        except subprocess.TimeoutExpired:
            raise NotebookError(f"{stem} timed out after {limit:g} s") from None
        return code, read_capped(err, max_bytes // 4)


def data_location(name: str, workdir: str) -> str | None:
    """Where a data file the cells read as ``name`` (relative to the notebook's folder) lies
    in a run's directory whose cells run in ``workdir``; None when it would lie outside."""
    if Path(name).is_absolute() or Path(workdir).is_absolute():
        return None
    location = os.path.normpath(os.path.join(workdir, name))
    if location == ".." or location.startswith(("../", "/")) or location == ".":
        return None
    return Path(location).as_posix()


def _copy_data(
    names: list[str], workdir: str, source: str | os.PathLike[str] | None, run_dir: Path
) -> dict[Path, tuple[int, int]]:
    """Copy the data files in, read-only (a tutorial reads the repository's files; it may
    not change them for the next run); each copy's (size, mtime) to tell it apart later."""
    copied: dict[Path, tuple[int, int]] = {}
    for name in names:
        location = data_location(name, workdir)
        if source is None or location is None:
            raise NotebookError(f"data file {name!r} cannot be provided")
        target = run_dir / location
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(source) / location, target)
        target.chmod(0o444)
        status = target.stat()
        copied[target] = (status.st_size, status.st_mtime_ns)
    return copied


def _files(run_dir: Path, root: Path, copied: dict[Path, tuple[int, int]]) -> list[dict[str, Any]]:
    found = []
    for path in sorted(run_dir.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        status = path.stat()
        if copied.get(path) == (status.st_size, status.st_mtime_ns):
            continue  # a data file the run only read
        entry: dict[str, Any] = {"path": path.relative_to(root).as_posix(), "bytes": status.st_size}
        if path.suffix.lower() == ".png" and status.st_size <= MAX_PNG_BYTES:
            # a figure the run saved: compared as a figure
            entry["hash"] = png_hash(path.read_bytes())
        found.append(entry)
    return found


def _keep_figures(
    saved: Path, run_dir: Path, root: Path, cells: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Move the figures into the run directory; where each came from."""
    figures = []
    for cell in cells:
        for name in cell.get("figures") or []:
            source = saved / name
            if not source.is_file():
                continue
            target = run_dir / FIGURES / name
            target.parent.mkdir(exist_ok=True)
            shutil.move(source, target)
            figures.append(
                {
                    "cell": cell["cell"],
                    "path": target.relative_to(root).as_posix(),
                    "hash": png_hash(target.read_bytes()),
                }
            )
    return figures


def _prune(runs: Path, stem: str) -> None:
    old = sorted(p for p in runs.glob(f"{stem}-*") if p.is_dir())
    for path in old[: max(0, len(old) - KEEP_RUNS + 1)]:
        shutil.rmtree(path, ignore_errors=True)
