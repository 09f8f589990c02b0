"""Usage mining: how the repository's own README, docs, tests and examples call its API.

Static only: files are read and parsed with ``ast`` and ``doctest``, never imported or run,
so this runs in metaserver's process. Each public name gets a count of the calls that
mention it, and its calls with literal arguments (plus the literal they are asserted to
equal, when a test says) become example arguments with expected values. The names that the
README and the docs' quickstart pages call, in the order a reader meets them, are the
library's documented entry points: design ranks them first, and the report's coverage says
how many became tools.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, Field

from metaserver.agents.repo_docs.closeness import asserted_close
from metaserver.agents.repo_docs.code_blocks import code_in_text
from metaserver.agents.repo_docs.data_flow import DataFlow
from metaserver.agents.repo_docs.file_arguments import (
    FileParameters,
    reads_file,
    writes_file,
)
from metaserver.agents.repo_docs.guide_paths import built_names, imported_names, resolved
from metaserver.agents.repo_docs.included_code import page_text
from metaserver.agents.repo_docs.moments import datetime_names, moment_json
from metaserver.agents.repo_docs.patched import patched_nodes
from metaserver.agents.repo_docs.result_reads import peel
from metaserver.agents.repo_docs.shipped_data import shipped_data_files
from metaserver.agents.repo_docs.test_calls import (
    Bound,
    Place,
    asserted_pairs,
    bound_results,
    inline_literals,
    is_test_file,
    record_fields,
    result_place,
)
from metaserver.agents.repo_docs.test_helpers import Helpers, assertion_helpers, inline_helpers
from metaserver.agents.repo_docs.test_params import bind_parameters
from metaserver.agents.repo_docs.toctrees import page_title, toctree_pages
from metaserver.contracts import JSON, CodeReport, ResultPlace, ResultRead, Tolerance
from metaserver.probe.doctest_lines import WRAPPERS
from metaserver.probe.fold import literal_value
from metaserver.probe.text import TEXT_READERS

MAX_FILES = 600
MAX_FILE_BYTES = 400_000
MAX_CALLS_PER_NAME = 8
MAX_PARTIAL_CALLS = 2
_TEXT_SUFFIXES = {".md", ".rst", ".txt", ".markdown"}
_CODE_DIRS = {"test", "tests", "testing", "example", "examples", "docs", "doc", "demo", "demos"}
_EXAMPLE_DIRS = {"example", "examples", "demo", "demos"}
_SKIP_DIRS = {".git", ".tox", ".venv", "venv", "node_modules", "build", "dist", "__pycache__"}
# Docs pages that show how to start, as opposed to an API reference listing every name.
_GUIDE_PAGE = re.compile(
    r"quick|start|tutorial|intro|overview|usage|guide|example|index|readme|basics|howto",
    re.I,
)
_DOC_DIRS = {"doc", "docs", "documentation"}
# A docs folder that holds guide pages whatever their names: a tutorial's chapters
# (``doc/src/tutorials/intro-tutorial/calculus.rst``). Not "example" or "index": a
# gallery or an API index folder holds pages of every kind.
_GUIDE_FOLDER = re.compile(r"quick|start|tutorial|intro|overview|usage|guide|basics|howto", re.I)
# A contributors' guide shows how to build and test the project, not how to use it.
_NOT_USE = re.compile(r"contribut|develop", re.I)
MAX_DOCUMENTED = 60
MAX_GUIDE_FILES = 200


class BuiltArgument(BaseModel):
    """An argument the code built by a call of the package's own callable with literal
    arguments (``df = read_dataset("anova")``, then ``anova(data=df, ...)``): replayed
    through that callable's tool before the call (design: a session step ``into`` it)."""

    name: str = Field(description="The callable's name, as the code called it.")
    args: list[JSON] = Field(default_factory=list)
    kwargs: dict[str, JSON] = Field(default_factory=dict)
    line: str = Field(description="The line that built it, as the code writes it.")


