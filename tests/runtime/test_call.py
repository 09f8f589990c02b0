"""invoke() and resolve(), plus the guarantee that the runtime needs only the stdlib."""

from __future__ import annotations

import json
import os.path
import selectors
import shutil
import subprocess
import sys
import textwrap
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

import metaserver.runtime
from metaserver.runtime import HandleTable, invoke, resolve
from metaserver.runtime.call import split_arguments


class Model:
    """A stateful object: fit, then query through its handle."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self.data: list[float] = []

    def fit(self, data: list[float]) -> Model:
        self.data = list(data)
        return self

    def predict(self, x: float) -> float:
        return self.scale * x + sum(self.data)


def only_positional(a: int, b: int = 10, /, c: int = 100) -> list[int]:
    return [a, b, c]


def varargs(*values: int, sep: str = "-") -> str:
    return sep.join(str(v) for v in values)


def test_keyword_and_positional_arguments() -> None:
    table = HandleTable()
    assert invoke(only_positional, ["a", "b"], {"a": 1, "b": 2, "c": 3}, table) == [1, 2, 3]
    assert invoke(only_positional, ["a", "b"], {"a": 1}, table) == [1, 10, 100]
    assert invoke(os.path.join, ["a", "b"], {"a": "x", "b": "y"}, table) == os.path.join("x", "y")


def test_gap_is_filled_with_default() -> None:
    assert invoke(only_positional, ["a", "b", "c"], {"a": 1, "c": 3}, HandleTable()) == [1, 10, 3]


def test_gap_without_default_sends_the_rest_by_keyword() -> None:
    def f(a: int, b: int, c: int = 0) -> list[int]:
        return [a, b, c]

    args, kwargs = split_arguments(f, ["a", "b", "c"], {"b": 2, "c": 3})
    assert args == [] and kwargs == {"b": 2, "c": 3}
    with pytest.raises(TypeError):
        invoke(f, ["a", "b", "c"], {"b": 2, "c": 3}, HandleTable())


def test_star_name_spreads_a_list() -> None:
    assert invoke(varargs, ["*values"], {"values": [1, 2, 3], "sep": "+"}, HandleTable()) == "1+2+3"


def test_a_spread_lists_codec_decodes_each_item() -> None:
    def kinds(*groups: object) -> list[str]:
        return [type(g).__name__ for g in groups]

    # ``*arrays``: each item is one argument of that codec's form, not the list as a whole
    given = {"groups": [[1, 2], [2]]}
    assert invoke(kinds, ["*groups"], given, HandleTable(), codecs={"groups": "set"}) == [
        "set",
        "set",
    ]


def test_objects_round_trip_as_handles_between_calls() -> None:
    table = HandleTable()
    model_desc = invoke(Model, [], {"scale": 2.0}, table)
    assert model_desc["type"].endswith("Model") and model_desc["handle"].startswith("h_")
    fitted = invoke(Model.fit, ["self"], {"self": model_desc, "data": [1.0, 2.0]}, table)
    # the wire form (what a client sends back) works as well as the descriptor itself
    wire = json.loads(json.dumps(fitted))
    assert invoke(Model.predict, ["self", "x"], {"self": wire, "x": 10}, table) == 23.0
    assert table.get(fitted["handle"]) is table.get(model_desc["handle"])


def test_handles_inside_containers_are_resolved() -> None:
    table = HandleTable()
    a, b = object(), object()
    args = {"items": [table.put(a), {"k": table.put(b)}]}
    out = invoke(lambda items: items[0] is a and items[1]["k"] is b, [], args, table)
    assert out is True


def test_result_is_converted_and_capped() -> None:
    table = HandleTable()
    assert invoke(lambda: {"x": float("nan")}, [], {}, table) == {"x": "nan"}
    capped = invoke(lambda n: "a" * n, [], {"n": 5000}, table, max_bytes=1000)
    assert capped["truncated"] is True and capped["bytes"] == 5002


def test_exceptions_propagate() -> None:
    def boom() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        invoke(boom, [], {}, HandleTable())
    with pytest.raises(KeyError, match="unknown or expired handle"):
        invoke(lambda x: x, ["x"], {"x": {"handle": "h_gone"}}, HandleTable())


def test_resolve() -> None:
    assert resolve("json:dumps") is json.dumps
    assert resolve("collections:OrderedDict.fromkeys") == OrderedDict.fromkeys
    assert resolve("os.path.join") is os.path.join
    assert resolve("collections.OrderedDict") is OrderedDict
    assert resolve(f"{__name__}:Model.predict") is Model.predict


def test_resolve_errors() -> None:
    with pytest.raises(ModuleNotFoundError):
        resolve("no_such_module_xyz:f")
    with pytest.raises(ModuleNotFoundError):
        resolve("no_such_module_xyz.f")
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        resolve("json:nope")
    with pytest.raises(TypeError, match="non-callable"):
        resolve("sys:path")


def test_resolve_reports_a_missing_dependency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "needs_dep_mod.py").write_text("import dependency_not_installed_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="dependency_not_installed_xyz"):
        resolve("needs_dep_mod.func")


def test_runtime_imports_only_the_standard_library(tmp_path: Path) -> None:
    """Copied as ``metaserver_runtime``, the package must work with only the stdlib."""
    source = Path(metaserver.runtime.__file__).parent
    shutil.copytree(source, tmp_path / "metaserver_runtime", ignore=shutil.ignore_patterns("*.pyc"))
    script = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, sys.argv[1])
        before = set(sys.modules)
        import metaserver_runtime
        from metaserver_runtime import HandleTable, invoke, to_json
        from metaserver_runtime import call, codecs, handles
        table = HandleTable()
        assert invoke(sorted, ["x"], {"x": {3, 1}}, table) == [1, 3]
        new = set(sys.modules) - before
        bad = sorted(
            name for name in new
            if name.split(".")[0] not in sys.stdlib_module_names
            and name.split(".")[0] != "metaserver_runtime"
        )
        print(json.dumps({"bad": bad, "metaserver": "metaserver" in sys.modules}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"bad": [], "metaserver": False}


class _Zero:
    """A class whose call may make an object of another class (sympy's ``acos(1)`` is 0)."""

    def __new__(cls, value: int) -> object:
        return 0 if value == 1 else super().__new__(cls)


def test_a_constructor_keeps_only_an_object_of_its_own_class() -> None:
    from metaserver.runtime.call import invoke
    from metaserver.runtime.handles import HandleTable

    handles = HandleTable()
    assert invoke(_Zero, [], {"value": 1}, handles, keep=True) == 0
    kept = invoke(_Zero, [], {"value": 2}, handles, keep=True)
    assert set(kept) == {"handle", "type", "repr"}
    # A function's result is kept as it is asked (a documented factory's handle).
    assert set(invoke(lambda: 0, [], {}, handles, keep=True)) == {"handle", "type", "repr"}


class _Tag:
    """An object whose text is not its repr, with a JSON form of its own."""

    def __init__(self, text: str) -> None:
        self.text = text

    def to_dict(self) -> dict[str, str]:
        return {"text": self.text}

    def __str__(self) -> str:
        return self.text


def test_a_tool_whose_docs_show_text_keeps_only_its_packages_objects() -> None:
    from metaserver.runtime.call import KEEP_OWN

    handles = HandleTable()

    def bump(text: str) -> _Tag:
        return _Tag(text)

    def plain(text: str) -> str:
        return text

    bump.__module__ = plain.__module__ = _Tag.__module__  # one package's
    kept = invoke(bump, [], {"text": "2.0"}, handles, keep=KEEP_OWN)
    assert kept["text"] == "2.0" and handles.get(kept["handle"]).text == "2.0"
    # a builtin value, or an object of another package, is returned as JSON
    assert invoke(plain, [], {"text": "2.0"}, handles, keep=KEEP_OWN) == "2.0"
    bump.__module__ = "other"
    assert invoke(bump, [], {"text": "2.0"}, handles, keep=KEEP_OWN) == {"text": "2.0"}


SERVER = """
import sys
sys.path.insert(0, sys.argv[1])
from fastmcp import FastMCP
from metaserver_runtime import HandleTable, invoke

mcp = FastMCP("noisy")
table = HandleTable()


def shout(text):
    print("a library's chatter")
    print('{"jsonrpc": "2.0", "id": 1, "result": {"forged": true}}')
    return text.upper()


@mcp.tool(name="shout")
def tool_shout(text: str) -> str:
    return invoke(shout, ["text"], {"text": text}, table)


mcp.run(show_banner=False)
"""


def test_what_a_library_prints_never_reaches_the_protocol_stream(tmp_path: Path) -> None:
    shutil.copytree(Path(metaserver.runtime.__file__).parent, tmp_path / "metaserver_runtime")
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "shout", "arguments": {"text": "hi"}},
        },
    ]
    proc = subprocess.Popen(
        [sys.executable, "-I", "-c", SERVER, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "server.log").open("w"),
        text=True,
        cwd=tmp_path,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
    proc.stdin.flush()
    wire: list[dict[str, Any]] = []
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while not any(m.get("id") == 2 for m in wire) and selector.select(timeout=60):
            wire.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()  # the client leaves; what the server flushes at exit comes now
    rest = proc.stdout.read()
    proc.wait(timeout=60)
    wire += [json.loads(line) for line in rest.splitlines() if line.strip()]
    # every line the client reads is the server's own answer: the call's, then nothing else
    assert [m.get("id") for m in wire] == [0, 2], wire
    assert wire[1]["result"]["structuredContent"] == {"result": "HI"}
    assert "a library's chatter" in (tmp_path / "server.log").read_text()


def test_a_kwargs_object_is_spread_by_keyword() -> None:
    def f(a: int, *rest: int, **options: int) -> tuple[int, tuple[int, ...], dict[str, int]]:
        return a, rest, options

    args, kwargs = split_arguments(
        f, ["a", "*rest", "**options"], {"a": 1, "rest": [2], "options": {"k": 3}}
    )
    assert f(*args, **kwargs) == (1, (2,), {"k": 3})
    args, kwargs = split_arguments(f, ["**options"], {"a": 1})  # left out: nothing to spread
    assert (args, kwargs) == ([], {"a": 1})


def test_an_argument_left_to_the_callables_own_default_is_not_passed() -> None:
    marker = object()

    def url(val: object = marker, strict: object = None) -> bool:
        return val is marker and strict is None

    handles = HandleTable()
    assert invoke(url, [], {"val": None, "strict": None}, handles, unset=["val"]) is True
    assert invoke(url, [], {"val": "x"}, handles, unset=["val"]) is False


def table(rows: int) -> None:
    """Shows its answer by printing it, as a library's ``sld_table()`` does."""
    print("n  square")
    for n in range(rows):
        print(f"{n}  {n * n}")


def chatty_sum(values: list[int]) -> int:
    print("adding", len(values), "values")
    return sum(values)


def test_a_call_that_returns_nothing_answers_with_what_it_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    handles = HandleTable()
    assert invoke(table, [], {"rows": 3}, handles) == "n  square\n0  0\n1  1\n2  4\n"
    assert invoke(chatty_sum, [], {"values": [1, 2]}, handles) == 3  # its value is its answer
    assert invoke(table, [], {"rows": 0}, handles) == "n  square\n"
    assert invoke(table, [], {"rows": 50_000}, handles, max_bytes=1000)["truncated"] is True
    # Printed text is still the server's log, never its stdout.
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "adding 2 values" in captured.err


def test_overlapping_calls_keep_their_own_printed_text() -> None:
    import threading

    handles = HandleTable()
    started = threading.Barrier(2)
    answers: dict[int, object] = {}
    stdout = sys.stdout

    def slow_table(rows: int) -> None:
        started.wait(timeout=10)
        for n in range(rows):
            print(f"row {n} of {rows}")

    def call(rows: int) -> None:
        answers[rows] = invoke(slow_table, [], {"rows": rows}, handles)

    threads = [threading.Thread(target=call, args=(rows,)) for rows in (2, 3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert answers[2] == "row 0 of 2\nrow 1 of 2\n"
    assert answers[3] == "row 0 of 3\nrow 1 of 3\nrow 2 of 3\n"
    assert sys.stdout is stdout  # what was there before the first call is there again
