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
    "first_literal",
    "folder_files",
    "folder_literals",
    "formatted_folder",
    "looks_like_path",
    "read_names",
    "repository_file",
    "repository_folder",
    "string_names",
    "string_value",
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


def string_names(trees: list[ast.Module]) -> dict[str, str]:
    """The names the cells set to a string literal (``filename = "line.s2p"``, often a
    parameter), as the calls after them read them; a name set twice keeps its last."""
    known: dict[str, str] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                if isinstance(target, ast.Name):
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        known[target.id] = value.value
                    else:
                        known.pop(target.id, None)
    return known


def first_literal(node: ast.Call, known: dict[str, str] | None = None) -> str | None:
    """The call's first literal argument, or the string its first argument is built of
    from literals and the names ``known`` (``directory + "dut.s4p"``,
    ``os.path.join(folder, "x.csv")``)."""
    for argument in node.args:
        if isinstance(argument, ast.Constant):
            return argument.value if isinstance(argument.value, str) else None
        built = string_value(argument, known or {})
        if built is not None:
            return built
    return None


def string_value(node: ast.expr, known: dict[str, str]) -> str | None:
    """The string an expression of literals and ``known`` names makes, or None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = string_value(node.left, known), string_value(node.right, known)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "join" and node.args and not node.keywords:
            owner = node.func.value  # os.path.join / path.join, not "sep".join
            if isinstance(owner, ast.Attribute | ast.Name):
                parts = [string_value(a, known) for a in node.args]
                if all(p is not None for p in parts):
                    return os.path.join(*[p for p in parts if p is not None])
    return None


def formatted_folder(node: ast.Call) -> str | None:
    """The folder an f-string path given first starts with (``f"./runs/dut_{i}.s2p"``:
    ``runs``), whose files the call reads one by one; None where there is none."""
    first = node.args[0] if node.args else None
    if not isinstance(first, ast.JoinedStr) or not first.values:
        return None
    head = first.values[0]
    if not isinstance(head, ast.Constant) or not isinstance(head.value, str):
        return None
    folder = head.value.rpartition("/")[0]
    if not folder or "\n" in folder or Path(folder).is_absolute():
        return None
    return os.path.normpath(folder)


def read_names(node: ast.Call, known: dict[str, str] | None = None) -> list[str]:
    """The paths, relative to where the tutorial runs, that a reading call may read: its
    first literal (or the string a name given first was set to, ``known``), and that
    literal inside each folder the call names as well."""
    literal = first_literal(node, known)
    if literal is None or not looks_like_path(literal):
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
