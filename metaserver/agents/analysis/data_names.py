"""Which repository file a tutorial's reading call names, and where the repository holds it
(issue 30, "data in reach").

A tutorial reads a data file by a literal path relative to where it runs (``open("x.csv")``),
or through its library's loader, which names the file and the folder apart and downloads it
when it is not there (``load_example_data("freqs.npy", folder="data")`` reads
``data/freqs.npy`` under the folder it runs in). The repository ships such files where its
docs build finds them, which is not always beside the tutorial: a sphinx-gallery build runs
``tutorials/plot_x.py`` with the files in the repository's top ``data/``. So each name a call
may read is looked for beside the tutorial first, then in each folder above it up to the
repository's root; the first found is where its copy comes from. A name may be a folder
whose files the call reads together (``read_all_networks("trl_data/")``): its files then
travel, found the same way.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

__all__ = [
    "folder_files",
    "folder_literals",
    "looks_like_path",
    "read_names",
    "repository_file",
    "repository_folder",
]

_FOLDER = re.compile(r"^[\w.-]+(?:/[\w.-]+)*/?$")


def looks_like_path(text: str) -> bool:
    """A literal that names a file: short, one line, with a folder or an extension."""
    return (
        0 < len(text) < 260
        and "\n" not in text
        and ("/" in text or re.search(r"\.[A-Za-z0-9]{1,5}$", text) is not None)
    )


def folder_literals(node: ast.Call) -> list[str]:
    """The call's other string literals that may name a folder (``folder="data"``, a second
    positional ``"data"``): relative, one plain path, no file extension."""
    literals = [a.value for a in node.args[1:] if isinstance(a, ast.Constant)]
    literals += [k.value.value for k in node.keywords if isinstance(k.value, ast.Constant)]
    return [
        text
        for text in literals
        if isinstance(text, str)
        and _FOLDER.match(text)
        and not text.startswith("/")
        and re.search(r"\.[A-Za-z0-9]{1,5}$", text) is None
    ]


def read_names(node: ast.Call) -> list[str]:
    """The paths, relative to where the tutorial runs, that a reading call may read: its
    first literal, and that literal inside each folder the call names as well."""
    literal = next((a.value for a in node.args if isinstance(a, ast.Constant)), None)
    if not isinstance(literal, str) or not looks_like_path(literal):
        return []
    names = [os.path.normpath(literal)]
    if not Path(literal).is_absolute():
        names += [os.path.normpath(os.path.join(f, literal)) for f in folder_literals(node)]
    return list(dict.fromkeys(names))


def repository_file(name: str, here: Path, root: Path) -> str | None:
    """Where the repository holds the file a tutorial in ``here`` reads as ``name``: beside
    it, else the same path in the nearest folder above it (up to ``root``); its path
    relative to ``root``, or None where none holds it (or it would lie outside ``root``)."""
    return _held(name, here, root, folder=False)


def repository_folder(name: str, here: Path, root: Path) -> str | None:
    """As ``repository_file``, for a folder the tutorial reads as ``name``."""
    return _held(name, here, root, folder=True)


def folder_files(folder: Path) -> list[str]:
    """The files under ``folder`` (relative to it, in path order): no links, nothing hidden."""
    found = []
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if path.is_file() and not path.is_symlink() and not any(p.startswith(".") for p in parts):
            found.append(Path(*parts).as_posix())
    return found


def _held(name: str, here: Path, root: Path, folder: bool) -> str | None:
    top = root.resolve()
    place = here.resolve()
    while True:
        source = place / name
        kind = source.is_dir() if folder else source.is_file()
        if source.resolve().is_relative_to(top) and kind and not source.is_symlink():
            return source.resolve().relative_to(top).as_posix()
        if place == top or not place.is_relative_to(top):
            return None
        place = place.parent
