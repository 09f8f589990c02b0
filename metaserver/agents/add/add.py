"""Register an existing MCP server (``metaserver add``, the ``add_server`` meta-tool).

The server is started exactly as it will be served (:func:`metaserver.children.connect.
transport_for`: a stdio command in the sandbox, or its HTTP endpoint), asked for ``initialize``
and ``tools/list`` through a real MCP client, and its listing checked against what the MCP
specification demands (:func:`metaserver.agents.validate.protocol.listing_problems`). Only then
is it registered, in one transaction, as a server of kind ``added``: its tools get the same
rows, embeddings and search index as a converted server's, so search, ``call_generated`` and
the direct ``<server>_<tool>`` tools treat both alike. Any failure registers nothing and leaves
no directory behind.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import shlex
from typing import Any

from fastmcp import Client

from metaserver import GENERATOR_VERSION
from metaserver.agents.validate.protocol import listing_problems
from metaserver.children.connect import transport_for
from metaserver.contracts import check_server_name
from metaserver.exceptions import NameTakenError, UserError
from metaserver.fs import remove_tree
from metaserver.registry import Registry, ServerRecord, ToolRecord
from metaserver.registry.locks import ConversionLease
from metaserver.registry.records import Endpoint
from metaserver.sandbox import Sandbox, get_sandbox
from metaserver.settings import Settings

__all__ = ["add_server", "source_of"]

logger = logging.getLogger(__name__)


async def add_server(
    settings: Settings,
    name: str,
    endpoint: Endpoint,
    sandbox: Sandbox | None = None,
    reveal: bool = True,
) -> ServerRecord:
    """List, check and register the server at ``endpoint`` as ``name``.

    Args:
        settings: where the registry and the server's work directory live.
        name: the server's name (``[a-z0-9][a-z0-9_-]*``, not registered yet).
        endpoint: a checked endpoint (:mod:`metaserver.agents.add.endpoint`).
        sandbox: the backend for a stdio server (the configured one by default).
        reveal: whether a server that did not answer is told apart by why (refused,
            timed out, not MCP); False for an MCP client's request, whose errors must not
            say whether a port is open.

    Returns:
        The registered record.

    Raises:
        UserError: an invalid or taken name (:class:`NameTakenError`), or a server that did
            not start, failed ``initialize`` or ``tools/list``, or listed no or invalid tools.
    """
    check_server_name(name)
    registry = Registry(settings.registry_path)
    if registry.exists(name):
        raise NameTakenError(f"a server named {name!r} is registered already")
    if endpoint.transport == "stdio" and sandbox is None:
        sandbox = get_sandbox(settings.sandbox)
    version = secrets.token_hex(4)
    home = settings.servers_dir / f"{name}-{version}"
    record = ServerRecord(
        name=name,
        kind="added",
        endpoint=endpoint,
        version_id=version,
        source=source_of(endpoint),
        output_dir=home,
        python_path=home,
        venv=home,
        generator_version=GENERATOR_VERSION,
    )
    # Held until registered: a sweep in any process spares a directory whose lease is held.
    lease = ConversionLease(settings, version)
    try:
        (home / "work").mkdir(parents=True, exist_ok=True)
        listed = await _list_tools(settings, record, sandbox, reveal)
        record.tools = _tool_records(name, listed)
        registry.register(record, new_server=True)
    except BaseException:
        remove_tree(home)
        raise
    finally:
        lease.release()
    logger.info("added server %s (%s): %d tools", name, record.source, len(record.tools))
    return record


def source_of(endpoint: Endpoint) -> str:
    """What ``source`` says of an added server: its URL, or its command line (no secrets:
    header values are not part of it)."""
    if endpoint.transport == "http":
        return endpoint.url or ""
    return "stdio:" + shlex.join(endpoint.command)


async def _list_tools(
    settings: Settings, record: ServerRecord, sandbox: Sandbox | None, reveal: bool
) -> list[Any]:
    assert record.endpoint is not None
    budget = settings.timeouts.server_start
    transport = transport_for(record, sandbox, budget, keep_alive=False)
    client: Client[Any] = Client(transport, init_timeout=budget, timeout=budget)
    where = record.source
    try:
        async with client:
            tools = await client.list_tools()
    except Exception as exc:
        if not reveal:
            logger.info("add %s: %s", record.name, _scrub(_reason(exc), record.endpoint))
            raise UserError(
                f"server {record.name!r} ({where}) did not answer initialize and tools/list "
                "as an MCP server"
            ) from None
        reason = _scrub(_reason(exc), record.endpoint)
        raise UserError(
            f"server {record.name!r} ({where}) did not answer initialize and tools/list: {reason}"
        ) from None
    return list(tools)


def _tool_records(name: str, tools: list[Any]) -> list[ToolRecord]:
    if not tools:
        raise UserError(f"server {name!r} lists no tools: nothing to register")
    problems = listing_problems(tools)
    if problems:
        shown = "; ".join(problems[:5]) + ("; ..." if len(problems) > 5 else "")
        raise UserError(f"server {name!r} lists invalid tools, so it was not added: {shown}")
    records = []
    for tool in tools:
        description = (tool.description or "").strip()
        definition = {"name": tool.name, "description": description, "input": tool.input_schema}
        digest = hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()
        records.append(
            ToolRecord(
                name=tool.name,
                description=description,
                target=tool.name,  # an added tool's target is its name in its own server
                input_schema=tool.input_schema,
                definition_hash=digest,
            )
        )
    return records


def _reason(exc: BaseException) -> str:
    """The innermost message of ``exc`` (task groups wrap the real failure)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    while exc.__cause__ is not None and not str(exc).strip():
        exc = exc.__cause__
    # A pydantic error (a reply that is not JSON) ends in a link to pydantic's docs.
    lines = [
        line.strip()
        for line in str(exc).splitlines()
        if line.strip() and not line.strip().startswith("For further information visit")
    ]
    if isinstance(exc, TimeoutError) or not lines:
        return type(exc).__name__
    return lines[-1][:500]


def _scrub(text: str, endpoint: Endpoint) -> str:
    for value in endpoint.headers.values():
        secret = value.get_secret_value()
        if secret:
            text = text.replace(secret, "***")
    return text
