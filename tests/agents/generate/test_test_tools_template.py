"""The comparison a generated server's own tests replay validation with
(``agents/generate/templates/test_tools.py``), loaded as a server directory holds it."""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

import metaserver.agents.generate as generate
import metaserver.runtime
from metaserver.agents.generate.render import RUNTIME_PACKAGE

TEMPLATE = Path(generate.__file__).parent / "templates" / "test_tools.py"


def _template(tmp_path: Path) -> ModuleType:
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy(TEMPLATE, tests / "test_tools.py")
    # the server's runtime beside its tests, as generate lays a server out
    shutil.copytree(Path(metaserver.runtime.__file__).parent, tmp_path / RUNTIME_PACKAGE)
    (tests / "validation_calls.json").write_text("[]")
    spec = importlib.util.spec_from_file_location("generated_test_tools", tests / "test_tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_handle_is_the_same_object_by_type_and_repr_not_by_id(tmp_path: Path) -> None:
    same = _template(tmp_path).same
    validated = {"handle": "h_a", "type": "lib.Integer", "repr": "3"}
    assert same({"handle": "h_b", "type": "lib.Integer", "repr": "3"}, validated)
    assert not same({"handle": "h_b", "type": "lib.Integer", "repr": "4"}, validated)
    assert not same({"handle": "h_b", "type": "lib.Float", "repr": "3"}, validated)
    assert not same(3, validated)
    # Plain values as before.
    assert same([1, 2.0000000000001], [1, 2.0])
    assert not same({"a": 1}, {"a": 2})


def test_a_shape_is_read_of_a_rectangular_list_or_of_its_item(tmp_path: Path) -> None:
    shape_of = _template(tmp_path).shape_of
    assert shape_of([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]) == [2, 3]
    assert shape_of([[[1.0], [2.0]], [0]], 0) == [2, 1]  # ``X, Z = sample(2)``, then X
    assert shape_of([]) == [0]
    # A ragged list, a frame or an item has none: such an answer is compared whole.
    assert shape_of([[1], [2, 3]]) is None
    assert shape_of({"columns": ["a"], "data": [[1]]}) is None
    assert shape_of(3.5) is None
    assert shape_of([[1]], 4) is None
    assert shape_of({"truncated": True, "bytes": 9, "preview": "[[0", "shape": [3, 2]}) == [3, 2]
    # ``cA, (cH, cV, cD) = dwt2(x)`` then ``cV.shape``: one index per level
    assert shape_of([[[1.0]], [[[1.0, 2.0]], [[3.0], [4.0]]]], [1, 1]) == [2, 1]
    assert shape_of([[[1.0]], [[1.0]]], [1, 5]) is None


def test_a_shipped_files_path_is_the_same_wherever_the_environment_is(tmp_path: Path) -> None:
    """Validated in the sandbox's view of the environment, replayed where it lies."""
    same = _template(tmp_path).same
    validated = "/venv/lib/python3.11/site-packages/pydicom/data/test_files/CT_small.dcm"
    here = "/home/u/envs/pydicom-1/lib/python3.11/site-packages/pydicom/data/test_files/"
    assert same(here + "CT_small.dcm", validated)
    assert not same(here + "MR_small.dcm", validated)
    assert not same("/home/u/CT_small.dcm", validated)


class _Raw:
    def __init__(self, result: object) -> None:
        self.is_error = False
        self.structured_content = {"result": result}


class _Client:
    """Each tool call returns a new handle (a path for ``path_tool``); the calls are kept."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, object]]] = []

    async def call_tool_mcp(self, tool: str, arguments: dict[str, object]) -> _Raw:
        self.calls.append((tool, arguments))
        if tool == "path_tool":
            return _Raw("/data/ct.dcm")
        return _Raw({"handle": f"h{len(self.calls)}"})


def test_a_step_takes_a_list_of_the_objects_earlier_steps_built(tmp_path: Path) -> None:
    receiver = _template(tmp_path).receiver
    step = {"arguments": {}, "receiver": None}
    session = [
        dict(step, tool="signal_new"),
        dict(step, tool="signal_new"),
        dict(step, tool="mix_new", arguments={"name": "duo"}, takes={"signals": [0, 1]}),
    ]
    client = _Client()
    handle = asyncio.run(receiver(client, session, {}))
    assert handle == {"handle": "h3"}
    assert client.calls[-1] == (
        "mix_new",
        {"name": "duo", "signals": [{"handle": "h1"}, {"handle": "h2"}]},
    )


def test_a_value_a_step_returns_is_taken_by_a_later_step_as_it_is(tmp_path: Path) -> None:
    # ``path = get_testdata_file("CT_small.dcm")``, then ``ds = dcmread(path)``: the path is
    # no handle, and the read's argument (before: a TypeError reading it as one)
    receiver = _template(tmp_path).receiver
    step = {"arguments": {}, "receiver": None}
    session = [
        dict(step, tool="path_tool", arguments={"name": "ct.dcm"}),
        dict(step, tool="read_new", takes={"fp": 0}),
    ]
    client = _Client()
    assert asyncio.run(receiver(client, session, {})) == {"handle": "h2"}
    assert client.calls[-1] == ("read_new", {"fp": "/data/ct.dcm"})


SERVER = """
import os

from fastmcp import FastMCP

mcp = FastMCP("replay")


@mcp.tool
def echo(x: int) -> int:
    return x


@mcp.tool
def refuse() -> int:
    raise ValueError("refused")


@mcp.tool
def die() -> int:
    os._exit(3)


mcp.run(show_banner=False)
"""


@pytest.mark.integration
def test_each_replayed_call_fails_alone_and_a_dead_server_is_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("METASERVER_TEST_CALL_TIMEOUT", "10")
    (tmp_path / "server.py").write_text(SERVER)
    template = _template(tmp_path)
    step = {"tool": "refuse", "arguments": {}, "receiver": None}
    template.CALLS[:] = [
        # its session's setup step is refused: this call fails, not the ones after it
        {"tool": "needs_setup", "arguments": {}, "session": [step], "receiver": "r"},
        {"tool": "die", "arguments": {}},  # ends the server: the next call gets a new one
        {"tool": "echo", "arguments": {"x": 2}},
        {"tool": "refuse", "arguments": {}},
    ]
    results = template.replayed()
    assert results["needs_setup"][0] is True
    assert "AssertionError" in results["needs_setup"][1]
    assert results["die"][0] is True
    assert results["echo"] == (False, 2)
    assert results["refuse"][0] is True
    assert "refused" in results["refuse"][1]  # the error's text is its test's reason
