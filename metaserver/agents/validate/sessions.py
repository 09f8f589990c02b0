"""Replaying a doctest session through MCP: the receiver's constructor tool, the setup calls
on the handle it returned (a chain's call hands on the handle it returns), then the
documented call on that same handle; and the tools that
build the call's object arguments (``contains(line, Point(0, 0))``), whose results it takes.
A step that ``takes`` an object an earlier step built (``resp = frequency_response(sys)``)
gets the handle the session held after that step (a list of them for a list of indices:
``PVSystem(arrays=[one, two])``). A setup call of a built argument
(``G.add_edge("A", "B")`` after ``G = Graph()``: a step ``on`` the step that built ``G``)
calls its method's tool on the handle that step returned.

A method's example that carries a session (probe/sessions.py) is checked on
the receiver its own session built, never on one built from another example, so the
documented value is compared with what the repository's example really computes.
"""

from __future__ import annotations

from typing import Any

from fastmcp import Client
from mcp.types import CallToolResult

from metaserver.children.launch import error_text, result_value
from metaserver.contracts import JSON, Evidence, Example, SessionStep, ToolSpec


class SessionError(Exception):
    """The session could not be replayed: a tool it needs is missing or refused a line."""


async def replay_session(
    client: Client[Any],
    spec: ToolSpec,
    example: Example,
    evidence: Evidence,
    by_target: dict[str, ToolSpec],
    timeout: float,
) -> Evidence:
    """``evidence`` with the call's arguments bound to the session's receiver handle.

    Raises:
        SessionError: a step's tool is not published, failed, or built no handle.
    """
    handle: dict[str, JSON] | None = None
    built: dict[str, JSON] = {}  # the call's arguments that earlier steps built
    spread: dict[str, list[JSON]] = {}  # its ``*args`` lists, item by item
    replayed: list[SessionStep] = []
    after: list[dict[str, JSON] | None] = []  # the session's object after each step
    results: dict[int, JSON] = {}  # what each step that builds an argument returned
    for index, step in enumerate(example.session):
        after.append(handle)  # replaced below when the step builds another
        if step.on is not None:  # ``G.add_edge("A", "B")``: a built argument, set up
            replayed.append(await _set_up(client, step, results.get(step.on), by_target, timeout))
            continue
        if step.into is not None:  # ``contains(line, Point(0, 0))``: an argument, built
            value = results[index] = await _built_value(client, step, by_target, timeout)
            if step.feeds is not None:  # ``algo.fit(signal)``: a later setup step's
                replayed.append(step.model_copy(update={"tool": by_target[step.target].name}))
                continue
            if step.item is None:
                built[step.into] = value
            else:  # an item of a ``*args`` list, in the order the line wrote them
                spread.setdefault(step.into, []).append(value)
            replayed.append(step.model_copy(update={"tool": by_target[step.target].name}))
            continue
        if step.attribute is not None:  # Geodesic.WGS84: the class's own instance, by name
            handle = {"attribute": step.attribute}
            after[-1] = handle
            replayed.append(step)
            continue
        tool = by_target.get(step.target)
        if tool is None:
            raise SessionError(f"session line {step.line!r}: {step.target} is not a tool here")
        arguments = dict(step.arguments)
        for name, at in step.takes.items():  # ``frequency_response(sys)``: built earlier
            arguments[name] = _taken(after, at, name, step)
        for fed, earlier in enumerate(example.session[:index]):  # ``algo.fit(signal)``
            if earlier.feeds == index and earlier.into is not None:
                arguments[earlier.into] = results[fed]
        receiver = None
        if step.member is not None:
            if handle is None or not tool.parameters:
                raise SessionError(f"session line {step.line!r}: no receiver built before it")
            receiver = tool.parameters[0].name
            arguments[receiver] = handle
        raw = await _call(client, tool, arguments, step, timeout)
        if step.member is None or step.chained:  # built, or returned by a chain's call
            value = result_value(raw)
            if not isinstance(value, dict) or not isinstance(value.get("handle"), str):
                raise SessionError(f"session line {step.line!r}: {tool.name} built no handle")
            handle = {"handle": value["handle"]}
        after[-1] = handle
        replayed.append(step.model_copy(update={"tool": tool.name, "receiver": receiver}))
    evidence.session = replayed
    built.update(spread)
    if all(s.into is not None or s.on is not None for s in example.session):  # arguments
        evidence.arguments = {**example.arguments, **built}
        return evidence
    if handle is None or not spec.parameters:
        raise SessionError("the session builds no receiver for the call")
    receiver = spec.parameters[0].name
    evidence.arguments = {**example.arguments, **built, receiver: handle}
    evidence.receiver = receiver
    return evidence


