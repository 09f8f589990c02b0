"""Notebooks become tool candidates (issues #14 and 30), read statically.

A notebook is JSON (nbformat 4): read with the standard library, never executed here. One is
kept when it imports the package; its stored outputs, where it was saved with them, are what
a rerun must reproduce (``notebook-outputs``); one saved without them is run once at
validation to make its reference (``notebook-run``, ``agents/validate/notebook_run.py``).
Its parameters come from the cell tagged ``parameters`` (papermill's convention),
else from the first code cell made only of plain literal assignments. A notebook that needs
what a sandboxed run cannot have (the network, a shell, data files the repository does not
hold, cell magics) is reported as skipped with the reason, not guessed at; the repository
files it reads by a literal path travel with the generated server, ``../data/x.csv`` too
(the run's folder is laid out as the repository's around the notebook). Which of them become
tools is chosen by ``analysis/tutorial_choice.py``, with the example scripts of
``analysis/gallery.py``. The generated tool
runs the code cells (``metaserver_runtime.notebooks``); validation compares the rerun with
the outputs stored here (``agents/validate/notebook_outputs.py``).
"""

from __future__ import annotations

import ast
import base64
import binascii
import json
import keyword
import re
from pathlib import Path
from typing import NamedTuple

from metaserver.agents.analysis.cell_names import Session
from metaserver.agents.analysis.data_names import (
    first_literal,
    folder_files,
    formatted_folder,
    read_names,
    repository_file,
    repository_folder,
    string_names,
)
from metaserver.agents.repo_docs.file_arguments import writes_file
from metaserver.contracts import (
    JSON,
    Candidate,
    CodeReport,
    Example,
    NotebookCell,
    NotebookTarget,
    Parameter,
    SkippedCallable,
)
from metaserver.runtime.phash import png_hash

__all__ = [
    "DataFiles",
    "add_notebooks",
    "data_files",
    "find_notebooks",
    "imports",
    "needs_outside",
    "notebook_candidate",
    "parameters",
    "runnable",
    "title",
    "tutorial_candidate",
]

MAX_NOTEBOOK_BYTES = 5_000_000
MAX_DATA_BYTES = 20_000_000
"""Data files a notebook reads are copied into the server: this much at most, per notebook."""
PREFERRED_DIRS = ("tutorials", "docs", "examples", "notebooks")
# Line magics that only change how output is shown or modules reload: dropped before a run.
HARMLESS_MAGICS = ("matplotlib", "config", "load_ext", "reload_ext", "autoreload", "precision")
NETWORK_MODULES = ("requests", "urllib", "urllib3", "httpx", "aiohttp", "socket", "http")
_READERS = re.compile(r"^(open|read\w*|load\w*|imread|genfromtxt|fromfile)$")
_NAME_OK = re.compile(r"[^A-Za-z0-9_-]+")
# How a tool's description names each kind of tutorial and its parts.
_KINDS = {
    "notebook": ("the notebook", "code cells"),
    "script": ("the example script", "blocks"),
    "page": ("the docs page", "code blocks"),
}


def add_notebooks(report: CodeReport, root: Path) -> CodeReport:
    """``report`` with a candidate per chosen notebook and example script, and the others
    in ``skipped`` with the reason they cannot be one; the candidates in the order they are
    taken (``tutorial_choice``)."""
    # Imported here: gallery.py and doc_pages.py build on this module's readers.
    from metaserver.agents.analysis.doc_pages import find_pages, page_candidate
    from metaserver.agents.analysis.gallery import example_candidate, find_examples
    from metaserver.agents.analysis.tutorial_choice import choose_tutorials

    packages = {p.split(".")[0] for p in report.packages}
    usable: list[Candidate] = []
    skipped = list(report.skipped)
    found: list[tuple[Path, Candidate | str]] = [
        (path, notebook_candidate(path, root, packages)) for path in find_notebooks(root)
    ]
    found += [(path, example_candidate(path, root, packages)) for path in find_examples(root)]
    for page in find_pages(root):
        read = page_candidate(page, root, packages)
        if read is not None:  # a page whose code is no session is no tutorial
            found.append((page, read))
    for path, candidate in found:
        if isinstance(candidate, str):
            relative = path.relative_to(root).as_posix()
            skipped.append(SkippedCallable(target=relative, reason=candidate))
        else:
            usable.append(candidate)
    made = choose_tutorials(usable, packages)
    if not made and len(skipped) == len(report.skipped):
        return report
    return report.model_copy(
        update={"candidates": made + list(report.candidates), "skipped": skipped}
    )


