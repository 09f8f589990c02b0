"""Registered servers' resources and prompts, passed through the meta-server.

A generated server lists its resources and prompts in ``documents.json`` beside ``server.py``
(``agents/generate/documents.py``), so the meta-server lists them without starting the server:
resources keep their URIs (``doc://<server>/...`` and the template ``work://<server>/{path*}``
already name the server), prompts are namespaced as tools are (``<server>_<prompt>``). Reads
and prompt requests are forwarded to the server's lazily started, sandboxed child through the
same :class:`~metaserver.children.pool.ChildPool` as tool calls. Only a server's newest
version is passed through, as for direct tools.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import mcp_types
from fastmcp.exceptions import PromptError, ResourceError
from fastmcp.prompts import Message, Prompt, PromptResult
from fastmcp.prompts.base import PromptArgument
from fastmcp.resources import Resource, ResourceContent, ResourceResult, ResourceTemplate
from fastmcp.server.providers import Provider
from fastmcp.utilities.components import FastMCPComponent
from fastmcp.utilities.versions import VersionSpec
from pydantic import AnyUrl, PrivateAttr

from metaserver.auth.context import current_principal
from metaserver.children.pool import ChildPool, ChildRequestError
from metaserver.registry.records import ServerRecord
from metaserver.server.public import public_message

logger = logging.getLogger(__name__)

MANIFEST = "documents.json"  # as agents/generate/documents.py writes it (the serving side
# does not import a stage)
_SCHEMES = ("doc", "work")


def _contents(result: mcp_types.ReadResourceResult) -> ResourceResult:
    contents = []
    for item in result.contents:
        if isinstance(item, mcp_types.TextResourceContents):
            contents.append(ResourceContent(item.text, mime_type=item.mime_type))
        else:
            contents.append(ResourceContent(_blob(item), mime_type=item.mime_type))
    return ResourceResult(contents)


def _blob(item: mcp_types.BlobResourceContents) -> bytes:
    return base64.b64decode(item.blob)


async def _read(pool: ChildPool, record: ServerRecord, uri: str, home: Path) -> ResourceResult:
    try:
        return _contents(await pool.read_resource(record, uri))
    except ChildRequestError as exc:
        raise ResourceError(public_message(str(exc), home)) from None


class ChildResource(Resource):
    """One resource of a registered server, read from its child."""

    _pool: ChildPool = PrivateAttr()
    _record: ServerRecord = PrivateAttr()
    _home: Path = PrivateAttr()

    @property
    def server(self) -> str:
        """The registered server this comes from."""
        return self._record.name

    async def read(self) -> ResourceResult:
        return await _read(self._pool, self._record, str(self.uri), self._home)


class ChildTemplate(ResourceTemplate):
    """A registered server's template of files under its work directory."""

    _pool: ChildPool = PrivateAttr()
    _record: ServerRecord = PrivateAttr()
    _home: Path = PrivateAttr()

    @property
    def server(self) -> str:
        """The registered server this comes from."""
        return self._record.name

    async def _read(self, uri: str, params: dict[str, Any]) -> ResourceResult:
        return await _read(self._pool, self._record, uri, self._home)


class ChildPrompt(Prompt):
    """One prompt of a registered server, served as ``<server>_<prompt>``."""

    _pool: ChildPool = PrivateAttr()
    _record: ServerRecord = PrivateAttr()
    _inner: str = PrivateAttr()
    _home: Path = PrivateAttr()

    @property
    def server(self) -> str:
        """The registered server this comes from."""
        return self._record.name

    async def render(self, arguments: dict[str, Any] | None = None) -> PromptResult:
        values = {k: str(v) for k, v in (arguments or {}).items()}
        try:
            result = await self._pool.get_prompt(self._record, self._inner, values or None)
        except ChildRequestError as exc:
            raise PromptError(public_message(str(exc), self._home)) from None
        messages = [Message(m.content, role=m.role) for m in result.messages]
        return PromptResult(messages, description=result.description)


