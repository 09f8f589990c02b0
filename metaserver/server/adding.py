"""The ``add_server`` meta-tool: an existing MCP server joins the registry, as with
``metaserver add`` (:mod:`metaserver.agents.add`): the same checks, the same errors, except
two that keep a client from using the meta-server to probe the network: an HTTP server's URL
must be one the operator listed (``METASERVER_ADD__ALLOWED_URLS``, empty by default), and a
server that does not answer gets one message, whether its port was closed, silent or not
MCP."""

from __future__ import annotations

from typing import Annotated, Any

from fastmcp import Context, FastMCP
from pydantic import Field

from metaserver.contracts import check_server_name
from metaserver.exceptions import MetaServerError, UserError
from metaserver.registry.records import Endpoint
from metaserver.server.state import MetaState

ADD_SERVER = "add_server"


def add_adding_tools(mcp: FastMCP[Any], state: MetaState) -> None:
    """Register ``add_server`` on ``mcp``."""

    @mcp.tool(name=ADD_SERVER)
    async def add_server_tool(
        name: Annotated[str, Field(description="the new server's name: a-z, 0-9, '-', '_'")],
        ctx: Context,
        command: Annotated[
            str | None,
            Field(description="stdio: the executable (on PATH or an absolute path), no shell"),
        ] = None,
        args: Annotated[
            list[str] | None, Field(description="stdio: its arguments; files as absolute paths")
        ] = None,
        url: Annotated[
            str | None, Field(description="streamable HTTP: the server's http(s) URL")
        ] = None,
        headers: Annotated[
            dict[str, str] | None,
            Field(description="HTTP: headers sent with every request (kept secret)"),
        ] = None,
        allow_network: Annotated[
            bool,
            Field(
                description="stdio: let the sandboxed command reach the network (refused "
                "unless the operator allows it to clients)"
            ),
        ] = False,
    ) -> dict[str, Any]:
        """Register an existing MCP server, run sandboxed over stdio (command, args) or
        reached over streamable HTTP (url, headers): its tools are listed, checked, indexed
        for list_tools and find_tools, and served as <name>_<tool> and by call_generated."""
        # Imported on the first add, not at start: the stage pulls in validation's client
        # and its models, which the first answer of a meta-server never needs (issue 31).
        from metaserver.agents.add.add import add_server
        from metaserver.agents.add.endpoint import url_allowed

        try:
            if allow_network and not state.settings.sandbox.client_network:
                raise UserError(
                    "allow_network is refused to MCP clients here: network for an added "
                    "server is granted by its operator, with `metaserver add NAME "
                    "--allow-network -- COMMAND`, or for clients with "
                    "METASERVER_SANDBOX__CLIENT_NETWORK=true"
                )
            endpoint = _endpoint(command, args, url, headers, allow_network)
            check_server_name(name)
            if url is not None and not url_allowed(url, state.settings.add.allowed_urls):
                # Refused before any connection: a client cannot use add_server to learn
                # which hosts and ports answer.
                raise UserError(
                    "this URL is not one the operator allows MCP clients to add "
                    "(METASERVER_ADD__ALLOWED_URLS); `metaserver add NAME --url URL` on the "
                    "server's machine adds any"
                )
            record = await add_server(state.settings, name, endpoint, reveal=url is None)
        except MetaServerError as exc:
            raise state.fail(str(exc)) from None
        if state.settings.expose_direct_tools:
            state.direct.sync(state.registry)
        await state.notifier.notify(ctx)
        return {
            "added": record.name,
            "kind": record.kind,
            "source": record.source,
            "tools": [tool.name for tool in record.tools],
        }


def _endpoint(
    command: str | None,
    args: list[str] | None,
    url: str | None,
    headers: dict[str, str] | None,
    allow_network: bool,
) -> Endpoint:
    from metaserver.agents.add.endpoint import http_endpoint, stdio_endpoint

    if (command is None) == (url is None):
        raise UserError("give either command (a stdio server) or url (an HTTP server)")
    if url is not None:
        if args or allow_network:
            raise UserError("args and allow_network are for a stdio server, not a url")
        return http_endpoint(url, headers)
    if headers:
        raise UserError("headers are for an HTTP server, not a command")
    assert command is not None
    return stdio_endpoint([command, *(args or [])], allow_network)