def find_notebooks(root: Path) -> list[Path]:
    """``*.ipynb`` under ``root``, those in tutorials/, docs/, examples/, notebooks/ first."""
    found = []
    for path in root.rglob("*.ipynb"):
        parts = path.relative_to(root).parts
        if any(p.startswith(".") or p in ("node_modules", "build", "dist") for p in parts):
            continue  # checkpoints, virtual environments and build copies
        if path.is_file() and not path.is_symlink():
            found.append(path)

    def rank(path: Path) -> tuple[int, str]:
        top = path.relative_to(root).parts[0].lower()
        preferred = top in PREFERRED_DIRS or top.rstrip("s") in PREFERRED_DIRS
        return (0 if preferred else 1, path.relative_to(root).as_posix())

    return sorted(found, key=rank)


def notebook_candidate(path: Path, root: Path, packages: set[str]) -> Candidate | str:
    """The tool candidate for the notebook at ``path``, or why it cannot be one."""
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        return f"larger than {MAX_NOTEBOOK_BYTES} bytes"
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        cells = document["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return "not a readable notebook (nbformat 4 JSON)"
    if not isinstance(cells, list):
        return "not a readable notebook (nbformat 4 JSON)"
    code: list[NotebookCell] = []
    stored: list[dict[str, JSON]] = []
    tagged: int | None = None
    heading = ""
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            return "not a readable notebook (nbformat 4 JSON)"
        text = _text(cell.get("source", ""))
        if cell.get("cell_type") == "markdown" and not heading:
            heading = title(text)
        if cell.get("cell_type") != "code" or not text.strip():
            continue
        plain = runnable(text)
        if plain.startswith("!"):
            return f"cell {index}: {plain[1:]}"
        outputs, problem = _stored_outputs(cell.get("outputs") or [])
        if problem:
            return f"cell {index}: {problem}"
        tags = (cell.get("metadata") or {}).get("tags") or []
        if tagged is None and isinstance(tags, list) and "parameters" in tags:
            tagged = len(code)
        code.append(NotebookCell(cell=index, source=plain))
        if outputs:
            stored.append({"cell": index, **outputs})
    if not code:
        return "no code cells"
    return tutorial_candidate(path, root, packages, code, stored, tagged, heading)


def tutorial_candidate(
    path: Path,
    root: Path,
    packages: set[str],
    code: list[NotebookCell],
    stored: list[dict[str, JSON]],
    tagged: int | None,
    heading: str,
    kind: str = "notebook",
) -> Candidate | str:
    """The candidate for a tutorial's code cells (a notebook's, or an example script's
    blocks with ``kind`` "script", a docs page's statements with "page"), or why it cannot be
    one. ``stored``: the outputs saved
    with it; none: validation runs it first to make them (``notebook-run``)."""
    trees = [ast.parse(cell.source) for cell in code]
    imported = set().union(*(imports(tree) for tree in trees))
    if not imported & packages:
        return f"does not use the package ({', '.join(sorted(packages)) or 'none found'})"
    problem = needs_outside(trees, imported) or unbound_reads(code, trees, root)
    if problem:
        return problem
    found = data_files(trees, path.parent, root)
    if isinstance(found, str):
        return found
    parameters_cell, params, parameters_after = parameters(trees, tagged)
    relative = path.relative_to(root).as_posix()
    defaults = {p.name: p.default for p in params}
    what, parts = _KINDS.get(kind, _KINDS["notebook"])
    summary = heading or f"Run {what} {relative}."
    return Candidate(
        target=relative,
        name=_NAME_OK.sub("_", path.stem).strip("_") or kind,
        signature=f"{relative}({', '.join(f'{k}={v!r}' for k, v in defaults.items())})",
        parameters=params,
        doc=f"{summary}\n\nRuns the {parts} of {what} `{relative}` with these "
        "parameters in place of its own, and returns each cell's value and printed output "
        "(labelled by cell), the figures it drew and the files it wrote.",
        summary=summary,
        in_all=True,
        top_level=True,
        kind="notebook",
        annotated=1.0,
        notebook=NotebookTarget(
            path=relative,
            cells=code,
            parameters_cell=parameters_cell,
            parameters_after=parameters_after,
            data=found.names,
            data_from=found.sources,
            workdir=found.workdir,
            kind="script" if kind == "script" else "page" if kind == "page" else "notebook",
        ),
        examples=[
            Example(
                arguments=defaults,
                expected=stored or None,
                has_expected=bool(stored),
                wrapper="notebook",
                origin="notebook",
            )
        ],
    )


def _text(source: object) -> str:
    if isinstance(source, list):
        return "".join(str(line) for line in source)
    return str(source)


def title(markdown: str) -> str:
    """The first line of a text, as a heading (``#`` marks dropped)."""
    for line in markdown.splitlines():
        if line.strip():
            return line.strip().lstrip("#").strip()[:200]
    return ""


def runnable(source: str) -> str:
    """The cell as plain Python (harmless line magics dropped), or "!why" it cannot run."""
    lines = source.splitlines()
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("%%"):
        return f"!the cell magic {first.split()[0]} cannot be run"
    kept = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("!"):
            return f"!runs a shell command ({stripped[:60]})"
        if stripped.startswith("%"):
            magic = stripped[1:].split()[0] if stripped[1:].split() else ""
            if magic in ("pip", "conda"):
                return f"!installs packages ({stripped[:60]})"
            if magic not in HARMLESS_MAGICS:
                return f"!the line magic %{magic} cannot be run"
            continue
        kept.append(line)
    text = "\n".join(kept)
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return f"!not plain Python ({exc.msg}, line {exc.lineno})"
    return text


def _stored_outputs(outputs: list[object]) -> tuple[dict[str, JSON], str | None]:
    """The outputs a rerun must reproduce: stdout, the value's text, the figures' hashes."""
    stdout, text = "", None
    images: list[JSON] = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "error":
            return {}, f"its stored output is an error ({output.get('ename', 'error')})"
        if kind == "stream" and output.get("name") == "stdout":
            stdout += _text(output.get("text", ""))
        data = output.get("data") or {}
        if kind == "execute_result" and "text/plain" in data:
            text = _text(data["text/plain"])
        if kind in ("display_data", "execute_result") and "image/png" in data:
            images.append(_image_hash(data["image/png"]))
    found: dict[str, JSON] = {}
    if stdout:
        found["stdout"] = stdout
    if text is not None:
        found["text"] = text
    if images:
        found["images"] = images
    return found, None


def _image_hash(encoded: object) -> str | None:
    """The perceptual hash of a stored PNG (base64, perhaps split in lines), if decodable."""
    try:
        return png_hash(base64.b64decode(_text(encoded)))
    except (binascii.Error, ValueError):
        return None


def imports(tree: ast.AST) -> set[str]:
    """The top-level modules ``tree`` imports (absolute imports only)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def needs_outside(trees: list[ast.Module], imported: set[str]) -> str:
    """Why the code needs the network, or "" when it does not."""
    network = sorted(imported.intersection(NETWORK_MODULES))
    if network:
        return f"needs the network (imports {', '.join(network)})"
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if re.match(r"^(https?|ftp)://", node.value.strip()):
                    return f"needs the network (reads {node.value.strip()[:80]})"
    return ""


def unbound_reads(code: list[NotebookCell], trees: list[ast.Module], root: Path) -> str:
    """Why the cells cannot run in order in one namespace (a name read that no cell before
    binds: ``plt`` in a notebook that never imports it), or "" when they can."""
    session = Session(root)
    for cell, tree in zip(code, trees, strict=True):
        missing = session.missing(tree)
        if missing:
            names = ", ".join(sorted(missing)[:4])
            return f"reads names no earlier cell binds (cell {cell.cell}: {names})"
        session.add(tree)
    return ""


class DataFiles(NamedTuple):
    """The repository files a tutorial reads, and how a run finds them."""

    names: list[str]
    """As the cells read them, relative to the notebook's folder."""
    workdir: str
    """The folder the cells run in (``NotebookTarget.workdir``)."""
    sources: dict[str, str]
    """A name the notebook's folder does not hold, by the repository path that holds it."""


def data_files(trees: list[ast.Module], here: Path, root: Path) -> DataFiles | str:
    """The repository files the code reads by a literal path (relative to the notebook, as
    Jupyter runs it; or inside a folder its loader's call names, ``data_names.read_names``),
    found beside the notebook or, where a docs build from the repository's root would find
    them, in a folder above it (``data_names.repository_file``), and the folder it must run
    in for them to be found there (see ``NotebookTarget.workdir``); or why one cannot be
    had: absent, outside the repository, or too large to copy into the server."""
    written: set[str] = set()
    found: list[str] = []
    sources: dict[str, str] = {}
    size = 0
    climbs = 0
    known = string_names(trees)  # ``filename = "x.s2p"`` before ``Network(filename)``
    for tree in trees:
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        for node in sorted(calls, key=lambda call: (call.lineno, call.col_offset)):
            name = _call_name(node.func)
            names = read_names(node, known)
            literal = first_literal(node, known)
            if not names or literal is None:
                # ``Network(f"./runs/dut_{i}.s2p")`` in a loop: the files of its folder
                formatted = formatted_folder(node)
                held_folder = repository_folder(formatted, here, root) if formatted else None
                if formatted is None or held_folder is None or writes_file(name):
                    continue
                names, literal = [formatted], formatted
            if writes_file(name) or (name == "open" and _opens_for_writing(node)):
                written.add(literal)
                continue
            if literal in written or any(n in found for n in names):
                continue
            # A reader's name says it reads (``read_csv``, ``np.load``); any other call reads
            # a file when the repository holds one by that name (``Network("line.s2p")``).
            reader = _READERS.match(name) is not None
            if Path(literal).is_absolute() or not (here / names[0]).resolve().is_relative_to(
                root.resolve()
            ):
                if not reader:
                    continue
                return f"reads {literal!r}, outside the repository"
            held = [(n, repository_file(n, here, root)) for n in names]
            read, source = next(((n, s) for n, s in held if s is not None), (names[0], None))
            pairs = [(read, source)] if source is not None else []
            if not pairs:  # a folder whose files the call reads together
                folders = [(n, repository_folder(n, here, root)) for n in names]
                read, place = next(((n, s) for n, s in folders if s), (names[0], None))
                if place is not None:
                    pairs = [
                        (f"{read}/{file}", f"{place}/{file}") for file in folder_files(root / place)
                    ]
            if not pairs:
                if not reader:
                    continue  # a name of something else: a label, a file it writes
                return f"reads {literal!r}, a data file the repository does not hold"
            for read, source in pairs:
                if Path(read).as_posix() in found:
                    continue
                size += (root / source).stat().st_size
                if size > MAX_DATA_BYTES:
                    return f"reads more than {MAX_DATA_BYTES} bytes of data files"
                found.append(Path(read).as_posix())
                if (here / read).resolve() != (root / source).resolve():
                    sources[Path(read).as_posix()] = source
                climbs = max(climbs, _leading_parents(Path(read)))
    folder = here.resolve().relative_to(root.resolve()).parts
    workdir = "/".join(folder[len(folder) - climbs :]) if climbs else ""
    return DataFiles(found, workdir, sources)


def _leading_parents(relative: Path) -> int:
    """How many folders up a normalised relative path starts (``../../x``: 2)."""
    count = 0
    for part in relative.parts:
        if part != "..":
            break
        count += 1
    return count


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _opens_for_writing(node: ast.Call) -> bool:
    modes = [a for a in node.args[1:2]] + [k.value for k in node.keywords if k.arg == "mode"]
    return any(
        isinstance(m, ast.Constant) and isinstance(m.value, str) and set(m.value) & set("wax")
        for m in modes
    )


def parameters(
    trees: list[ast.Module], tagged: int | None
) -> tuple[int | None, list[Parameter], int | None]:
    """The parameters cell (index into the code cells), its literal assignments, and how
    many of its statements run before the parameters are bound (None: the whole cell).

    The cell tagged ``parameters``, else the first made only of literal assignments, else the
    first that begins with them (after a docstring and imports): tutorials seldom give their
    settings a cell of their own (``n_space = 500`` then ``x = np.linspace(-5, 5, n_space)``),
    so the values are bound right after those statements, before the rest of the cell uses them.
    """
    if tagged is not None:
        return tagged, _assignments(trees[tagged], strict=False) or [], None
    for index, tree in enumerate(trees):
        found = _assignments(tree, strict=True)
        if found:
            return index, found, None
    for index, tree in enumerate(trees):
        start, end = _leading_assignments(tree)
        found = _assignments(ast.Module(body=tree.body[start:end], type_ignores=[]), True)
        if found:
            return index, found, end
    return None, [], None


def _leading_assignments(tree: ast.Module) -> tuple[int, int]:
    """Where the literal assignments a cell begins with start and end (statement indexes),
    after a docstring-like string and imports; empty when it begins otherwise."""
    body = tree.body
    start = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        start = 1  # a string first, as a docstring (it shows no value: more statements follow)
    # An example script's first block imports, then sets its settings (``n = 100``).
    while start < len(body) and isinstance(body[start], ast.Import | ast.ImportFrom):
        start += 1
    end = start
    while end < len(body) and _literal_assignment(body[end]) is not None:
        end += 1
    return start, end


def _assignments(tree: ast.Module, strict: bool) -> list[Parameter] | None:
    """``name = literal`` statements as parameters; ``strict``: None unless all are."""
    found: list[Parameter] = []
    for statement in tree.body:
        pairs = _literal_assignment(statement)
        if pairs is None:
            if strict:
                return None
            continue
        for name, literal in pairs:
            if name in {p.name for p in found}:
                found = [p for p in found if p.name != name]
            found.append(
                Parameter(
                    name=name,
                    kind="keyword_only",
                    json_schema={**_schema(literal), "default": literal},
                    required=False,
                    default=literal,
                )
            )
    return found


def _literal_assignment(statement: ast.stmt) -> list[tuple[str, JSON]] | None:
    """The names a statement binds to literals, in order, or None where it binds anything
    else. Tutorials set several at once as often as one (``ndim, nsamples = 2, 10000``)."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Tuple | ast.List):
        if not isinstance(value, ast.Tuple | ast.List) or len(value.elts) != len(target.elts):
            return None
        targets, values = list(target.elts), list(value.elts)
    else:
        targets, values = [target], [value]
    pairs: list[tuple[str, JSON]] = []
    for name, node in zip(targets, values, strict=True):
        pair = _literal_pair(name, node)
        if pair is None:
            return None
        pairs.append(pair)
    return pairs


def _literal_pair(target: ast.expr, node: ast.expr) -> tuple[str, JSON] | None:
    if not isinstance(target, ast.Name) or keyword.iskeyword(target.id):
        return None
    if target.id.startswith("_"):
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, tuple):
        value = list(value)
    try:
        if json.loads(json.dumps(value)) != value:
            return None  # not plain JSON: a set, bytes, complex, or non-string keys
    except (TypeError, ValueError):
        return None
    return target.id, value


def _schema(value: JSON) -> dict[str, JSON]:
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        kinds = {json.dumps(_schema(v), sort_keys=True) for v in value}
        items = json.loads(kinds.pop()) if len(kinds) == 1 else {}
        return {"type": "array", "items": items}
    if isinstance(value, dict):
        return {"type": "object"}
    return {}
