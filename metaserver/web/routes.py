"""The page's routes on the meta-server's HTTP app: the shell at ``/``, its two static files,
the fragments under ``/ui/`` and ``/metrics``.

Routes are FastMCP custom routes, so they sit behind the same app-wide Host and Origin guard
as ``/mcp``; each data route checks the token through :class:`metaserver.web.auth.PageAuth`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from metaserver.auth.quotas import QuotaExceeded
from metaserver.exceptions import NotFoundError, UserError
from metaserver.input_limits import MAX_QUERY_CHARS, load_json
from metaserver.server.conversion_tools import start_conversion
from metaserver.server.proxied_call import check_arguments
from metaserver.server.state import MetaState
from metaserver.telemetry.calls import observed_call
from metaserver.telemetry.metrics import exposition, timed_search
from metaserver.web.auth import PageAuth, refused
from metaserver.web.conversion_views import conversions_view, failed_report_view, failed_view
from metaserver.web.forms import result_view
from metaserver.web.markup import shown
from metaserver.web.registry_views import search_view, server_view, servers_view, tool_view

Handler = Callable[[Request], Awaitable[Response]]
_STATIC = {"page.js": "text/javascript", "page.css": "text/css"}
# No asset from elsewhere, no framing, nothing cached: the fragments hold registry data.
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
}
_MAX_SOURCE = 4096
_SEARCH_LIMIT = 20


def add_page(mcp: FastMCP[Any], state: MetaState) -> None:
    """Add the registry page and ``/metrics`` to ``mcp``'s HTTP app."""
    settings, registry, home = state.settings, state.registry, state.settings.home
    page_auth = PageAuth(settings, registry)

    def route(path: str, methods: tuple[str, ...] = ("GET",)) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            @functools.wraps(handler)
            async def guarded(request: Request) -> Response:
                if not await page_auth.authorized(request):
                    return refused()
                return await handler(request)

            mcp.custom_route(path, methods=list(methods), include_in_schema=False)(guarded)
            return guarded

        return register

    @mcp.custom_route("/", methods=["GET"], include_in_schema=False)
    async def shell(_: Request) -> Response:
        return HTMLResponse(_asset("index.html"), headers=_HEADERS)

    @mcp.custom_route("/ui/static/{name}", methods=["GET"], include_in_schema=False)
    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC:
            return _fragment("<p>not found</p>", 404)
        return Response(_asset(name), media_type=_STATIC[name], headers=_HEADERS)

    @route("/metrics")
    async def metrics(_: Request) -> Response:
        body, content_type = exposition()
        return Response(body, headers={"Content-Type": content_type, "Cache-Control": "no-store"})

    @route("/ui/servers")
    async def servers(request: Request) -> Response:
        summaries = await asyncio.to_thread(registry.summaries)
        return _fragment(servers_view(summaries, _page(request), home))

    @route("/ui/server/{name}")
    async def server(request: Request) -> Response:
        name, version = request.path_params["name"], request.query_params.get("version") or None
        try:
            record = await asyncio.to_thread(registry.get, name, version)
        except NotFoundError as exc:
            return _fragment(f'<p class="error">{shown(exc, home)}</p>', 404)
        versions = await asyncio.to_thread(registry.versions, name)
        view = await asyncio.to_thread(server_view, record, versions, _page(request), home)
        return _fragment(view)

    @route("/ui/tool/{server}/{tool}")
    async def tool(request: Request) -> Response:
        name, version = request.path_params["server"], request.query_params.get("version") or None
        try:
            record = await asyncio.to_thread(registry.get, name, version)
        except NotFoundError as exc:
            return _fragment(f'<p class="error">{shown(exc, home)}</p>', 404)
        spec = next((t for t in record.tools if t.name == request.path_params["tool"]), None)
        if spec is None:
            return _fragment('<p class="error">no such tool</p>', 404)
        return _fragment(tool_view(record, spec, home))

    @route("/ui/search")
    async def search(request: Request) -> Response:
        query = request.query_params.get("q", "").strip()[:MAX_QUERY_CHARS]
        if not query:
            return _fragment('<p class="empty">Type what you need done.</p>')
        # Imported here: the ranking brings numpy, which a start need not wait for (issue 31).
        from metaserver.registry.search import search_tools

        state.search.searched()
        with timed_search():
            hits = await asyncio.to_thread(search_tools, registry, query, None, _SEARCH_LIMIT)
        return _fragment(search_view(query, hits, home))

    @route("/ui/call", methods=("POST",))
    async def call(request: Request) -> Response:
        try:
            asked = await _json_body(request)
            name, tool_name = str(asked["server"]), str(asked["tool"])
            arguments = asked.get("arguments") or {}
            if not isinstance(arguments, dict):
                raise UserError("arguments must be a JSON object")
            record = await asyncio.to_thread(
                registry.get, name, str(asked.get("version") or "") or None
            )
        except (UserError, NotFoundError, KeyError) as exc:
            return _fragment(f'<div class="error" id="value">{shown(exc, home)}</div>', 400)
        spec = next((t for t in record.tools if t.name == tool_name), None)
        if spec is None:
            return _fragment('<div class="error" id="value">no such tool</div>', 404)
        problem = check_arguments(spec.input_schema, arguments)
        if problem is not None:
            return _fragment(f'<div class="error" id="value">{shown(problem, home)}</div>', 400)
        result = await observed_call(
            record.name, tool_name, state.pool.call(record, tool_name, arguments)
        )
        return _fragment(result_view(result, home))

    @route("/ui/conversions")
    async def conversions(_: Request) -> Response:
        return _fragment(conversions_view(state.jobs.all(), home))

    @route("/ui/conversions", methods=("POST",))
    async def convert(request: Request) -> Response:
        try:
            asked = await _json_body(request)
            source = str(asked.get("source") or "").strip()
            ref = str(asked.get("ref") or "").strip() or None
            if not source or len(source) > _MAX_SOURCE:
                raise UserError(f"a source of 1 to {_MAX_SOURCE} characters is needed")
            start_conversion(state, source, ref)
        except (UserError, QuotaExceeded) as exc:
            return _fragment(f'<p class="error">{shown(exc, home)}</p>', 400)
        return _fragment(conversions_view(state.jobs.all(), home))

    @route("/ui/conversions/{job}/cancel", methods=("POST",))
    async def cancel(request: Request) -> Response:
        job = state.jobs.find(request.path_params["job"])
        if job is None or job.id != request.path_params["job"]:
            return _fragment('<p class="error">no such conversion</p>', 404)
        await state.jobs.cancel(job)
        return _fragment(conversions_view(state.jobs.all(), home))

    @route("/ui/failed")
    async def failed(_: Request) -> Response:
        return _fragment(await asyncio.to_thread(failed_view, settings))

    @route("/ui/failed/{entry}")
    async def failed_one(request: Request) -> Response:
        view = await asyncio.to_thread(failed_report_view, settings, request.path_params["entry"])
        if view is None:
            return _fragment('<p class="error">no such failed conversion</p>', 404)
        return _fragment(view)


def _fragment(body: str, status: int = 200) -> Response:
    return HTMLResponse(body, status_code=status, headers=_HEADERS)


def _page(request: Request) -> int:
    text = request.query_params.get("page", "1")
    return min(int(text), 1_000_000) if text.isdigit() and len(text) < 8 else 1


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (its size bounded by BoundedBodies, depth and numbers here).

    Raises:
        UserError: not a JSON object within the bounds.
    """
    body = await request.body()
    value = load_json(body.decode("utf-8", "replace"), "the request")
    if not isinstance(value, dict):
        raise UserError("the request must be a JSON object")
    return value


@functools.cache
def _asset(name: str) -> bytes:
    return (resources.files("metaserver.web") / "static" / name).read_bytes()