class UsageCall(BaseModel):
    """One call with literal arguments found in the repository."""

    args: list[JSON] = Field(default_factory=list)
    kwargs: dict[str, JSON] = Field(default_factory=dict)
    expected: JSON = None
    has_expected: bool = False
    wrapper: str | None = None
    part: ResultPlace | None = Field(
        default=None,
        description="``expected`` is the value of the result's item at this place (the code "
        "unpacked the result and asserted that item; a list: the place at each level of a "
        "nested unpacking).",
    )
    attribute: str | None = Field(
        default=None,
        description="``expected`` is the value of this attribute of the result (the code "
        "asserted ``r.attribute`` of the call's result ``r``).",
    )
    reads: list[ResultRead] = Field(
        default_factory=list,
        description="``expected`` is the value of what the code read of the result (its "
        "``attribute`` first): ``round(stats.at[0, 'chi2'], 3) == 22.717`` "
        "(result_reads.py).",
    )
    tolerance: Tolerance | None = Field(
        default=None,
        description="The closeness the test asserted ``expected`` with, where looser than "
        "a shown number's (closeness.py): ``np.isclose(p, 1.877e-06)``.",
    )
    built: dict[str, BuiltArgument] = Field(
        default_factory=dict,
        description="The arguments (by position as digits, or keyword) the code built by a "
        "call of the package's own callables; ``args``/``kwargs`` hold None in their place.",
    )
    source: str = ""
    sets: list[str] = Field(
        default_factory=list,
        description="The arguments written as set literals (positions as digits, or "
        "keywords): their JSON lists are decoded as sets (codec ``set``).",
    )
    held: str | None = Field(
        default=None,
        description="The name the call's receiver is written with, where the code never "
        "bound it (``Geodesic.WGS84.Inverse(...)``: ``WGS84``; ``elements.symbol('Fe')``: "
        "``elements``): an instance its class or a module may hold, which the method's tool "
        'takes as ``{"attribute": NAME}`` where its receiver\'s schema offers that name.',
    )
    method: bool = Field(
        default=False,
        description="Called as a method of a value the code bound (``sys.frequency_response(w)``"
        ", ``Model().fit(x)``), not through a module: no call of a function of that name.",
    )
    unknown: list[str] = Field(
        default_factory=list,
        description="The arguments that are no literals (positions as digits, or keywords; "
        "their ``args`` entries are None): such a call gives values for the others, never "
        "an example of its own.",
    )


class Usage(BaseModel):
    """Mentions per public name, literal calls per name, and the documented entry points."""

    counts: dict[str, int] = Field(default_factory=dict)
    tested: dict[str, int] = Field(
        default_factory=dict,
        description="Calls per name in the repository's own test suite (test_calls.py): "
        "where the README shows no code, the names its tests call most are its main API.",
    )
    exampled: list[str] = Field(
        default_factory=list,
        description="Names the examples folder's Python calls, first met first (main_api.py).",
    )
    calls: dict[str, list[UsageCall]] = Field(default_factory=dict)
    documented: list[str] = Field(
        default_factory=list,
        description="Names the README and the docs' guide pages call, first met first.",
    )
    reads_files: list[str] = Field(
        default_factory=list,
        description="Documented names every guide call of which passes a file path or URL.",
    )
    takes_data: list[str] = Field(
        default_factory=list,
        description="Documented names, not among reads_files, every guide call of which "
        "takes data the guide read from a file, an address or the network before "
        "(``data_flow.py``): the callable may well run in a tool, but not as documented.",
    )
    paths: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Documented names every guide call of which resolves through the guide's "
        "own imports: name -> the dotted paths called (``from pkg.io import write`` then "
        "``write(...)``: ``pkg.io.write``), first met first.",
    )
    data_files: list[str] = Field(
        default_factory=list,
        description="The data files the repository ships for tests and examples, relative "
        "to its root (shipped_data.py): what file-reading tools are proven on.",
    )


class _NotLiteral(Exception):
    pass


