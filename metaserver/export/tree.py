"""The tree of an exported change: every file it adds or edits, by repository path.

The server goes into a folder of its own (``mcp/``, or the first of a few names the
repository does not use), made from the registered version's files: ``server.py`` as it was
validated, the tests its publication replayed, its documents, the data files its examples
read, and a README written for the repository. ``metaserver_runtime`` is vendored, each
file with its licence header, only when the server imports it. The one edit outside the
folder declares the ``mcp`` extra (:mod:`.packaging`). Everything is read from the record,
so that a second export of one version is the same bytes.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metaserver import __version__
from metaserver.agents.fetch.common import redact
from metaserver.agents.generate.data_files import example_files
from metaserver.contracts import ToolSpec
from metaserver.export.message import commit_message
from metaserver.export.origin import Origin
from metaserver.export.packaging import PackagingEdit, packaging_edit, setuptools_discovers
from metaserver.export.readme import export_readme

__all__ = [
    "FOLDERS",
    "Change",
    "build_change",
    "choose_folder",
    "portable_server",
    "runtime_modules",
    "server_requirements",
    "without_credentials",
]

FOLDERS = ("mcp", "mcp_server", "mcp-server", "metaserver_mcp")
RUNTIME = "metaserver_runtime"
# Files of the server directory the export writes itself, or leaves out: the client snippet
# runs `metaserver run` (the repository's users run the server directly), work/ holds what
# runs wrote (its data files are picked by name).
_LEFT_OUT = {"README.md", "mcp.json"}
_SKIPPED_PARTS = {"__pycache__", ".pytest_cache"}
_LICENCE = (
    "# Vendored from metaserver {version} (metaserver/runtime/{name}) by `metaserver export`.\n"
    "# Copyright the metaserver authors. SPDX-License-Identifier: Apache-2.0\n"
    "# (https://www.apache.org/licenses/LICENSE-2.0). Regenerate rather than edit.\n"
)
_SIBLING = re.compile(r"^[a-z_][a-z0-9_]*\.py$")
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


@dataclass(frozen=True)
class Change:
    """An export: the files it writes, what they edit, and the commit that carries them."""

    folder: str
    files: dict[str, bytes]  # repository path -> content, sorted by path
    originals: dict[str, bytes]  # the existing files it edits, as they were
    packaging: PackagingEdit
    message: str
    date: int  # seconds since the epoch (the conversion's registration)
    commit: str | None
    tools: list[str] = field(default_factory=list)


def build_change(origin: Origin) -> Change:
    """The change that adds ``origin``'s server to the tree it was converted from."""
    folder = choose_folder(origin.tree, importable=not setuptools_discovers(origin.tree))
    calls = _calls(origin.server_dir)
    requirements = server_requirements(origin)
    packaging = packaging_edit(origin.tree, requirements, folder)
    files: dict[str, bytes] = {}
    vendored = runtime_modules(origin.server_dir)
    for path in _server_files(origin.server_dir):
        relative = path.relative_to(origin.server_dir)
        if relative.parts[0] == RUNTIME and relative.as_posix() not in vendored:
            continue
        data = path.read_bytes()
        if relative.as_posix() == "server.py":
            data = portable_server(data.decode("utf-8"), origin.tree, origin.specs).encode()
        elif relative.parts[0] == RUNTIME and path.suffix == ".py":
            data = _LICENCE.format(version=__version__, name=relative.name).encode() + data
        files[f"{folder}/{relative.as_posix()}"] = without_credentials(data, origin.record.source)
    for name in _data_files(origin):
        files[f"{folder}/work/{name}"] = (origin.server_dir / "work" / name).read_bytes()
    files[f"{folder}/work/.gitignore"] = _work_ignore(list(_data_files(origin))).encode()
    generator = str(origin.record.generator_version)
    readme = export_readme(
        origin.record.name,
        origin.distribution,
        folder,
        packaging.install,
        origin.specs,
        calls,
        generator,
    )
    files[f"{folder}/README.md"] = readme.encode()
    files[packaging.path] = packaging.text.encode()
    originals = {}
    if packaging.original is not None:
        originals[packaging.path] = packaging.original.encode()
    message = commit_message(
        origin.distribution,
        folder,
        _public_source(origin.record.source),
        origin.commit,
        generator,
        calls,
        packaging.path,
        packaging.install,
    )
    return Change(
        folder=folder,
        files=dict(sorted(files.items())),
        originals=originals,
        packaging=packaging,
        message=message,
        date=origin.date,
        commit=origin.commit,
        tools=[spec.name for spec in origin.specs],
    )


def portable_server(text: str, tree: Path, specs: list[ToolSpec]) -> str:
    """``server.py`` with each script tool's path (rendered absolute, into the home's copy of
    the tree) made relative to the repository the folder sits in, at run time."""
    for spec in specs:
        script = spec.script
        if spec.kind != "script" or script is None or script.mode != "path" or not script.path:
            continue
        rendered = repr(str(tree / script.path))
        text = text.replace(rendered, f"str(Path(__file__).resolve().parents[1] / {script.path!r})")
    return text


