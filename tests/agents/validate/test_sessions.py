"""replay_session: an argument's setup calls (``on``) run on the handle its step built."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from metaserver.agents.validate.sessions import SessionError, replay_session
from metaserver.contracts import Evidence, Example, Parameter, SessionStep, ToolSpec


def tool(name: str, target: str, *parameters: str) -> ToolSpec:
    params = [Parameter(name=p, kind="positional_or_keyword") for p in parameters]
    return ToolSpec(name=name, description="d", target=target, parameters=params)


@dataclass
class Client:
    """Tools by name: ``net_new`` builds a handle, the others answer or refuse."""

    refuse: set[str] = field(default_factory=set)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def call_tool_mcp(self, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        self.calls.append((name, arguments))
        if name in self.refuse:
            return SimpleNamespace(is_error=True, content=[SimpleNamespace(text="no")])
        result = {"handle": "h1", "type": "Net"} if name == "net_new" else None
        return SimpleNamespace(is_error=False, structured_content={"result": result})


ROUTE = tool("route", "pkg:route", "net", "a", "b")
TOOLS = {
    "pkg:Net": tool("net_new", "pkg:Net"),
    "pkg:Net.link": tool("net_link", "pkg:Net.link", "handle", "a", "b"),
}
SESSION = [
    SessionStep(line="net = Net()", target="pkg:Net", into="net"),
    SessionStep(
        line='net.link("A", "B")',
        target="pkg:Net.link",
        member="link",
        arguments={"a": "A", "b": "B"},
        on=0,
    ),
]
EXAMPLE = Example(arguments={"a": "A", "b": "B"}, session=SESSION)


async def test_a_setup_call_runs_on_the_handle_its_argument_was_built_as() -> None:
    client = Client()
    evidence = await replay_session(
        client,  # type: ignore[arg-type]
        ROUTE,
        EXAMPLE,
        Evidence(arguments=EXAMPLE.arguments, check="no-error"),
        TOOLS,
        5.0,
    )
    assert client.calls == [
        ("net_new", {}),
        ("net_link", {"a": "A", "b": "B", "handle": {"handle": "h1"}}),
    ]
    assert evidence.arguments == {"a": "A", "b": "B", "net": {"handle": "h1"}}
    assert [(s.tool, s.receiver, s.on) for s in evidence.session] == [
        ("net_new", None, None),
        ("net_link", "handle", 0),
    ]
    assert evidence.receiver is None  # a function: no receiver of its own


@pytest.mark.parametrize(
    "refuse, tools", [({"net_link"}, TOOLS), (set(), {"pkg:Net": TOOLS["pkg:Net"]})]
)
async def test_a_setup_call_refused_or_not_published_fails_our_replay(
    refuse: set[str], tools: dict[str, ToolSpec]
) -> None:
    with pytest.raises(SessionError, match=r"net\.link"):
        await replay_session(
            Client(refuse=refuse),  # type: ignore[arg-type]
            ROUTE,
            EXAMPLE,
            Evidence(arguments=EXAMPLE.arguments, check="no-error"),
            tools,
            5.0,
        )


@dataclass
class Counting:
    """Each tool call builds a new handle."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def call_tool_mcp(self, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        self.calls.append((name, arguments))
        result = {"handle": f"h{len(self.calls)}"}
        return SimpleNamespace(is_error=False, structured_content={"result": result})


async def test_a_construction_takes_the_list_of_objects_earlier_steps_built() -> None:
    tools = {
        "pkg:Net": tool("net_new", "pkg:Net"),
        "pkg:Atlas": tool("atlas_new", "pkg:Atlas", "nets", "name"),
    }
    size = tool("atlas_size", "pkg:Atlas.size", "handle")
    session = [
        SessionStep(line="one = Net()", target="pkg:Net"),
        SessionStep(line="two = Net()", target="pkg:Net"),
        SessionStep(
            line="atlas = Atlas([one, two])",
            target="pkg:Atlas",
            arguments={"name": "x"},
            takes={"nets": [0, 1]},
        ),
    ]
    example = Example(arguments={}, session=session)
    client = Counting()
    evidence = await replay_session(
        client,  # type: ignore[arg-type]
        size,
        example,
        Evidence(arguments={}, check="no-error"),
        tools,
        5.0,
    )
    assert client.calls[-1] == (
        "atlas_new",
        {"name": "x", "nets": [{"handle": "h1"}, {"handle": "h2"}]},
    )
    assert evidence.arguments == {"handle": {"handle": "h3"}}
    # An index past the steps already replayed is no object of the session's.
    late = session[2].model_copy(update={"takes": {"nets": [0, 2]}})
    with pytest.raises(SessionError, match="no object built for nets"):
        await replay_session(
            Counting(),  # type: ignore[arg-type]
            size,
            Example(arguments={}, session=[*session[:2], late]),
            Evidence(arguments={}, check="no-error"),
            tools,
            5.0,
        )


@dataclass
class Paths:
    """``data_path`` answers a plain path; ``reader_new`` builds a handle."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def call_tool_mcp(self, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        self.calls.append((name, arguments))
        result: Any = "/env/pkg/data/a.csv" if name == "data_path" else {"handle": "h1"}
        return SimpleNamespace(is_error=False, structured_content={"result": result})


PATH_TOOLS = {
    "pkg:data_path": tool("data_path", "pkg:data_path", "name"),
    "pkg:read": tool("read", "pkg:read", "fp"),
}
ROWS = tool("table_rows", "pkg:Table.rows", "handle")


async def test_a_plain_value_a_later_step_takes_is_passed_on_as_it_is() -> None:
    # ``path = data_path("a.csv")``, ``table = read(path)``, ``table.rows()``.
    session = [
        SessionStep(
            line='path = data_path("a.csv")', target="pkg:data_path", arguments={"name": "a.csv"}
        ),
        SessionStep(line="table = read(path)", target="pkg:read", takes={"fp": 0}),
    ]
    client = Paths()
    evidence = await replay_session(
        client,  # type: ignore[arg-type]
        ROWS,
        Example(arguments={}, session=session),
        Evidence(arguments={}, check="no-error"),
        PATH_TOOLS,
        5.0,
    )
    assert client.calls == [
        ("data_path", {"name": "a.csv"}),
        ("read", {"fp": "/env/pkg/data/a.csv"}),
    ]
    assert evidence.arguments == {"handle": {"handle": "h1"}}


async def test_a_plain_value_nothing_takes_is_no_receiver() -> None:
    session = [SessionStep(line='t = data_path("a.csv")', target="pkg:data_path")]
    with pytest.raises(SessionError, match="built no handle"):
        await replay_session(
            Paths(),  # type: ignore[arg-type]
            ROWS,
            Example(arguments={}, session=session),
            Evidence(arguments={}, check="no-error"),
            PATH_TOOLS,
            5.0,
        )