def mine_usage(
    root: Path,
    names: Iterable[str],
    methods: Iterable[str] = (),
    packages: Iterable[str] = (),
    files: dict[str, FileParameters] | None = None,
    reaching: Iterable[str] = (),
) -> Usage:
    """Count and collect calls of ``names`` in the text and code files under ``root``;
    ``methods`` are the names that are only methods (a bare ``range(3)`` is not theirs);
    ``packages``, the package's top-level modules (a guide's ``np.array(...)`` is numpy's,
    never the package's ``array``); ``files``, where each name takes a file
    (``file_parameters``); ``reaching``, the names that reach the network
    (``data_flow.reaching_names``): what they return is data no sandboxed tool has."""
    wanted = {n for n in names if n.isidentifier()}
    counts: Counter[str] = Counter()
    tested: Counter[str] = Counter()
    exampled: list[str] = []
    calls: dict[str, list[UsageCall]] = {}
    helpers = assertion_helpers(root)  # ``assert_datetime(d, 2015, 2, 6)``: its assertions
    for path in _files(root):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        relative = str(path.relative_to(root))
        sources = [text] if path.suffix == ".py" else code_in_text(text)
        counted = Counter[str]()
        for source in sources:
            for name, call in _calls_in_code(source, wanted, counted, helpers):
                _keep(calls.setdefault(name, []), call.model_copy(update={"source": relative}))
        counts.update(counted)
        folders = {part.lower() for part in path.relative_to(root).parts[:-1]}
        if is_test_file(path.relative_to(root)):
            tested.update(counted)
        elif path.suffix == ".py" and folders & _EXAMPLE_DIRS:
            exampled += [name for name in counted if name not in exampled]
    for found in calls.values():
        found.sort(key=lambda c: not c.has_expected)  # provable calls first (stable)
    documented = _documented(root, wanted, set(methods), set(packages), files or {}, set(reaching))
    return Usage(
        counts=dict(counts),
        tested=dict(tested),
        exampled=exampled,
        calls=calls,
        documented=documented.names,
        reads_files=documented.reads_files,
        takes_data=documented.takes_data,
        paths=documented.paths,
        data_files=shipped_data_files(root),
    )


def documented_names(root: Path, wanted: set[str], methods: set[str] | None = None) -> list[str]:
    """The names in ``wanted`` that README files, then the docs' guide pages, call in their
    code blocks and ``>>>`` lines, in the order a reader meets them (at most MAX_DOCUMENTED).
    A name in ``methods`` (only a method of the package) counts only when called on an
    object: ``range(3)`` is the builtin, not some class's ``range``.
    """
    return _documented(root, wanted, methods or set()).names


def _documented(
    root: Path,
    wanted: set[str],
    methods: set[str],
    packages: set[str] | None = None,
    files: dict[str, FileParameters] | None = None,
    reaching: set[str] | None = None,
) -> _Documented:
    """``documented_names``; those of them whose every call there reads a file or a URL
    (a literal path or address among its arguments): out of reach of a sandboxed tool;
    those whose every call takes data the text read from a file, an address or the network
    before, or reads one itself (``data_flow.py``): not a use a sandboxed tool can show;
    and the dotted paths of those whose every call resolves through the text's own imports.

    A text's imports hold for all its code (a README's ``>>>`` lines are pieces of their
    own): ``from pkg.io import write`` makes a later ``write(...)`` the call of
    ``pkg.io.write``, never of another ``write`` deep in the package. A call resolved to a
    module outside ``packages`` (when known) is another library's and documents nothing.
    """
    found: dict[str, bool] = {}  # name -> every call so far reads a file
    given: dict[str, bool] = {}  # name -> every call so far reads a file or takes read data
    paths: dict[str, list[str]] = {}
    loose: set[str] = set()  # names called at least once without a resolved path
    for path in guide_files(root):
        try:
            text = page_text(path, root)  # a plot directive's script is the page's code
        except OSError:
            continue
        sources = code_in_text(text)
        bindings = imported_names(sources)
        built = built_names(sources, bindings, packages or set())
        flow = DataFlow(reaching or set(), files)
        for source in sources:
            for name, bare, reads, data, dotted in _names_called(
                source, bindings, files, built, flow
            ):
                ours = bool(dotted and packages and dotted.partition(".")[0] in packages)
                if dotted is not None and packages and not ours:
                    continue  # another library's name (``np.array``)
                if name not in wanted or (bare and name in methods and not ours):
                    continue
                if name in found:
                    found[name] = found[name] and reads
                    given[name] = given[name] and (reads or data)
                elif len(found) < MAX_DOCUMENTED:
                    found[name], given[name] = reads, reads or data
                else:
                    continue
                if dotted is None:
                    loose.add(name)
                elif dotted not in paths.setdefault(name, []):
                    paths[name].append(dotted)
    resolved = {name: found_paths for name, found_paths in paths.items() if name not in loose}
    return _Documented(
        list(found),
        [name for name, reads in found.items() if reads],
        [name for name, data in given.items() if data and not found[name]],
        resolved,
    )


class _Documented(NamedTuple):
    names: list[str]
    reads_files: list[str]
    takes_data: list[str]
    paths: dict[str, list[str]]


