"""The validation calls that admitted each tool, replayed through a real MCP client.

Run with the environment's Python: python -m pytest tests
"""

import asyncio
import functools
import json
import math
import os
import re
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the server's own runtime, as server.py imports it
from metaserver_runtime.codecs import list_shape  # noqa: E402

CALLS = json.loads((HERE / "validation_calls.json").read_text())
# One call's limit (the validation's own, when the runner sets it): a call that hangs fails
# its own test, not the whole run.
CALL_TIMEOUT = float(os.environ.get("METASERVER_TEST_CALL_TIMEOUT") or 120)
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")


@functools.cache
def replayed():
    """Every call, made once, in order, through one server session (a new one after a call
    that ends or holds it): {tool: (is_error, value)}. A call that fails is that tool's
    failure alone; the calls after it still run."""

    def start():
        transport = StdioTransport(sys.executable, ["-I", str(HERE.parent / "server.py")])
        return Client(transport, timeout=CALL_TIMEOUT)

    async def one(client, call):
        arguments = dict(call["arguments"])
        if call.get("session"):
            handle = await receiver(client, call["session"], arguments)
            if call["receiver"]:
                arguments[call["receiver"]] = handle
        raw = await client.call_tool_mcp(call["tool"], arguments)
        if raw.is_error:  # its text is the reason the test gives
            text = " ".join(getattr(part, "text", "") for part in raw.content or [])
            return True, text or "an error without a message"
        return False, (raw.structured_content or {}).get("result")

    async def run():
        results = {}
        pending = list(CALLS)
        while pending:
            started = False
            try:
                async with start() as client:
                    started = True
                    while pending:
                        call = pending.pop(0)
                        try:
                            results[call["tool"]] = await one(client, call)
                        except Exception as exc:  # a step refused, a timeout, a dead server
                            results[call["tool"]] = (True, f"{type(exc).__name__}: {exc}")
                            try:
                                await asyncio.wait_for(client.ping(), 10)
                            except Exception:
                                break  # a new server for the calls after it
            except Exception as exc:  # closing a dead server, or one that did not start
                if not started:  # every call left says why
                    for call in pending:
                        results[call["tool"]] = (True, f"{type(exc).__name__}: {exc}")
                    pending = []
        return results

    return asyncio.run(run())


async def receiver(client, session, arguments):
    """The handle a doctest session builds (its constructor, then its setup calls, a chain's
    call handing on what it returns); the steps that build an argument (``into``) put their
    result in ``arguments``, and its setup calls (``on``) are made on that result."""
    handle = None
    after = []  # the session's object after each step (a later step may take one)
    results = {}  # what each step that builds an argument returned, by its index
    for index, step in enumerate(session):
        after.append(handle)
        if step.get("on") is not None:  # a setup call of an argument built before
            given = dict(step["arguments"])
            given[step["receiver"]] = results[step["on"]]
            raw = await client.call_tool_mcp(step["tool"], given)
            assert not raw.is_error, raw
            continue
        if step.get("into"):
            raw = await client.call_tool_mcp(step["tool"], dict(step["arguments"]))
            assert not raw.is_error, raw
            value = (raw.structured_content or {}).get("result")
            if step.get("part") is not None:  # one item of a result the line unpacked
                value = value[step["part"]]
            if isinstance(value, dict) and isinstance(value.get("handle"), str):
                value = {"handle": value["handle"]}
            results[index] = value
            if step.get("feeds") is not None:  # an argument of a later setup call
                continue
            if step.get("item") is None:
                arguments[step["into"]] = value
            else:  # an item of a *args list: the steps come in the list's order
                if step["item"] == 0:
                    arguments[step["into"]] = []
                arguments[step["into"]].append(value)
            continue
        if step.get("attribute"):  # an instance the class holds: passed by its name
            handle = after[-1] = {"attribute": step["attribute"]}
            continue
        given = dict(step["arguments"])
        for name, index in (step.get("takes") or {}).items():  # a list: item by item
            given[name] = [after[i] for i in index] if isinstance(index, list) else after[index]
        for fed, earlier in enumerate(session[: len(after) - 1]):  # built for this call
            if earlier.get("feeds") == len(after) - 1 and earlier.get("into"):
                given[earlier["into"]] = results[fed]
        if step["receiver"]:
            given[step["receiver"]] = handle
        raw = await client.call_tool_mcp(step["tool"], given)
        assert not raw.is_error, raw
        if not step["receiver"] or step.get("chained"):  # built, or a chain's result
            value = (raw.structured_content or {}).get("result")
            if not isinstance(value, dict) or not isinstance(value.get("handle"), str):
                # ``path = get_testdata_file("CT_small.dcm")`` then ``dcmread(path)``: a
                # value a later step takes as it is (validate/sessions.py replays it so)
                after[-1] = value
                continue
            handle = {"handle": value["handle"]}
            after[-1] = handle
    return handle


