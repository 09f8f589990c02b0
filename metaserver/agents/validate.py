"""Validation stage: call every tool through a real MCP client, and keep the evidence.

The generated server is started exactly as it will be served (``launch.server_command``),
with the environment's interpreter, through the sandbox. Only a tool with evidence is
published (DESIGN decision 5).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastmcp import Client

from metaserver.agents.compare import matches, normalise
from metaserver.agents.review import classify
from metaserver.contracts import Environment, Evidence, Example, ToolEvidence, ToolSpec
from metaserver.exceptions import ValidationError
from metaserver.launch import server_command, stdio_transport
from metaserver.sandbox import Sandbox
from metaserver.settings import Settings

logger = logging.getLogger(__name__)

MAX_ERROR = 600


@asynccontextmanager
async def connect(
    server_dir: Path, environment: Environment, settings: Settings, sandbox: Sandbox
) -> AsyncIterator[Client[Any]]:
    """A connected MCP client for the generated server (legacy era: a real initialize)."""
    command = server_command(
        sandbox, environment.python_path, server_dir, settings.timeouts.server_start
    )
    client: Client[Any] = Client(
        stdio_transport(command, keep_alive=False),
        mode="legacy",
        init_timeout=settings.timeouts.server_start,
        timeout=settings.timeouts.tool_call,
    )
    try:
        async with client:
            yield client
    except ValidationError:
        raise
    except Exception as exc:
        if isinstance(exc, ExceptionGroup):
            exc = exc.exceptions[0]
        raise ValidationError(f"the generated server did not start or answer: {exc}") from exc


async def validate(
    server_dir: Path,
    specs: list[ToolSpec],
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
) -> list[ToolEvidence]:
    """Call each tool with its best example; one ToolEvidence per spec, in order.

    Raises:
        ValidationError: the server did not answer ``initialize`` or ``tools/list``, or listed
            other tools than were generated (``mcp_spec_violation``).
    """
    results: list[ToolEvidence] = []
    async with connect(server_dir, environment, settings, sandbox) as client:
        listed = {tool.name for tool in await client.list_tools()}
        missing = {spec.name for spec in specs} - listed
        if missing:
            raise ValidationError(f"tools/list lacks generated tools: {sorted(missing)}")
        for spec in specs:
            results.append(await _check(client, spec, settings))
    return results


async def _check(client: Client[Any], spec: ToolSpec, settings: Settings) -> ToolEvidence:
    example = _best_example(spec)
    evidence = Evidence(
        arguments=example.arguments,
        expected=example.expected if example.has_expected else None,
        check="expected-value" if example.has_expected else "no-error",
    )
    try:
        raw = await client.call_tool_mcp(
            spec.name, example.arguments, timeout=settings.timeouts.tool_call
        )
    except Exception as exc:  # a timeout or a dead child: the tool failed, the run goes on
        error = _short(f"{type(exc).__name__}: {exc}")
        return _failed(spec, evidence, error)
    if raw.is_error:
        text = " ".join(getattr(c, "text", "") for c in raw.content)
        return _failed(spec, evidence, _short(text or "error without a message"))
    evidence.result = _result_value(raw.structured_content, raw.content)
    if example.has_expected and not matches(evidence.result, example.expected, example.wrapper):
        return ToolEvidence(
            name=spec.name,
            target=spec.target,
            status="failed",
            evidence=evidence,
            error=_short(
                f"expected {json.dumps(normalise(example.expected))[:200]}, "
                f"got {json.dumps(evidence.result, default=str)[:200]}"
            ),
            failure_type="repo_internal_bug",
        )
    return ToolEvidence(name=spec.name, target=spec.target, status="passed", evidence=evidence)


def _best_example(spec: ToolSpec) -> Example:
    with_expected = [e for e in spec.examples if e.has_expected]
    return (with_expected or spec.examples or [Example(arguments={}, origin="synthesised")])[0]


def _result_value(structured: dict[str, Any] | None, content: list[Any]) -> Any:
    if structured is not None and "result" in structured:
        return structured["result"]
    text = "".join(getattr(c, "text", "") for c in content)
    try:
        return json.loads(text)
    except ValueError:
        return text


def _failed(spec: ToolSpec, evidence: Evidence, error: str) -> ToolEvidence:
    return ToolEvidence(
        name=spec.name,
        target=spec.target,
        status="failed",
        evidence=evidence,
        error=error,
        failure_type=classify(error),
    )


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 3] + "..."