class DirectDocuments(Provider):
    """The registered servers' resources, work-file templates and prompts."""

    def __init__(self, pool: ChildPool, home: Path) -> None:
        super().__init__()
        self._pool = pool
        self._home = home
        self._resources: dict[str, ChildResource] = {}
        self._templates: dict[str, ChildTemplate] = {}
        self._prompts: dict[str, ChildPrompt] = {}
        self._mounted: dict[str, tuple[list[str], list[str], list[str]]] = {}
        # Called before each listing or lookup: a start mounts servers by name only and reads
        # their records (so their documents) when first needed (DirectTools.read_all).
        self.before_use: Callable[[], None] = _nothing

    # A principal limited to some servers (metaserver.auth) neither lists nor reads the
    # documents of the others: to it they do not exist.
    async def _list_resources(self) -> Sequence[Resource]:
        self.before_use()
        sees = current_principal().sees
        return [r for r in self._resources.values() if sees(r.server)]

    async def _get_resource(self, uri: str, version: VersionSpec | None = None) -> Resource | None:
        self.before_use()
        found = self._resources.get(uri)
        return found if found is not None and current_principal().sees(found.server) else None

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        self.before_use()
        sees = current_principal().sees
        return [t for t in self._templates.values() if sees(t.server)]

    async def _list_prompts(self) -> Sequence[Prompt]:
        self.before_use()
        sees = current_principal().sees
        return [p for p in self._prompts.values() if sees(p.server)]

    async def _get_prompt(self, name: str, version: VersionSpec | None = None) -> Prompt | None:
        self.before_use()
        found = self._prompts.get(name)
        return found if found is not None and current_principal().sees(found.server) else None

    async def get_tasks(self) -> Sequence[FastMCPComponent]:
        # None of these runs as a background task (a child answers inline), and the default
        # lists every component when the tasks extension starts: every record read at each
        # start, before the first answer (issue 31).
        return []

    def mount(self, record: ServerRecord) -> None:
        """Pass ``record``'s documents through, replacing those of an earlier version.

        A server without a readable manifest (generated before resources existed) has none;
        a URI that does not name the server, or a name taken, is left out with a warning.
        """
        self.unmount(record.name)
        manifest = _manifest(record.output_dir / MANIFEST)
        uris: list[str] = []
        for entry in manifest.get("resources", []):
            uri = str(entry.get("uri", ""))
            if not _names_server(uri, record.name) or uri in self._resources:
                logger.warning("not passing resource %r of %s through", uri, record.name)
                continue
            resource = ChildResource(
                uri=AnyUrl(uri),
                name=f"{record.name}_{entry.get('name', '')}",
                title=entry.get("title"),
                description=entry.get("description"),
                mime_type=str(entry.get("mime_type") or "text/plain"),
            )
            resource._pool, resource._record, resource._home = self._pool, record, self._home
            self._resources[uri] = resource
            uris.append(uri)
        templates: list[str] = []
        pattern = str(manifest.get("work_template", ""))
        if _names_server(pattern, record.name) and pattern not in self._templates:
            template = ChildTemplate(
                uri_template=pattern,
                name=f"{record.name}_work-file",
                description=f"A file a tool run of {record.name} wrote into its work directory.",
                mime_type="application/octet-stream",
                parameters={},
            )
            template._pool, template._record, template._home = self._pool, record, self._home
            self._templates[pattern] = template
            templates.append(pattern)
        names: list[str] = []
        for entry in manifest.get("prompts", []):
            name = f"{record.name}_{entry.get('name', '')}"
            if not entry.get("name") or name in self._prompts:
                continue
            prompt = ChildPrompt(
                name=name,
                title=entry.get("title"),
                description=entry.get("description"),
                arguments=[PromptArgument(**a) for a in entry.get("arguments") or []] or None,
            )
            prompt._pool, prompt._record = self._pool, record
            prompt._inner, prompt._home = str(entry["name"]), self._home
            self._prompts[name] = prompt
            names.append(name)
        self._mounted[record.name] = (uris, templates, names)

    def unmount(self, server: str) -> None:
        """Stop passing ``server``'s documents through."""
        uris, templates, names = self._mounted.pop(server, ([], [], []))
        for uri in uris:
            self._resources.pop(uri, None)
        for pattern in templates:
            self._templates.pop(pattern, None)
        for name in names:
            self._prompts.pop(name, None)


def _nothing() -> None:
    return None


def _names_server(uri: str, server: str) -> bool:
    """Whether ``uri`` is a doc:// or work:// URI of ``server`` (its authority)."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return False
    return parts.scheme in _SCHEMES and parts.netloc == server


def _manifest(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        logger.warning("unreadable %s: %s", path, exc)
        return {}
    return loaded if isinstance(loaded, dict) else {}