SHIPPED = "/site-packages/"


def same(value, expected):
    if isinstance(expected, str) and isinstance(value, str) and SHIPPED in expected:
        # A file the package ships, answered as its path: validated in the sandbox's view
        # of the environment (/venv), replayed wherever this server's environment is.
        return SHIPPED in value and value.rsplit(SHIPPED, 1)[1] == expected.rsplit(SHIPPED, 1)[1]
    if isinstance(expected, float) and isinstance(value, (int, float)):
        return math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(expected, list) and isinstance(value, list):
        return len(value) == len(expected) and all(map(same, value, expected))
    if isinstance(expected, dict) and isinstance(value, dict) and "handle" in expected:
        # A handle's id is new in each server process: the object is its type and repr
        # (a constructor's number matched its documented value by that repr), but for the
        # memory address a repr may show, new in each process too.
        # The attributes its docs read (``fields``) are the values it was validated by:
        # compared as such, and its repr then is not (a random system's differs each run).
        keys = ("type",) if expected.get("fields") else ("type", "repr")
        return all(
            ADDRESS.sub("0x?", str(value.get(key))) == ADDRESS.sub("0x?", str(expected.get(key)))
            for key in keys
        ) and same(value.get("fields"), expected.get("fields"))
    if isinstance(expected, dict) and isinstance(value, dict):
        keys = expected.keys()
        return value.keys() == keys and all(same(value[k], expected[k]) for k in keys)
    return value == expected


def shape_of(value, part=None):
    """The shape of the array ``value`` (or its item at ``part``: an index, or one per level
    of a nested unpacking) is the list form of; None for a ragged list."""
    for place in [] if part is None else [part] if isinstance(part, int) else part:
        if not isinstance(value, list) or not -len(value) <= place < len(value):
            return None
        value = value[place]
    if isinstance(value, dict) and value.get("truncated") is True:
        return value.get("shape")  # an array too large to answer whole: its notice's
    return list_shape(value)  # None for an item, a frame, a handle: compared whole


@pytest.mark.parametrize("call", CALLS, ids=[c["tool"] for c in CALLS])
def test_tool_answers_as_validated(call):
    is_error, value = replayed()[call["tool"]]
    assert not is_error, value
    shaped = call.get("shape_of")
    validated = shape_of(call["result"], shaped["part"]) if shaped is not None else None
    if call["check"] == "expected-value" and validated is not None:
        # Proven by an array's shape: its items may be a random sample, new each run.
        got = shape_of(value, shaped["part"])
        assert got == validated, f"answered an array of shape {got}, validated {validated}"
    elif call["check"] == "expected-value":
        # The message is the reason the conversion reports for a tool left out.
        assert same(value, call["result"]), f"answered {value!r}, validated {call['result']!r}"
    elif isinstance(call["result"], dict) and "handle" in call["result"]:
        assert isinstance(value, dict) and value.get("type") == call["result"]["type"]