def guide_files(root: Path) -> list[Path]:
    """README files (the top one first), then guide-like text pages under the docs folder."""
    readmes: list[Path] = []
    guides: list[Path] = []
    # A walk of its own: the usage walk stops after MAX_FILES, which a large test suite
    # can fill before the docs folder is reached.
    for path in sorted(root.rglob("*")):
        if len(readmes) + len(guides) >= MAX_GUIDE_FILES:
            break
        relative = path.relative_to(root)
        folders = {p.lower() for p in relative.parts[:-1]}
        if folders & _SKIP_DIRS or path.suffix == ".py" or not _small_file(path):
            continue
        is_text = path.suffix.lower() in _TEXT_SUFFIXES
        if path.name.lower().startswith("readme") and (is_text or not path.suffix):
            readmes.append(path)
        elif is_text and folders & _DOC_DIRS and _guide_page(path.stem, folders):
            guides.append(path)
    readmes.sort(key=lambda p: (len(p.relative_to(root).parts), str(p)))
    return readmes + _with_chapters(guides, root)


def _with_chapters(guides: list[Path], root: Path) -> list[Path]:
    """The guide pages, each section's index followed by the chapters its toctree lists
    when its title reads as a guide ("Usage examples", "Tutorial"): chapters are named for
    their subject, so neither their names nor their folder said so (toctrees.py)."""
    pages: list[Path] = []
    for page in guides:
        if page in pages:
            continue
        pages.append(page)
        try:
            text = page.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        title = page_title(text)
        if not _GUIDE_FOLDER.search(title) or _NOT_USE.search(title):
            continue
        for chapter in toctree_pages(page, text, root):
            if chapter not in pages and _small_file(chapter):
                pages.append(chapter)
    return pages[:MAX_GUIDE_FILES]


def _guide_page(stem: str, folders: set[str]) -> bool:
    """Whether a docs page is a guide: by its name, or by a folder of guides it is in."""
    if _GUIDE_PAGE.search(stem):
        return True
    return any(_GUIDE_FOLDER.search(f) for f in folders) and not any(
        _NOT_USE.search(f) for f in folders
    )


def _small_file(path: Path) -> bool:
    try:
        return path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_FILE_BYTES
    except OSError:
        return False


