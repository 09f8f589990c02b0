"""How the probe's modules import each other (metaserver/probe/): one relative import per
name at module level, never an underscore name of another module, and no loop; a module
imports the standard library and nothing of metaserver (it runs in the target's
environment)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PROBE = Path(__file__).resolve().parents[2] / "metaserver" / "probe"


def imports() -> dict[str, list[ast.ImportFrom | ast.Import]]:
    found: dict[str, list[ast.ImportFrom | ast.Import]] = {}
    for path in sorted(PROBE.glob("*.py")):
        tree = ast.parse(path.read_text())
        found[path.stem] = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    return found


def test_every_import_is_relative_or_the_standard_librarys() -> None:
    for module, nodes in imports().items():
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1 and node.module, (module, node.module)
                assert all(not a.name.startswith("_") for a in node.names), (module, node.module)
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for name in names:
                assert name and name.partition(".")[0] in sys.stdlib_module_names, (module, name)


def test_imports_sit_at_module_level_outside_any_try() -> None:
    for path in sorted(PROBE.glob("*.py")):
        tree = ast.parse(path.read_text())
        relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        assert all(n in tree.body for n in relative), path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Try):
                caught = [ast.unparse(h.type) for h in node.handlers if h.type is not None]
                assert "ImportError" not in caught, path.name


def test_no_import_loop() -> None:
    graph = {
        module: {n.module for n in nodes if isinstance(n, ast.ImportFrom) and n.level}
        for module, nodes in imports().items()
    }
    assert set().union(*graph.values()) <= set(graph)
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())
