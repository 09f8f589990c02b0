"""symbols: arithmetic over plain SymPy symbols passes as the ``sympy`` codec's text
(value_examples), typing an untyped parameter (typed_by_examples); a symbol with assumptions
stays a built object. A stand-in ``sympy`` package (the real one is no test dependency)."""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from science import run_json

from metaserver.probe.built_arguments import value_examples
from metaserver.probe.schemas import typed_by_examples
from metaserver.probe.symbols import plain_symbols, symbol_text

SYMPY = '''
class Expr:
    pass


class Symbol(Expr):
    def __init__(self, name, **assumptions):
        self.name = name
        self.assumptions0 = {"commutative": True, **assumptions}


def symbols(names, **assumptions):
    found = tuple(Symbol(n, **assumptions) for n in names.replace(",", " ").split())
    return found[0] if len(found) == 1 else found


def integrate(f, x):
    """Integrate.

    >>> x = Symbol('x')
    >>> integrate(x**2 + 1/2, x)
    x**3/3 + x/2
    >>> y = Symbol('y', positive=True)
    >>> integrate(y**2, y)
    y**3/3
    >>> integrate(y, y)
    y**2/2
    >>> a, b = symbols('a b')
    >>> f = a*(-3)**b
    >>> integrate(f, b)
    >>> integrate(f, x=a)
    >>> integrate(x + unknown, x)
    """


def limit(e: Expr, z: Expr, z0=0):
    """Limit.

    >>> x = Symbol('x')
    >>> limit(x, x)
    >>> from sympy.abc import s
    >>> limit(s > 2*3, s)
    """


def shout(text: str, times=1):
    """Shout.

    >>> x = Symbol('x')
    >>> shout(x + 1, 2)
    """
'''


@pytest.fixture
def sympy(tmp_path: Path) -> Iterator[ModuleType]:
    """A stand-in ``sympy`` package with ``sympy.abc``."""
    package = tmp_path / "sympy"
    package.mkdir()
    (package / "__init__.py").write_text(SYMPY)
    (package / "abc.py").write_text("from sympy import Symbol\ns = Symbol('s')\n")
    saved = {k: v for k, v in sys.modules.items() if k == "sympy" or k.startswith("sympy.")}
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(tmp_path))
    try:
        import sympy as module
        import sympy.abc

        yield module
    finally:
        sys.path.remove(str(tmp_path))
        for name in [k for k in sys.modules if k == "sympy" or k.startswith("sympy.")]:
            del sys.modules[name]
        sys.modules.update(saved)


def examples(module: ModuleType, name: str, doc: str | None = None) -> list[dict[str, Any]]:
    func = getattr(module, name)
    signature = inspect.signature(func)
    text = doc if doc is not None else func.__doc__
    return value_examples(func, module, text, signature, set(signature.parameters), "sympy")


def test_arithmetic_over_plain_symbols_is_text_and_types_the_parameter(sympy: ModuleType) -> None:
    found = examples(sympy, "integrate")
    first = found[0]
    # The number arithmetic folded first (Python's 1/2 is 0.5); the bare symbol ``x`` a
    # parameter of no text codec takes stays the object its step builds.
    assert first["arguments"] == {"f": "x ** 2 + 0.5"}
    assert [s["into"] for s in first["session"]] == ["x"]
    assert first["_held"] == {"f": sympy.Symbol}
    # A symbol with assumptions is never text: y**2 is no argument; bare y stays an object.
    assert not any("y" in str(e["arguments"].get("f")) for e in found)
    assert any([s["into"] for s in e["session"]] == ["f", "x"] for e in found)
    # Symbols from ``symbols()``, and a name bound to their arithmetic, with a sign kept.
    texts = [e["arguments"] for e in found if e["arguments"].get("f") == "a * (-3) ** b"]
    assert texts == [{"f": "a * (-3) ** b", "x": "b"}, {"f": "a * (-3) ** b", "x": "a"}]
    assert not any("unknown" in str(e["arguments"]) for e in found)

    params = [
        {"name": n, "json_schema": {}, "codec": None} for n in ("f", "x")
    ]  # untyped: the symbol class's codec is the text's
    typed_by_examples(params, found, set(), None)
    assert [p["codec"] for p in params] == ["sympy", "sympy"]
    assert any(e["arguments"].get("f") == "x ** 2 + 0.5" for e in found)


