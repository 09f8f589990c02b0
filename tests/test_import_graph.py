"""The import graph of metaserver (docs/ARCHITECTURE.md, section 2): no loop outside
type-only imports, and no underscore name imported across modules.

metaserver/probe/ runs inside the target environment and is left out, as are its tests.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = ("metaserver/probe/", "tests/probe/")


def module_files() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((ROOT / "metaserver").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(LEFT_OUT):
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, module: str) -> Iterator[tuple[ast.ImportFrom | ast.Import, str, bool]]:
    """Each import with its absolute module name and whether it runs when ``module`` loads
    (not under ``if TYPE_CHECKING``, not inside a function)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def walk(node: ast.AST, eager: bool) -> Iterator[tuple[ast.ImportFrom | ast.Import, str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                yield from walk(child, False)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from walk(child, False)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    yield child, alias.name, eager
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                yield child, base, eager
            else:
                yield from walk(child, eager)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), True)


def edges(modules: dict[str, Path]) -> dict[str, set[str]]:
    """What loading each module loads first: the modules it names, and the packages above
    them (their ``__init__``, the stages' doors) that it is not itself inside."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node, base, eager in imports(path, name):
            if not eager:
                continue
            targets = [base]
            if isinstance(node, ast.ImportFrom):
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                # ``from pkg import submodule`` needs the submodule, not the package's names.
                targets = subs + ([base] if len(subs) < len(node.names) else [])
            for target in targets:
                parts = target.split(".")
                for end in range(1, len(parts) + 1):
                    above = ".".join(parts[:end])
                    if above in modules and above != name and not name.startswith(above + "."):
                        graph[name].add(above)
    return graph


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_import_graph_has_no_loop() -> None:
    assert loops(edges(module_files())) == []


def test_a_loop_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert loops(graph) == [["a", "b", "c"]]


def test_no_underscore_name_is_imported_across_modules() -> None:
    private: list[str] = []
    for folder in ("metaserver", "tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(LEFT_OUT):
                continue
            for node, base, _ in imports(path, relative.removesuffix(".py").replace("/", ".")):
                if not isinstance(node, ast.ImportFrom):
                    continue
                if node.level or base.startswith("metaserver"):
                    # one leading underscore: private (``__version__`` is no private name)
                    names = [a.name for a in node.names if a.name[:1] == "_" != a.name[1:2]]
                    private += [f"{relative}:{node.lineno} {name}" for name in names]
    assert private == []
