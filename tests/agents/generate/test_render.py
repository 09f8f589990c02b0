"""generate: schema forms to annotations, and a rendered server served through real MCP."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fastmcp import Client

from metaserver.agents.generate.render import RUNTIME_PACKAGE, generate, python_type, render_tool
from metaserver.agents.validate.classify import classify
from metaserver.children.launch import server_command, stdio_transport
from metaserver.contracts import (
    JSON,
    Environment,
    Evidence,
    Parameter,
    Source,
    ToolEvidence,
    ToolSpec,
    Workspace,
)
from metaserver.exceptions import GenerationError
from metaserver.sandbox import get_sandbox
from metaserver.settings import SandboxSettings


@pytest.mark.parametrize(
    ("schema", "annotation"),
    [
        ({"type": "integer"}, "int"),
        ({"type": "number"}, "_Number"),
        ({"type": "string"}, "str"),
        ({"type": "boolean"}, "bool"),
        ({"type": "null"}, "None"),
        ({}, "Any"),
        ({"description": "no type"}, "Any"),
        ({"type": "integer", "default": 3, "description": "d"}, "int"),
        ({"type": "array"}, "list[Any]"),
        ({"type": "array", "items": {"type": "integer"}}, "list[int]"),
        (
            {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
            "list[list[_Number]]",
        ),
        (
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
            "tuple[int, str]",
        ),
        ({"type": "object"}, "dict[str, Any]"),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, "dict[str, int]"),
        ({"enum": ["a", "b"]}, "Literal['a', 'b']"),
        ({"enum": [1, 2, None]}, "Literal[1, 2, None]"),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "int | None"),
        ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, "int | str"),
        ({"anyOf": [{"type": "integer"}, {"type": "integer"}]}, "int"),
        ({"anyOf": [{"type": "integer"}, {}]}, "Any"),
        ({"anyOf": [{"enum": ["x"]}, {"type": "null"}]}, "Literal['x'] | None"),
    ],
)
def test_python_type(schema: dict[str, JSON], annotation: str) -> None:
    assert python_type(schema) == annotation


def param(
    name: str,
    schema: dict[str, JSON],
    *,
    required: bool = True,
    default: JSON = None,
    kind: str = "positional_or_keyword",
    description: str | None = None,
) -> Parameter:
    schema = dict(schema)
    if not required:
        schema["default"] = default
    if description:
        schema["description"] = description
    return Parameter.model_validate(
        {
            "name": name,
            "kind": kind,
            "json_schema": schema,
            "required": required,
            "default": default,
            "description": description,
        }
    )


def spec(name: str, target: str, parameters: list[Parameter], description: str = "") -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description or f"The {name} tool.",
        target=target,
        parameters=parameters,
    )


TINY_MODULE = '''\
"""A tiny target library for the generated server."""

from enum import Enum


class Box:
    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"Box({self.value!r})"


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


def add(a, b=2):
    return a + b


def subtract(a, b, /):
    return a - b


def greet(*, name, punctuation="!"):
    return f"hello {name}{punctuation}"


def box(value):
    return Box(value)


def unbox(box):
    return box.value


def countdown(n):
    for i in range(n, 0, -1):
        yield i


def describe(pair, mapping, mode, maybe=None, flag=False, weights=None):
    return {
        "pair": list(pair),
        "total": sum(mapping.values()),
        "mode": mode,
        "maybe": maybe,
        "flag": flag,
        "weights": weights,
    }


def colour(name):
    return Colour(name)


def uses_reserved(invoke, mcp=1):
    return invoke * 10 + mcp


def fails(x):
    raise ValueError(f"bad value {x}")


def show(value):
    return str(value)
'''

INT = {"type": "integer"}
NUMBER = {"type": "number"}

SPECS = [
    spec(
        "add",
        "tinymod:add",
        [
            param("a", INT, description="the first addend"),
            param("b", INT, required=False, default=2, description="the second addend"),
        ],
        description="Add two integers.",
    ),
    spec(
        "subtract",
        "tinymod:subtract",
        [param("a", INT, kind="positional_only"), param("b", INT, kind="positional_only")],
    ),
    spec(
        "greet",
        "tinymod:greet",
        [
            param("name", {"type": "string"}, kind="keyword_only"),
            param(
                "punctuation", {"type": "string"}, required=False, default="!", kind="keyword_only"
            ),
        ],
    ),
    spec("box", "tinymod:box", [param("value", {})]),
    spec("unbox", "tinymod:unbox", [param("box", {})]),
    spec("count-down", "tinymod:countdown", [param("n", INT)]),
    spec(
        "describe",
        "tinymod:describe",
        [
            param(
                "pair",
                {"type": "array", "prefixItems": [INT, NUMBER], "minItems": 2, "maxItems": 2},
            ),
            param("mapping", {"type": "object", "additionalProperties": INT}),
            param("mode", {"enum": ["fast", "slow"]}),
            param("maybe", {"anyOf": [INT, {"type": "null"}]}, required=False, default=None),
            param("flag", {"type": "boolean"}, required=False, default=False),
            param(
                "weights",
                {"anyOf": [{"type": "array", "items": NUMBER}, {"type": "null"}]},
                required=False,
                default=None,
            ),
        ],
    ),
    spec("colour", "tinymod:colour", [param("name", {"enum": ["red", "blue"]})]),
    spec(
        "uses_reserved",
        "tinymod:uses_reserved",
        [param("invoke", INT), param("mcp", INT, required=False, default=1)],
    ),
    spec("fails", "tinymod:fails", [param("x", INT)]),
    spec(
        "show",
        "tinymod:show",
        [param("value", {"anyOf": [NUMBER, {"type": "string"}]}, description="a number")],
    ),
    spec("show_numbers", "tinymod:show", [param("value", {"type": "array", "items": NUMBER})]),
]


def workspace(path: Path) -> Workspace:
    source = Source(kind="local", location=str(path), original=str(path))
    return Workspace(source=source, path=path, commit="0" * 40, distribution="tinymod")


def environment(tmp: Path) -> Environment:
    return Environment(
        ok=True,
        strategy="requirements+path",
        python="3.11",
        python_path=Path(sys.executable),
        venv=tmp / "venv",
        seconds=0.0,
    )


def test_render_tool_compiles_for_every_spec() -> None:
    for item in SPECS:
        code = render_tool(item)
        compile(code, "<tool>", "exec")
        assert f"name={item.name!r}" in code


def test_mutable_defaults_render_as_valid_python() -> None:
    # A *args parameter defaults to [] and a mapping option to {}: both are followed by more
    # parameters, so the rendered line must end in a plain comma.
    item = spec(
        "gray_product",
        "m:gray_product",
        [
            param(
                "iterables", {"type": "array"}, required=False, default=[], kind="var_positional"
            ),
            param("options", {"type": "object"}, required=False, default={}),
            param("repeat", INT, required=False, default=1),
        ],
    )
    code = render_tool(item)
    compile(code, "<tool>", "exec")
    assert "iterables: list[Any] = []," in code


def test_kwargs_and_a_setter_render_as_their_runtime_calls() -> None:
    item = spec(
        "atoms_new",
        "m:Atoms",
        [
            param("symbols", {"type": "string"}),
            param("kwargs", {"type": "object"}, required=False, default={}, kind="var_keyword"),
        ],
    )
    code = render_tool(item)
    compile(code, "<tool>", "exec")
    assert "['**kwargs']" in code  # the runtime spreads it by keyword
    setter = spec("meter_set_scale", "m:Meter.scale", [param("handle", {}), param("value", {})])
    code = render_tool(setter.model_copy(update={"assigns": "scale"}))
    assert "_setter('scale')" in code and "_target(" not in code


def test_render_tool_refuses_a_parameter_that_is_not_a_name() -> None:
    bad = spec("bad", "m:f", [param("class", INT)])
    with pytest.raises(GenerationError):
        render_tool(bad)
    with pytest.raises(GenerationError):
        render_tool(spec("bad", "m:f", [param("not-a-name", INT)]))


def test_generate_refuses_no_specs(tmp_path: Path) -> None:
    with pytest.raises(GenerationError):
        generate(tmp_path / "srv", "tiny", [], workspace(tmp_path), environment(tmp_path))


def test_generate_writes_a_complete_directory(tmp_path: Path) -> None:
    evidence = [
        ToolEvidence(
            name="add",
            target="tinymod:add",
            status="passed",
            evidence=Evidence(arguments={"a": 1}, result=3),
        ),
        ToolEvidence(name="fails", target="tinymod:fails", status="failed", error="boom"),
    ]
    directory = generate(
        tmp_path / "srv", "tiny", SPECS, workspace(tmp_path), environment(tmp_path), evidence
    )
    for name in ("server.py", "tools.json", "mcp.json", "README.md", "tests/test_tools.py"):
        assert (directory / name).is_file(), name
    assert (directory / RUNTIME_PACKAGE / "__init__.py").is_file()
    assert (directory / "work").is_dir()
    compile((directory / "server.py").read_text(), "server.py", "exec")
    compile((directory / "tests" / "test_tools.py").read_text(), "test_tools.py", "exec")
    document = json.loads((directory / "tools.json").read_text())
    assert [t["name"] for t in document["tools"]] == [s.name for s in SPECS]
    assert all(len(t["definition_hash"]) == 16 for t in document["tools"])
    assert document["commit"] == "0" * 40
    calls = json.loads((directory / "tests" / "validation_calls.json").read_text())
    assert [(c["tool"], c["arguments"], c["result"]) for c in calls] == [("add", {"a": 1}, 3)]
    snippet = json.loads((directory / "mcp.json").read_text())["mcpServers"]["tiny"]
    # Confined: through metaserver's own run command, naming the version.
    assert snippet["command"] == sys.executable
    assert snippet["args"] == ["-m", "metaserver", "run", f"tiny@{directory.name.split('-')[-1]}"]
    # Regenerating over an existing directory works and refreshes the runtime copy.
    generate(directory, "tiny", SPECS[:1], workspace(tmp_path), environment(tmp_path))
    assert "tool_greet" not in (directory / "server.py").read_text()


# ---------------------------------------------------------------- through a real MCP client


@pytest.fixture(scope="module")
def server_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("generated")
    directory = generate(tmp / "srv", "tiny", SPECS, workspace(tmp), environment(tmp))
    # server.py puts its own directory first on sys.path, so the target imports from there.
    (directory / "tinymod.py").write_text(textwrap.dedent(TINY_MODULE))
    return directory


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(server_dir: Path) -> AsyncIterator[Client[Any]]:
    """One server for the whole module: each start costs about a second."""
    sandbox = get_sandbox(SandboxSettings(backend="process"))
    command = server_command(sandbox, Path(sys.executable), server_dir, timeout=60)
    async with Client(
        stdio_transport(command, keep_alive=False), mode="legacy", init_timeout=60, timeout=30
    ) as connected:
        yield connected


# The async tests share the module's event loop, where the one client lives.
module_loop = pytest.mark.asyncio(loop_scope="module")


async def call(client: Client[Any], name: str, arguments: dict[str, Any]) -> Any:
    result = await client.call_tool_mcp(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content["result"]


@module_loop
async def test_tools_are_listed_with_the_published_schema(client: Client[Any]) -> None:
    tools = {tool.name: tool for tool in await client.list_tools()}
    assert set(tools) == {s.name for s in SPECS}
    add = tools["add"]
    assert add.description == "Add two integers."
    schema = add.input_schema
    assert schema["required"] == ["a"]
    assert schema["properties"]["a"]["type"] == "integer"
    assert schema["properties"]["a"]["description"] == "the first addend"
    assert schema["properties"]["b"]["type"] == "integer"
    assert schema["properties"]["b"]["default"] == 2
    assert schema["properties"]["b"]["description"] == "the second addend"

    greet = tools["greet"].input_schema
    assert greet["required"] == ["name"]
    assert greet["properties"]["punctuation"]["default"] == "!"

    describe = tools["describe"].input_schema
    assert sorted(describe["required"]) == ["mapping", "mode", "pair"]
    assert describe["properties"]["mode"]["enum"] == ["fast", "slow"]
    pair = describe["properties"]["pair"]
    assert [item["type"] for item in pair["prefixItems"]] == ["integer", "number"]
    assert describe["properties"]["mapping"]["additionalProperties"]["type"] == "integer"
    assert describe["properties"]["flag"]["default"] is False
    assert describe["properties"]["maybe"]["default"] is None


@module_loop
async def test_calls_return_json_results(client: Client[Any]) -> None:
    assert await call(client, "add", {"a": 2, "b": 3}) == 5
    assert await call(client, "add", {"a": 2}) == 4
    assert await call(client, "greet", {"name": "ann"}) == "hello ann!"
    assert await call(client, "greet", {"name": "ann", "punctuation": "?"}) == "hello ann?"
    assert await call(client, "colour", {"name": "blue"}) == "blue"
    assert await call(client, "uses_reserved", {"invoke": 4}) == 41
    described = await call(
        client,
        "describe",
        {"pair": [1, 2.5], "mapping": {"x": 1, "y": 2}, "mode": "slow", "weights": [0.5]},
    )
    assert described == {
        "pair": [1, 2.5],
        "total": 3,
        "mode": "slow",
        "maybe": None,
        "flag": False,
        "weights": [0.5],
    }


@module_loop
async def test_a_number_parameter_keeps_the_kind_of_number_it_was_given(
    client: Client[Any],
) -> None:
    # A float annotation would turn the documented 100 into 100.0, and the library's
    # answer with it ("100.0" where the docs show "100").
    assert await call(client, "show", {"value": 100}) == "100"
    assert await call(client, "show", {"value": 2.5}) == "2.5"
    assert await call(client, "show", {"value": "x"}) == "x"
    assert await call(client, "show_numbers", {"value": [1, 2.0]}) == "[1, 2.0]"
    tools = {tool.name: tool for tool in await client.list_tools()}
    listed = tools["show"].input_schema["properties"]["value"]
    assert listed["anyOf"] == [{"type": "number"}, {"type": "string"}]
    assert listed["description"] == "a number"
    assert tools["show_numbers"].input_schema["properties"]["value"]["items"] == NUMBER


@module_loop
async def test_positional_only_parameters_are_passed_positionally(client: Client[Any]) -> None:
    assert await call(client, "subtract", {"a": 10, "b": 3}) == 7


@module_loop
async def test_generator_results_come_back_as_lists(client: Client[Any]) -> None:
    assert await call(client, "count-down", {"n": 3}) == [3, 2, 1]
    assert await call(client, "count-down", {"n": 0}) == []


@module_loop
async def test_objects_come_back_as_handles_and_can_be_passed_back(client: Client[Any]) -> None:
    handle = await call(client, "box", {"value": [1, 2]})
    assert set(handle) == {"handle", "type", "repr"}
    assert handle["type"] == "tinymod.Box"
    assert handle["repr"] == "Box([1, 2])"
    assert await call(client, "unbox", {"box": handle}) == [1, 2]


@module_loop
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("add", {"a": "not a number"}),
        ("add", {}),
        ("add", {"a": 1, "b": [1]}),
        ("describe", {"pair": [1], "mapping": {}, "mode": "fast"}),
        ("describe", {"pair": [1, 2], "mapping": {"x": "y"}, "mode": "fast"}),
        ("describe", {"pair": [1, 2], "mapping": {}, "mode": "medium"}),
        ("greet", {"name": 3}),
    ],
)
async def test_schema_violations_come_back_as_error_results(
    client: Client[Any], name: str, arguments: dict[str, Any]
) -> None:
    result = await client.call_tool_mcp(name, arguments)
    assert result.is_error
    # Review reads the error text: a schema violation is the caller's mistake, not the repo's.
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert classify(text) == "api_inference_error", text


@module_loop
async def test_an_exception_in_the_target_is_an_error_result(client: Client[Any]) -> None:
    result = await client.call_tool_mcp("fails", {"x": 7})
    assert result.is_error
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert "bad value 7" in text
    # The server survives the failure.
    assert await call(client, "add", {"a": 1, "b": 1}) == 2


def test_a_parameter_without_a_json_default_is_not_passed_when_left_out() -> None:
    item = spec(
        "url_new",
        "m:URL",
        [
            param("val", {"type": "string"}, required=False).model_copy(
                update={"unset_default": True}
            )
        ],
    )
    code = render_tool(item)
    compile(code, "<tool>", "exec")
    assert "unset=['val']" in code
    assert "val: str = None" in code