def test_a_text_parameter_takes_a_bare_symbol_and_imported_symbols(sympy: ModuleType) -> None:
    found = examples(sympy, "limit")
    assert [e["arguments"] for e in found] == [
        {"e": "x", "z": "x"},  # annotated with the codec's class: the name as text
        {"e": "s > 6", "z": "s"},  # ``from sympy.abc import s`` in the module: a plain symbol
    ]
    assert all(e["session"] == [] for e in found)


def test_text_for_a_parameter_of_another_codec_is_no_example(sympy: ModuleType) -> None:
    found = examples(sympy, "shout")
    assert [e["arguments"] for e in found] == [{"text": "x + 1", "times": 2}]
    params = [
        {"name": "text", "json_schema": {"type": "string"}, "codec": None},
        {"name": "times", "json_schema": {}, "codec": None},
    ]
    typed_by_examples(params, found, {"text"}, None)
    assert found == [] and params[0]["codec"] is None


def test_plain_symbols_and_what_is_no_text(sympy: ModuleType) -> None:
    namespace = vars(sympy)

    def resolve(node: ast.expr) -> Any:
        return namespace.get(node.id) if isinstance(node, ast.Name) else None

    def bound(line: str) -> dict[str, str]:
        return plain_symbols(ast.parse(line).body[0], resolve)

    assert bound("x = Symbol('x')") == {"x": "x"}
    assert bound("u = Symbol('v')") == {"u": "v"}  # the symbol's own name
    assert bound("x, y = symbols('x, y')") == {"x": "x", "y": "y"}
    assert bound("t = symbols('t')") == {"t": "t"}
    assert bound("x = Symbol('x', real=True)") == {}  # assumptions: text would lose them
    assert bound("x, y = symbols('x y', positive=True)") == {}
    assert bound("x, y = symbols('x y z')") == {}
    assert bound("x = Symbol('lambda')") == {}  # no name the parser reads as a symbol
    assert bound("x = Other('x')") == {}

    def text(expression: str, symbols: dict[str, str]) -> str | None:
        node = ast.parse(expression, mode="eval").body
        return symbol_text(node, symbols, namespace, set(symbols))

    assert text("2**10 * x - y/3", {"x": "x", "y": "y"}) == "1024 * x - y / 3"
    assert text("x < 1", {"x": "x"}) == "x < 1"
    assert text("2**10", {}) is None  # no symbol: a number (fold)
    for refused in ("sin(x)", "x == 1", "0 < x < 1", "x & y", "x + 'a'", "x + True", "[x]"):
        assert text(refused, {"x": "x", "y": "y"}) is None


REAL = r"""
import ast, json, sys
import importlib.util
# The probe as the sandbox loads it (its __main__.py): a package under a private name.
entry_spec = importlib.util.spec_from_file_location("probe_entry", sys.argv[1] + "/__main__.py")
entry = importlib.util.module_from_spec(entry_spec)
entry_spec.loader.exec_module(entry)
entry.load(sys.argv[1])
import sympy
from metaserver_probe.symbols import plain_symbols, symbol_text

namespace = vars(sympy)

def resolve(node):
    return namespace.get(node.id) if isinstance(node, ast.Name) else None

def bound(line):
    return plain_symbols(ast.parse(line).body[0], resolve)

symbols = bound("x, y = symbols('x y')")
text = symbol_text(ast.parse("2*x**2 - y/3", mode="eval").body, symbols, namespace, set(symbols))
print(json.dumps({
    "plain": symbols,
    "assumed": bound("z = Symbol('z', real=True)"),
    "text": text,
    # the text means what the line did: the codec's parser gives back the same expression
    "same": str(sympy.sympify(text) - (2 * sympy.Symbol("x") ** 2 - sympy.Symbol("y") / 3)),
}))
"""


@pytest.mark.integration
def test_real_sympy_symbols_and_their_text(science_python: Path, tmp_path: Path) -> None:
    # The stand-in above mirrors what the probe asks of SymPy; this checks it on SymPy itself.
    probe = Path(__file__).resolve().parents[2] / "metaserver" / "probe"
    out = run_json(science_python, REAL, tmp_path, str(probe))
    assert out["plain"] == {"x": "x", "y": "y"}
    assert out["assumed"] == {}  # a real symbol with assumptions is no text
    assert out["text"] == "2 * x ** 2 - y / 3" and out["same"] == "0"