def _taken(
    after: list[dict[str, JSON] | None], index: int | list[int], name: str, step: SessionStep
) -> JSON:
    """The object (or, for a list of indices, the list of objects) the session held after
    the step ``index`` names, which ``step`` takes as ``name``."""
    if isinstance(index, list):  # ``PVSystem(arrays=[one, two])``: the list, item by item
        return [_taken(after, i, name, step) for i in index]
    taken = after[index] if 0 <= index < len(after) - 1 else None
    if taken is None:
        raise SessionError(f"session line {step.line!r}: no object built for {name}")
    return taken


async def _built_value(
    client: Client[Any], step: SessionStep, by_target: dict[str, ToolSpec], timeout: float
) -> JSON:
    """What a step's tool returned, as the documented call takes it: its handle (by id), or
    its JSON value (a codec already turned it into data the next tool decodes)."""
    tool = by_target.get(step.target)
    if tool is None:
        raise SessionError(f"session line {step.line!r}: {step.target} is not a tool here")
    raw = await _call(client, tool, dict(step.arguments), step, timeout)
    value = result_value(raw)
    if step.part is not None:  # ``signal, bkps = pw_constant(...)``: one item of the result
        if not isinstance(value, list) or not -len(value) <= step.part < len(value):
            raise SessionError(
                f"session line {step.line!r}: {tool.name} returned no item {step.part} to unpack"
            )
        value = value[step.part]
    if isinstance(value, dict) and isinstance(value.get("handle"), str):
        return {"handle": value["handle"]}
    return value


async def _set_up(
    client: Client[Any],
    step: SessionStep,
    built: JSON,
    by_target: dict[str, ToolSpec],
    timeout: float,
) -> SessionStep:
    """The setup step replayed: its method's tool called on the handle of the argument an
    earlier step built (``built``), which it changes in place."""
    tool = by_target.get(step.target)
    if tool is None:
        raise SessionError(f"session line {step.line!r}: {step.target} is not a tool here")
    if not (isinstance(built, dict) and isinstance(built.get("handle"), str)):
        raise SessionError(f"session line {step.line!r}: no object built to set up")
    if not tool.parameters:
        raise SessionError(f"session line {step.line!r}: {tool.name} takes no receiver")
    receiver = tool.parameters[0].name
    arguments = {**step.arguments, receiver: {"handle": built["handle"]}}
    await _call(client, tool, arguments, step, timeout)
    return step.model_copy(update={"tool": tool.name, "receiver": receiver})


async def _call(
    client: Client[Any],
    tool: ToolSpec,
    arguments: dict[str, JSON],
    step: SessionStep,
    timeout: float,
) -> CallToolResult:
    """The step's tool called with ``arguments``; a refusal, a timeout or a dead child is
    our replay failing (SessionError), never the documented call's verdict."""
    try:
        raw = await client.call_tool_mcp(tool.name, arguments, timeout=timeout)
    except Exception as exc:  # a timeout or a dead child: the replay failed
        raise SessionError(f"session line {step.line!r}: {type(exc).__name__}: {exc}") from exc
    if raw.is_error:
        raise SessionError(f"session line {step.line!r} via {tool.name}: {error_text(raw)}")
    return raw
