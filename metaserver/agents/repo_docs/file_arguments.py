"""Which arguments of a documented call are files: a literal path or address, a name with
any extension where the callable's parameter takes a file, or a file opened on the line.
Such a call reads data a sandboxed tool does not have, unless its callable writes the file
(a writer's file is its output, made in the tool's work directory).
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from metaserver.contracts import CodeReport

__all__ = ["FileParameters", "file_parameters", "names_file", "reads_file", "writes_file"]


# An address, an absolute or relative path, or a name with a data file's extension (a
# dotted name alone, "pkg.module", is not a file).
_FILE_OR_URL = re.compile(
    r"^(?:[a-z][a-z0-9+.-]*://|~?/|\.{1,2}/)|\w\.(?:png|jpe?g|gif|bmp|tiff?|exr|hdr|dpx|"
    r"csv|tsv|txt|dat|json|ya?ml|xml|toml|ini|cfg|h5|hdf5?|nc|npy|npz|mat|pkl|pickle|xlsx?|"
    r"parquet|feather|wav|mp3|mp4|fits?|cube|spi[13]d|csp|lut|gz|bz2|xz|zip|tar|pdf|svg|shp|"
    r"geojson|db|sqlite|log|html?|ipynb)$",
    re.I,
)


# A name with an extension of any kind ("H2.xyz", "run.traj"): a file only where the
# parameter takes one, since "pkg.module" looks the same.
_FILE_LIKE = re.compile(r"^[\w.-]*\w\.[A-Za-z][A-Za-z0-9]{0,5}$")
# A parameter that takes a file: a name, a path or an open file object.
_FILE_PARAMETER = re.compile(
    r"(?:^|_)(?:file|files|filename|filenames|fname|fnames|filepath|path|paths|fp|fh|fd)(?:_|$)"
    r"|^(?:file|path)",
    re.I,
)
# A callable that writes what it is given (``write``, ``save_png``, ``to_csv``,
# ``savefig``): its file is an output, made in the tool's work directory, not data it needs.
# Notebooks' data-file detection asks the same (``analysis/notebooks.py``).
_WRITER = re.compile(r"^(?:write|save|dump|export|to_|imsave$)|_(?:write|save|dump|export)$", re.I)


class FileParameters(NamedTuple):
    """Where a name takes a file: positions of its call's arguments, and keywords."""

    positions: frozenset[int]
    keywords: frozenset[str]


def file_parameters(report: CodeReport) -> dict[str, FileParameters]:
    """For each short name, the call positions and keywords at which one of its candidates
    takes a file (``write(filename, images)``: position 0 and ``filename``); a method's
    positions leave out its receiver."""
    found: dict[str, tuple[set[int], set[str]]] = {}
    for candidate in report.candidates:
        short = candidate.name.rpartition(".")[2]
        positional = (
            candidate.positional[1:] if candidate.kind == "method" else candidate.positional
        )
        names = {p.name for p in candidate.parameters if _FILE_PARAMETER.search(p.name)}
        if not names:
            continue
        positions, keywords = found.setdefault(short, (set(), set()))
        positions.update(i for i, name in enumerate(positional) if name in names)
        keywords.update(names)
    return {n: FileParameters(frozenset(p), frozenset(k)) for n, (p, k) in found.items()}


def reads_file(call: ast.Call, files: FileParameters | None = None) -> bool:
    """A literal argument that names a file or an address (``"image.png"``, ``"https://…"``,
    ``"/data/x"``), a name with any extension where the callable takes a file (``files``:
    ``write("H2.xyz", h2)``), or an argument built by ``open(...)``."""
    arguments: list[tuple[int | None, str | None, ast.expr]]
    arguments = [(i, None, a) for i, a in enumerate(call.args)]
    arguments += [(None, k.arg, k.value) for k in call.keywords]
    for position, keyword, node in arguments:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if names_file(text):
                return True
            takes_file = files is not None and (
                position in files.positions or keyword in files.keywords
            )
            if takes_file and _FILE_LIKE.match(text):
                return True
        if isinstance(node, ast.Call) and _callee(node) in ("open", "Path", "urlopen"):
            return True
    return False


def names_file(text: str) -> bool:
    """Whether a literal names a file or an address (``"image.png"``, ``"https://…"``,
    ``"/data/x"``): a word with no space that looks like one."""
    text = text.strip()
    return bool(text) and " " not in text and bool(_FILE_OR_URL.search(text))


def writes_file(name: str) -> bool:
    """Whether a callable of this name writes what it is given (``write``, ``save_png``)."""
    return bool(_WRITER.search(name))


def _callee(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None
