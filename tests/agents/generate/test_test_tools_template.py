"""The comparison a generated server's own tests replay validation with
(``agents/generate/templates/test_tools.py``), loaded as a server directory holds it."""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import metaserver.agents.generate as generate

TEMPLATE = Path(generate.__file__).parent / "templates" / "test_tools.py"


def _template(tmp_path: Path) -> ModuleType:
    tests = tmp_path / "tests"
    tests.mkdir()
    shutil.copy(TEMPLATE, tests / "test_tools.py")
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


class _Raw:
    def __init__(self, handle: str) -> None:
        self.is_error = False
        self.structured_content = {"result": {"handle": handle}}


class _Client:
    """Each tool call returns a new handle; the calls are kept."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, object]]] = []

    async def call_tool_mcp(self, tool: str, arguments: dict[str, object]) -> _Raw:
        self.calls.append((tool, arguments))
        return _Raw(f"h{len(self.calls)}")


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
