"""Run a notebook's code cells in order in this fresh process: ``python -I notebook_runner.py JOB``.

The job (JSON) holds the cells, the index of the parameters cell and the parameter values;
the values are bound as variables right after that cell runs, or after its first
``parameters_after`` statements (papermill's injected cell, without writing code from
data). Each cell's last expression is its value, as in Jupyter;
stdout is captured per cell (as UTF-8 text, like a kernel's); a value's text is what a display
hook the notebook installed shows (``sympy.init_printing()`` outside IPython installs one that
pretty-prints, as IPython's formatter would), else its repr; matplotlib figures are saved as
PNG (Agg backend) at the end of the cell that drew them and closed, as the inline backend
does; pandas gets a kernel's display defaults, not a terminal's. The results go to the file
named in the job, as JSON. Standard library only: it runs in the target's environment.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import math
import os
import sys
import traceback
from pathlib import Path
from typing import Any

MAX_DEPTH = 6
MAX_ITEMS = 1000
MAX_TEXT = 20_000


def json_safe(value: Any, depth: int = 0) -> Any:
    """A JSON value for ``value``: plain data as it is, arrays as lists, others as repr."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if depth >= MAX_DEPTH:
        return _repr(value)
    if isinstance(value, list | tuple):
        return [json_safe(v, depth + 1) for v in list(value)[:MAX_ITEMS]]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: json_safe(v, depth + 1) for k, v in list(value.items())[:MAX_ITEMS]}
    for method in ("tolist", "item"):  # numpy arrays and scalars
        convert = getattr(value, method, None)
        if callable(convert):
            try:
                return json_safe(convert(), depth + 1)
            except Exception:
                break
    return _repr(value)


def _repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<unrepresentable {type(value).__name__}: {exc}>"
    return text[:MAX_TEXT]


class _Capture(io.StringIO):
    """A cell's stdout. It says UTF-8, as a kernel's stream does: libraries choose what to
    print by it (sympy pretty-prints with box-drawing characters only where it may)."""

    encoding = "utf-8"


def _shown(value: Any) -> str:
    """The text Jupyter shows for ``value``: what a display hook the notebook installed
    prints for it (IPython's formatter honours the printers such a library registers), else
    its repr."""
    hook = sys.displayhook
    if hook is sys.__displayhook__:
        return _repr(value)
    printed = _Capture()
    try:
        with contextlib.redirect_stdout(printed):
            hook(value)
    except Exception:
        return _repr(value)
    text = printed.getvalue().rstrip("\n")
    return text[:MAX_TEXT] if text else _repr(value)


def _split(source: str) -> tuple[ast.Module, ast.Expression | None]:
    """The cell's statements, and its last expression when Jupyter would show its value."""
    tree = ast.parse(source)
    shown = not source.rstrip().endswith(";")
    if shown and tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
        assert isinstance(last, ast.Expr)
        return tree, ast.Expression(last.value)
    return tree, None


class _KernelDisplay(importlib.abc.MetaPathFinder):
    """pandas sets its display defaults at import by where it runs: in a terminal (as this
    process looks to it) ``display.max_columns`` is 0, a table fitted to the terminal's width
    with its middle columns elided (``...``); in a Jupyter kernel, where stored outputs were
    made, it is 20, and a wide table wraps its columns (``\\``). Once pandas is imported, its
    default is made a kernel's; a value the notebook sets itself afterwards stands."""

    KERNEL_MAX_COLUMNS = 20

    def find_spec(
        self, name: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != "pandas":
            return None
        sys.meta_path.remove(self)  # once: the real finders find it
        spec = importlib.util.find_spec(name)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        load = loader.exec_module

        def exec_module(module: Any) -> None:
            load(module)
            with contextlib.suppress(Exception):
                if module.get_option("display.max_columns") == 0:
                    module.set_option("display.max_columns", self.KERNEL_MAX_COLUMNS)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _save_figures(figures: Path, cell: int) -> list[str]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    saved = []
    for number in pyplot.get_fignums():
        figures.mkdir(parents=True, exist_ok=True)
        path = figures / f"cell{cell}-figure{number}.png"
        # As the inline backend shows a figure: cropped to what was drawn.
        pyplot.figure(number).savefig(path, format="png", bbox_inches="tight")
        saved.append(path.name)
    pyplot.close("all")
    return saved


def run(job: dict[str, Any]) -> dict[str, Any]:
    figures = Path(job["figures"])
    displayed: list[str] = []

    def display(*values: Any, **_: Any) -> None:
        """IPython's display(), which notebooks call as a builtin: the values' text."""
        displayed.extend(_shown(value) for value in values)

    namespace: dict[str, Any] = {"__name__": "__main__", "display": display}
    results: list[dict[str, Any]] = []
    for index, cell in enumerate(job["cells"]):
        number = cell["cell"]
        stdout = _Capture()
        entry: dict[str, Any] = {"cell": number, "value": None, "text": None, "stdout": ""}
        results.append(entry)
        displayed.clear()
        # The parameters are bound after the cell, or after its leading assignments.
        binds = index == job.get("parameters_cell")
        after = job.get("parameters_after") if binds else None
        try:
            tree, last = _split(cell["source"])
            parts = [tree.body] if after is None else [tree.body[:after], tree.body[after:]]
            with contextlib.redirect_stdout(stdout):
                for part, statements in enumerate(parts):
                    if part:
                        namespace.update(job.get("values") or {})
                    module = ast.Module(body=statements, type_ignores=[])
                    exec(compile(module, f"<cell {number}>", "exec"), namespace)
                if last is not None:
                    value = eval(compile(last, f"<cell {number}>", "eval"), namespace)
                    if value is not None:
                        entry["value"], entry["text"] = json_safe(value), _shown(value)
        except BaseException as exc:  # the notebook's error, reported as the result
            entry["stdout"] = stdout.getvalue()[:MAX_TEXT]
            lines = traceback.format_exception(exc)
            return {
                "cells": results,
                "error": {
                    "cell": number,
                    "type": type(exc).__name__,
                    "message": str(exc)[:2000],
                    "traceback": "".join(lines[-6:])[-3000:],
                },
            }
        entry["stdout"] = stdout.getvalue()[:MAX_TEXT]
        if displayed:
            entry["displayed"] = list(displayed)
        entry["figures"] = _save_figures(figures, number)
        if binds and after is None:
            namespace.update(job.get("values") or {})
    return {"cells": results}


def main() -> int:
    job = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    os.environ["MPLBACKEND"] = "Agg"  # figures are files here: no display exists
    sys.meta_path.insert(0, _KernelDisplay())
    result = run(job)
    Path(job["output"]).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