def _names_called(
    source: str,
    bindings: dict[str, str] | None = None,
    files: dict[str, FileParameters] | None = None,
    built: dict[str, str] | None = None,
    flow: DataFlow | None = None,
) -> list[tuple[str, bool, bool, bool, str | None]]:
    """(name, called bare, reads a file or URL, takes data read before, dotted path) for
    each call in ``source``, in source order; the path when the call resolves through
    ``bindings`` (the text's imports): an imported name (its own name, not its alias) or an
    attribute of an imported module; read data, as ``flow`` finds it. The calls of
    unparsable lines are lost."""
    bindings = bindings or {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        if source.startswith("assert ("):  # a doctest whose shown output is not Python
            shown = source[8:].split(") == (", 1)[0]
            return _names_called(shown, bindings, files, built, flow)
        return []
    derived = flow.read(tree) if flow is not None else set()
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    found = []
    for call in calls:
        name = _called_name(call)
        if name is None:
            continue
        dotted = resolved(call.func, bindings, built)
        if dotted is not None:
            name = dotted.rpartition(".")[2]
        writer = writes_file(name)  # its file is its output, made in the tool's directory
        reads = reads_file(call, (files or {}).get(name)) and not writer
        data = id(call) in derived and not writer
        found.append((name, isinstance(call.func, ast.Name), reads, data, dotted))
    return found


def _files(root: Path) -> Iterator[Path]:
    """README files, text under docs, Python under tests/examples/docs, test_*.py anywhere."""
    seen = 0
    for path in sorted(root.rglob("*")):
        if seen >= MAX_FILES:
            return
        parts = set(path.relative_to(root).parts[:-1])
        if parts & _SKIP_DIRS or not path.is_file() or path.is_symlink():
            continue
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
        except OSError:
            continue
        lowered = {p.lower() for p in parts}
        is_readme = path.name.lower().startswith("readme")
        in_code_dir = bool(lowered & _CODE_DIRS)
        if path.suffix == ".doctest":  # a test suite's doctest file: sessions, as in a README
            ok = True
        elif path.suffix == ".py":
            ok = in_code_dir or is_test_file(path.relative_to(root))
            ok = ok and path.name != "conf.py"
        else:
            ok = path.suffix.lower() in _TEXT_SUFFIXES and (is_readme or in_code_dir)
        if ok or (is_readme and not path.suffix):
            seen += 1
            yield path


def _keep(found: list[UsageCall], call: UsageCall) -> None:
    """Keep ``call`` among a name's calls when there is room: a few of each kind (a call
    with unknown arguments only lends values, beside the literal calls, never in their
    place). A call whose result is asserted takes the place of one that only shows the
    same arguments, or of the last that proves nothing when the name has no room left: a
    test suite calls ``Wavelet("db1")`` a hundred times before it asserts one."""
    alike = [c for c in found if bool(c.unknown) == bool(call.unknown)]
    same = [c for c in alike if (c.args, c.kwargs) == (call.args, call.kwargs)]
    if any(_proof(c) == _proof(call) for c in same) or (same and not call.has_expected):
        return  # nothing it shows that a call kept does not
    if len(alike) < (MAX_PARTIAL_CALLS if call.unknown else MAX_CALLS_PER_NAME):
        found.append(call)
        return
    if call.has_expected:  # a method's call never takes the place of a function's
        unproven = [
            c for c in same or alike if not c.has_expected and (c.method or not call.method)
        ]
        if unproven:
            found[found.index(unproven[-1])] = call


def _proof(call: UsageCall) -> tuple[object, ...]:
    reads = [r.model_dump_json() for r in call.reads]
    close = call.tolerance.model_dump_json() if call.tolerance is not None else None
    return (
        call.has_expected,
        repr(call.expected),
        call.wrapper,
        call.part,
        call.attribute,
        reads,
        close,
    )


def _calls_in_code(
    source: str, wanted: set[str], counts: Counter[str], helpers: Helpers | None = None
) -> Iterator[tuple[str, UsageCall]]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        # An assertion built from a doctest whose output is not Python: keep the call alone.
        if source.startswith("assert ("):
            yield from _calls_in_code(source[8:].split(") == (", 1)[0], wanted, counts)
        return
    echoes: set[int] = set()  # a parametrised test's calls in its later rows' copies
    if isinstance(tree, ast.Module):
        tree = inline_helpers(tree, helpers or {})
        try:
            echoes = bind_parameters(tree, wanted)  # ``@parametrize("x", [1])``: ``x = 1``
        except RecursionError:  # a tree too deep to copy: its tests as written
            echoes = set()
        tree = inline_literals(tree)  # ``x = [1, 2]`` then ``f(x)``: the call of f([1, 2])
    asserted: dict[int, _Asserted] = {}
    held = bound_results(tree)  # ``df = read_dataset("anova")``: what ``df`` holds where read
    patched = patched_nodes(tree)  # ``@freeze_time(...)``: values of a patched world
    for found in _assertions(tree, held):  # the call's own value first, then what it read
        if id(found.call) in patched:
            continue
        kept = asserted.get(id(found.call))
        if kept is None or (_read_something(kept) and not _read_something(found)):
            asserted[id(found.call)] = found
    failing = _expected_to_fail(tree)
    values = _bound_values(tree)
    moments = datetime_names(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in failing:
            continue
        name = _called_name(node)
        if name not in wanted:
            continue
        method = _on_value(node, values)
        if id(node) not in echoes:
            counts[name] += 1
        if any(k.arg is None for k in node.keywords) or any(
            isinstance(a, ast.Starred) for a in node.args
        ):
            continue
        unknown: list[str] = []
        given = functools.partial(_argument, held=held, moments=moments, unknown=unknown)
        built = {
            place: argument
            for place, value in _places(node)
            if (argument := _built_argument(value, held, wanted, values)) is not None
        }
        args = [None if str(i) in built else given(a, str(i)) for i, a in enumerate(node.args)]
        kwargs = {
            str(k.arg): None if str(k.arg) in built else given(k.value, str(k.arg))
            for k in node.keywords
        }
        if unknown:
            if len(unknown) < len(args) + len(kwargs):  # some literal to learn from
                yield name, UsageCall(args=args, kwargs=kwargs, unknown=unknown, method=method)
            continue
        call = UsageCall(
            args=args,
            kwargs=kwargs,
            sets=_set_places(node),
            method=method,
            built=built,
            held=None if method else _held_receiver(node),
        )
        if id(node) in asserted:
            found = asserted[id(node)]
            call.expected, call.has_expected, call.wrapper = found.value, True, found.wrapper
            call.part, call.attribute = result_place(found.part), found.attribute
            call.reads, call.tolerance = list(found.reads), found.tolerance
        yield name, call


def _held_receiver(node: ast.Call) -> str | None:
    """The last name of a call's receiver written as a dotted name (``Geodesic.WGS84`` of
    ``Geodesic.WGS84.Inverse(...)``, ``elements`` of ``elements.symbol('Fe')``)."""
    if not isinstance(node.func, ast.Attribute):
        return None
    receiver = node.func.value
    if isinstance(receiver, ast.Name):
        return receiver.id
    if not isinstance(receiver, ast.Attribute):
        return None
    base = receiver.value
    while isinstance(base, ast.Attribute):
        base = base.value
    return receiver.attr if isinstance(base, ast.Name) else None


def _places(node: ast.Call) -> Iterator[tuple[str, ast.expr]]:
    """A call's arguments by place: positions as digits, then keywords."""
    yield from ((str(i), a) for i, a in enumerate(node.args))
    yield from ((str(k.arg), k.value) for k in node.keywords if k.arg is not None)


def _built_argument(
    node: ast.expr, held: dict[int, Bound], wanted: set[str], values: set[str]
) -> BuiltArgument | None:
    """The call that built an argument, where it is such a call written in its place
    (``azimuth(Observer(86, 77.2), d)``) or a name holding the whole result of one: a call
    of one of ``wanted`` (the package's callables) with literal arguments only."""
    if isinstance(node, ast.Call):
        call = node
    else:
        bound = held.get(id(node)) if isinstance(node, ast.Name) else None
        if bound is None or bound.part is not None or bound.reads:
            return None
        call = bound.call
    name = _called_name(call)
    if name not in wanted or _on_value(call, values):
        return None  # ``model.load(...)``: a method of a value, no callable of the package
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    try:
        args = [_literal(a) for a in call.args]
        kwargs = {str(k.arg): _literal(k.value) for k in call.keywords}
    except _NotLiteral:
        return None
    return BuiltArgument(name=name, args=args, kwargs=kwargs, line=ast.unparse(call))


def _bound_values(tree: ast.AST) -> set[str]:
    """The names the code binds to values (assignments, loop targets, parameters), not
    those only its imports bind (``import control as ct``: ``ct.tf`` is the function)."""
    imported: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            imported.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound - imported


def _on_value(node: ast.Call, values: set[str]) -> bool:
    """Whether a call is a method of a value: its receiver is an expression that makes one
    (``Model().fit(x)``), or a name (or its attribute) the code bound to one."""
    if not isinstance(node.func, ast.Attribute):
        return False
    base = node.func.value
    while isinstance(base, ast.Attribute):
        base = base.value
    if isinstance(base, ast.Name):
        return base.id in values
    return not isinstance(base, _LITERAL_RECEIVERS)


_RAISES = {"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "warns"}


def _expected_to_fail(tree: ast.AST) -> set[int]:
    """Calls the code expects to raise: in ``with pytest.raises(...)``, an ``assertRaises``
    block, or a ``try`` body. Such a call shows how a function fails, not how to use it.
    """
    failing: set[int] = set()
    for node in ast.walk(tree):
        body: list[ast.stmt] = []
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            isinstance(item.context_expr, ast.Call) and _called_name(item.context_expr) in _RAISES
            for item in node.items
        ):
            body = node.body
        elif isinstance(node, ast.Try):
            body = node.body
        elif isinstance(node, ast.Call) and _called_name(node) in _RAISES:
            failing.update(id(n) for arg in node.args for n in ast.walk(arg))
        for statement in body:
            failing.update(id(n) for n in ast.walk(statement) if isinstance(n, ast.Call))
    return failing


# Receivers whose methods are a builtin type's: ``"{:.2f}".format(x)`` is str.format, never
# the library's ``format``, whatever the argument.
_LITERAL_RECEIVERS = (
    ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set,
    ast.ListComp, ast.SetComp, ast.DictComp,
)  # fmt: skip


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and not isinstance(func.value, _LITERAL_RECEIVERS):
        return func.attr
    return None


class _Asserted(NamedTuple):
    """A call whose result (its item at ``part``, or its ``attribute``) a test asserted."""

    call: ast.Call
    value: JSON
    wrapper: str | None
    part: Place | None = None
    attribute: str | None = None
    reads: tuple[ResultRead, ...] = ()
    tolerance: Tolerance | None = None


def _read_something(found: _Asserted) -> bool:
    """Whether an assertion compares a part of the call's result, not the result."""
    return found.attribute is not None or bool(found.reads)


def _assertions(tree: ast.AST, bound: dict[int, Bound]) -> Iterator[_Asserted]:
    """The calls whose results are asserted: ``assert f(...) == literal`` (either side,
    ``pytest.approx`` too), ``self.assertEqual(f(...), literal)``, ``assert_allclose(f(...),
    literal)`` and their kin (``test_calls.asserted_pairs``), and those that compare a
    name holding the call's result (``test_calls.bound_results``). A result the code
    unpacked (``cA, cD = dwt(x)``) whose every item is asserted is compared whole; else its
    first asserted item, at its place (``part``). A public attribute of the result
    (``r = fit(y)`` then ``assert r.nobs == 100``, or ``assert fit(y).nobs == 100``) is the
    call's ``attribute``: the first one asserted. ``bound``: ``bound_results(tree)``."""
    items: dict[int, tuple[Bound, dict[Place, JSON], list[Tolerance]]] = {}
    read: set[int] = set()  # calls with an attribute asserted already
    moments = datetime_names(tree)
    compared: list[tuple[ast.expr, ast.expr, Tolerance | None]]
    compared = [(a, b, None) for a, b in asserted_pairs(tree)]
    compared += list(asserted_close(tree))
    for left, right, tolerance in compared:
        for call_side, value_side in ((left, right), (right, left)):
            call_side, reads = peel(call_side)  # ``round(stats.at[0, "chi2"], 3)``
            attribute = None
            if isinstance(call_side, ast.Attribute) and not call_side.attr.startswith("_"):
                attribute, call_side = call_side.attr, call_side.value
            held = bound.get(id(call_side)) if isinstance(call_side, ast.Name) else None
            if isinstance(call_side, ast.Tuple) and not reads and attribute is None:
                held = _whole(call_side, bound)  # ``p, r = f(b)`` then ``(p, r) == (1, 1)``
            if attribute is not None and held is not None and held.part is not None:
                continue  # an attribute of one unpacked item: not a value the tool returns
            if held is not None and held.reads:
                if attribute is not None:
                    continue  # an attribute of what the line read: not the tool's field
                reads = [*held.reads, *reads]  # ``aov = anova(...).round(3)``, then ``aov.at``
            call, wrapper = (held.call, None) if held is not None else _unwrap(call_side)
            if call is None or (attribute is not None and wrapper is not None):
                continue
            if record_fields(call) is not None:
                continue  # ``st = Stats(size=5, ...)``: a value the test wrote, not one it tests
            if (reads or tolerance is not None) and wrapper is not None:
                continue  # ``len(list(f(x)))``: the test's computation, not a read
            try:
                value = literal_value(value_side)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                # ``== datetime(1924, 8, 29)``: the ISO text the answer carries (moments.py)
                value = moment_json(value_side, moments)
                if value is None:
                    value = record_fields(value_side)  # ``== SpaceGroupType(number=156)``
                    if value is None or reads or attribute is not None or wrapper is not None:
                        continue
            if wrapper == "str" and not isinstance(value, str):
                continue  # ``str(f(2))`` shown as no string: not a doctest's output
            if isinstance(value, (set, frozenset)):
                wrapper = "set"
            try:
                shown = _json(sorted(value) if wrapper == "set" else value)
            except (_NotLiteral, TypeError):
                continue
            if attribute is not None or reads:
                if id(call) not in read:
                    read.add(id(call))
                    part = held.part if held is not None else None
                    found = (call, shown, wrapper, part, attribute, tuple(reads), tolerance)
                    yield _Asserted(*found)
            elif held is not None and held.part is not None:
                if wrapper is None:
                    _, values, tolerances = items.setdefault(id(held.call), (held, {}, []))
                    if held.part not in values:
                        values[held.part] = shown
                        tolerances += [tolerance] if tolerance is not None else []
            else:
                yield _Asserted(call, shown, wrapper, tolerance=tolerance)
            break
    for held, values, tolerances in items.values():
        widest = _widest(tolerances)
        if set(values) == set(range(held.size)):  # each name of one flat unpacking
            whole = [values[place] for place in range(held.size)]
            yield _Asserted(held.call, whole, None, tolerance=widest)
        else:
            place = min(values, key=lambda p: (p,) if isinstance(p, int) else p)
            yield _Asserted(held.call, values[place], None, part=place, tolerance=widest)


def _whole(shown: ast.Tuple, bound: dict[int, Bound]) -> Bound | None:
    """The result whole, where a tuple shows every name a line unpacked it into, in order."""
    held = [bound.get(id(e)) if isinstance(e, ast.Name) else None for e in shown.elts]
    first = held[0] if held else None
    if first is None or first.size != len(held):
        return None
    if any(
        h is None or h.call is not first.call or h.part != place for place, h in enumerate(held)
    ):
        return None
    return Bound(first.call, reads=first.reads)


def _widest(tolerances: list[Tolerance]) -> Tolerance | None:
    """One tolerance for a result whose items were asserted each with its own."""
    if not tolerances:
        return None
    return Tolerance(rel=max(t.rel for t in tolerances), abs=max(t.abs for t in tolerances))


def _unwrap(node: ast.expr) -> tuple[ast.Call | None, str | None]:
    """The call inside ``list(f(...))`` (and the wrapper), or the call itself; inside
    ``str(f(...))`` or ``print(f(...))``, the call whose text is compared (``"str"``)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and TEXT_READERS.get(node.func.id) == "str"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Call)
    ):
        return node.args[0], "str"
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in WRAPPERS
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Call)
    ):
        wrapper = "set" if node.func.id == "frozenset" else node.func.id
        return node.args[0], wrapper
    return (node, None) if isinstance(node, ast.Call) else (None, None)


def _set_places(call: ast.Call) -> list[str]:
    """The positions (as digits) and keywords of a call's set literals."""
    places = [str(i) for i, a in enumerate(call.args) if isinstance(a, ast.Set)]
    return places + [str(k.arg) for k in call.keywords if isinstance(k.value, ast.Set)]


def _argument(
    node: ast.expr,
    place: str,
    held: dict[int, Bound],
    moments: dict[str, str],
    unknown: list[str],
) -> JSON:
    """An argument's JSON: its literal, or the ISO text (a duration: its seconds) of a
    date, time or duration written as its call (``datetime.datetime(2001, 6, 21, 13, 11)``)
    or held by a name bound to one, which a parameter of that type decodes; else None with
    ``place`` noted in ``unknown``."""
    try:
        return _literal(node)
    except _NotLiteral:
        pass
    bound = held.get(id(node)) if isinstance(node, ast.Name) else None
    if bound is not None and bound.part is None and not bound.reads:
        node = bound.call  # ``d = datetime.datetime(2001, 6, 21)``, then ``azimuth(o, d)``
    moment = moment_json(node, moments) if isinstance(node, ast.Call) else None
    if moment is None:
        unknown.append(place)
    return moment


def _literal(node: ast.expr) -> JSON:
    """The literal ``node`` is, its arithmetic over numbers folded (``area(2*3)``,
    ``rotate(math.pi/4)``: probe/fold.py, names known as written, nothing imported)."""
    try:
        value = literal_value(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _NotLiteral from None
    return _json(value)


def _json(value: object) -> JSON:
    """A literal as JSON (tuples as lists); anything without a JSON form is refused."""
    if isinstance(value, float) and not math.isfinite(value):
        raise _NotLiteral
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, (set, frozenset)):  # ``{"H2", "O2"}`` as written: its items, sorted
        try:
            return [_json(v) for v in sorted(value)]
        except TypeError:
            return [_json(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _json(v) for k, v in value.items()}
    raise _NotLiteral


def method_names(report: CodeReport) -> set[str]:
    """The names that are only methods of the package's classes, never a function's or a
    class's own name."""
    methods = {c.name.rpartition(".")[2] for c in report.candidates if c.kind == "method"}
    others = {c.name.rpartition(".")[2] for c in report.candidates if c.kind != "method"}
    return methods - others


def usage_names(report: CodeReport) -> set[str]:
    """The names whose calls to look for: functions, classes and method names."""
    return {c.name.rpartition(".")[2] for c in report.candidates} | {
        c.name for c in report.candidates if c.kind == "constructor"
    }