def runtime_modules(server_dir: Path) -> set[str]:
    """The ``metaserver_runtime`` files the server needs (``metaserver_runtime/x.py``): the
    modules ``server.py`` and its tests (``tests/test_tools.py``) import, what they import in
    turn, and a sibling file one runs by its name (the notebook runner); none when neither
    imports any."""
    package = server_dir / RUNTIME
    wanted: list[str] = []
    importers = [server_dir / "server.py", server_dir / "tests" / "test_tools.py"]
    nodes = (
        node
        for importer in importers
        if importer.is_file()
        for node in ast.walk(ast.parse(importer.read_text(encoding="utf-8")))
    )
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            head, _, rest = node.module.partition(".")
            if head == RUNTIME:
                wanted.extend(["__init__", rest.split(".")[0]] if rest else ["__init__"])
        elif isinstance(node, ast.Import):
            if any(alias.name.split(".")[0] == RUNTIME for alias in node.names):
                wanted.append("__init__")
    seen: set[str] = set()
    while wanted:
        name = wanted.pop()
        path = package / f"{name}.py"
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                wanted.append(node.module.split(".")[0] if node.module else "__init__")
                if not node.module:
                    wanted.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if _SIBLING.match(node.value):
                    wanted.append(node.value.removesuffix(".py"))
    if seen:
        seen.add("__init__")  # importing a module of the package runs its __init__
    return {f"{RUNTIME}/{name}.py" for name in seen}


def choose_folder(tree: Path, importable: bool = True) -> str:
    """``mcp``, or the first name of :data:`FOLDERS` nothing at the tree's root uses (in any
    case: the change must check out on a case-insensitive file system too). Not
    ``importable``: only a name that is no Python identifier, which setuptools' flat-layout
    discovery passes over (:func:`~metaserver.export.packaging.setuptools_discovers`)."""
    taken = {entry.name.lower() for entry in tree.iterdir()}
    for name in FOLDERS:
        if name.isidentifier() and not importable:
            continue
        if name.lower() not in taken and f"{name.lower()}.py" not in taken:
            return name
    stem = "mcp_server" if importable else "mcp-server-"
    index = 2
    while f"{stem}{index}" in taken:
        index += 1
    return f"{stem}{index}"


def server_requirements(origin: Origin) -> list[str]:
    """What the server needs beyond the package: FastMCP as validated (its pin in the
    environment's lock), the package's own extras the guides needed, and the distributions
    the import probe found undeclared (pinned as they were installed)."""
    pins = {}
    for line in origin.record.environment_lock.splitlines():
        match = _PIN.match(line.strip())
        if match:
            pins[_normal(match.group(1))] = line.strip()
    requirements = [pins.get("fastmcp", "fastmcp")]
    environment = origin.report.get("environment") or {}
    extras = sorted(
        {str(extra.get("name")) for extra in environment.get("extras") or [] if extra.get("name")}
    )
    if extras:
        requirements.append(f"{origin.distribution}[{','.join(extras)}]")
    for added in environment.get("added") or []:
        requirement = pins.get(_normal(str(added)), str(added))
        if requirement not in requirements:
            requirements.append(requirement)
    return requirements


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _server_files(server_dir: Path) -> list[Path]:
    found = []
    for path in sorted(server_dir.rglob("*")):
        relative = path.relative_to(server_dir)
        if path.is_symlink() or not path.is_file():
            continue
        if relative.parts[0] == "work" or str(relative) in _LEFT_OUT:
            continue
        if _SKIPPED_PARTS & set(relative.parts) or path.suffix == ".pyc":
            continue
        found.append(path)
    return found


def _data_files(origin: Origin) -> list[str]:
    """The work/ files the examples read (never what runs wrote there)."""
    work = origin.server_dir / "work"
    return sorted(
        name
        for name in example_files(origin.specs, origin.tree)
        if (work / name).is_file() and not (work / name).is_symlink()
    )


def _work_ignore(data: list[str]) -> str:
    """work/'s .gitignore: what tool runs write there stays out of the repository."""
    lines = ["# Files the server's tools write at run time; only the examples' data is kept.", "*"]
    lines.append("!.gitignore")
    parents: set[str] = set()
    for name in data:
        parts = name.split("/")
        for depth in range(1, len(parts)):
            parents.add("/".join(parts[:depth]))
    lines.extend(f"!/{parent}/" for parent in sorted(parents))
    lines.extend(f"!/{name}" for name in data)
    return "\n".join(lines) + "\n"


def _calls(server_dir: Path) -> list[dict[str, Any]]:
    path = server_dir / "tests" / "validation_calls.json"
    if not path.is_file():
        return []
    loaded = json.loads(path.read_text(encoding="utf-8"))
    return [call for call in loaded if isinstance(call, dict)] if isinstance(loaded, list) else []


def _public_source(source: str) -> str:
    """The source as a maintainer reads it: a local path says only its last part, a URL no
    credentials."""
    if "://" in source and not source.startswith("file://"):
        return redact(source)
    return Path(source.removeprefix("file://")).name or source


def without_credentials(data: bytes, source: str) -> bytes:
    """``data`` with the credentials of a source URL (``server.py`` and ``tools.json`` name
    the source) hidden: a published change must not carry a token."""
    hidden = redact(source)
    return data.replace(source.encode(), hidden.encode()) if hidden != source else data
