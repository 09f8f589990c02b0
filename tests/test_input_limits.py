"""The bounds of metaserver/input_limits.py, and a property-based fuzz of every surface that
reads outside input through them: the command-line parsers and JSON_ARGS, the stdio line
reader, and the meta-tools' arguments. Each property says what any input may end in (a
value, or a clear refusal), never what one input gives, so a counter-example is a real bug.

Example counts are fixed per test (a few seconds in all on CI, with the ``ci`` profile's
fixed seed from conftest.py)."""

from __future__ import annotations

import asyncio
import io
import json
import math
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from fake_children import fast_settings, register_fake
from fastmcp import Client
from fastmcp.exceptions import ToolError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metaserver.children.bad_lines import TOO_LONG, BoundedLines, judge
from metaserver.cli import build_parser, main
from metaserver.exceptions import UserError
from metaserver.input_limits import (
    MAX_JSON_DEPTH,
    MAX_NUMBER_CHARS,
    check_query,
    json_problem,
    load_json,
    read_text_file,
)

FAST = settings(max_examples=200, deadline=None)
SLOW = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)
# Text that looks like JSON often: its punctuation, digits and words, and anything else.
json_like = st.text(alphabet=st.sampled_from(list('[]{}",:.-+eE0123456789 \\nNaInfityrulsf')))


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_depth_bound_is_exact() -> None:
    assert json_problem(nested(MAX_JSON_DEPTH)) is None
    assert (
        json_problem(nested(MAX_JSON_DEPTH + 1)) == "it is nested too deeply (more than 100 levels)"
    )
    # Brackets inside a string are text, not nesting.
    assert json_problem(json.dumps({"a": "[" * 5000})) is None


def test_number_bound_is_exact() -> None:
    assert load_json("9" * MAX_NUMBER_CHARS, "X") == int("9" * MAX_NUMBER_CHARS)
    with pytest.raises(UserError, match="X is refused: it holds a number longer than 1000"):
        load_json("9" * (MAX_NUMBER_CHARS + 1), "X")
    assert load_json(json.dumps({"n": "9" * 5000}), "X") == {"n": "9" * 5000}


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "1e999"])
def test_non_finite_numbers_are_refused(text: str) -> None:
    with pytest.raises(UserError, match="holds"):
        load_json(text, "X")


def test_read_text_file_refuses_what_is_not_a_bounded_regular_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is not a regular file"):
        read_text_file(Path("/dev/zero"), "the file")
    with pytest.raises(UserError, match="is not a regular file"):
        read_text_file(tmp_path, "the file")
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(UserError, match="is larger than 100 bytes"):
        read_text_file(big, "the file", max_bytes=100)
    (tmp_path / "latin").write_bytes(b"caf\xe9\n")
    with pytest.raises(UserError, match="is not UTF-8 text"):
        read_text_file(tmp_path / "latin", "the file")
    (tmp_path / "ok").write_text("pypi:x\n")
    assert read_text_file(tmp_path / "ok", "the file") == "pypi:x\n"


def test_check_query() -> None:
    check_query("q" * 2000, "query")
    with pytest.raises(UserError, match="query is longer than 2000 characters"):
        check_query("q" * 2001, "query")


@FAST
@given(json_values)
def test_any_json_value_within_the_bounds_reads_back(value: Any) -> None:
    assert load_json(json.dumps(value), "X") == value


@FAST
@given(st.one_of(json_like, st.text()))
def test_any_text_is_read_or_refused_in_words(text: str) -> None:
    try:
        value = load_json(text, "X")
    except UserError as exc:
        assert str(exc).startswith("X ") and "\n" not in str(exc)
    else:
        assert json.loads(text) == value


@FAST
@given(st.lists(st.text(max_size=30), max_size=8))
def test_cli_parser_ends_in_a_namespace_or_a_usage_exit(argv: list[str]) -> None:
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:
        assert exc.code in (0, 2)  # --help / --version, or a usage error


@SLOW
@given(text=st.one_of(json_like, st.builds(json.dumps, json_values)))
def test_cli_call_with_any_json_args_exits_2(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever JSON_ARGS holds, `call` with no such server ends in exit 2 and a message:
    bad JSON, a value past the bounds, or no registered server; never an internal error."""
    assert main(["call", "no-such-server", "t", "--", text]) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and err.startswith("metaserver: ")


@FAST
@given(st.one_of(st.binary(max_size=300), st.builds(lambda t: t.encode(), json_like)))
def test_stdio_judge_answers_or_passes_any_line(line: bytes) -> None:
    answer = judge(line)
    if answer is None:  # passed on: the SDK's reader must take it as a message
        if line.strip():
            text = line.decode("utf-8", "replace")
            message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
            assert not _holds_non_finite(message.model_dump())
    else:
        assert answer.id is None and answer.error.code in (-32700, -32600)


@FAST
@given(st.lists(st.binary(max_size=40), max_size=10), st.integers(min_value=1, max_value=30))
def test_bounded_lines_hold_no_line_past_the_limit(chunks: list[bytes], limit: int) -> None:
    """Each line comes back as it was when its text (without the newline) fits the limit,
    else as TOO_LONG; none is lost, none is split."""
    data = b"".join(chunks)
    got = list(BoundedLines(io.BytesIO(data), limit=limit))
    wanted = [line if len(line.removesuffix(b"\n")) <= limit else TOO_LONG for line in _lines(data)]
    assert got == wanted


def _lines(data: bytes) -> list[bytes]:
    """``data`` split after each newline (the last line may lack one)."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _holds_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_holds_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_non_finite(v) for v in value)
    return False


meta_arguments = st.fixed_dictionaries(
    {},
    optional={
        "query": st.one_of(st.none(), st.text(max_size=50), st.just("q" * 2001)),
        "server": st.one_of(st.none(), st.text(max_size=20), st.just("alpha")),
        "tool": st.text(max_size=20),
        "task": st.one_of(st.text(max_size=50), st.just("t" * 2001)),
        "limit": st.one_of(st.integers(), st.text(max_size=5)),
        "arguments": st.one_of(st.none(), json_values),
        "name": st.text(max_size=20),
        "url": st.one_of(st.text(max_size=40), st.just("http://127.0.0.1:9/mcp")),
    },
)


@pytest.mark.integration
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tool=st.sampled_from(
        ["list_tools", "find_tools", "call_generated", "add_server", "list_servers"]
    ),
    arguments=meta_arguments,
)
def test_meta_tools_answer_any_arguments_with_a_result_or_a_tool_error(
    tool: str, arguments: dict[str, Any], tmp_path: Path
) -> None:
    """Through a real FastMCP client, in process: no argument makes a meta-tool hang or fail
    otherwise than with a ToolError; add_server never reaches an unlisted URL."""
    from metaserver.server.app import build_server

    home = tmp_path / "fuzz-home"
    app_settings = fast_settings(home)
    if not (home / "registry.sqlite3").exists():
        register_fake(app_settings, "alpha")

    async def call() -> None:
        async with Client(build_server(app_settings)) as client:
            try:
                result = await asyncio.wait_for(client.call_tool(tool, arguments), 60)
            except ToolError as exc:
                assert "Traceback" not in str(exc)
                if tool == "add_server" and "url" in arguments and "command" not in arguments:
                    assert "did not answer" not in str(exc)  # refused before any connection
            else:
                assert not result.is_error

    asyncio.run(call())
