"""Files under the server's work directory as MCP resources (``work://<server>/<path>``).

A tool run (a notebook's, for now) writes files into the work directory; the client gets each
back as an embedded resource while the result budget lasts, and as a link it can read later
(``resources/read``) otherwise. Reading is confined to the work directory: a path that leaves
it, through ``..`` or a link, is refused. Standard library only: this module is copied into
generated servers.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from .decode import work_dir

__all__ = ["WorkFileError", "read_work_file", "work_uri", "written_resources"]

_TEXT_TYPES = ("application/json", "application/xml", "application/x-yaml", "image/svg+xml")


class WorkFileError(ValueError):
    """The path is not a file inside the work directory."""


def work_uri(server: str, relative: str) -> str:
    """The resource URI of ``relative`` (a path under the work directory)."""
    return f"work://{server}/{quote(relative, safe='/')}"


def mime_type(name: str) -> str:
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def is_text(mime: str) -> bool:
    return mime.startswith("text/") or mime in _TEXT_TYPES


def read_work_file(relative: str) -> tuple[bytes, str]:
    """The bytes and MIME type of the file at ``relative`` (URL-quoted or not) in work/.

    Raises:
        WorkFileError: the path leaves the work directory, or names no regular file.
    """
    root = work_dir().resolve()
    text = unquote(relative)
    if not text or Path(text).is_absolute() or "\x00" in text:
        raise WorkFileError(f"not a path inside the work directory: {relative!r}")
    path = (root / text).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise WorkFileError(f"no such file in the work directory: {relative!r}")
    return path.read_bytes(), mime_type(path.name)


def written_resources(
    server: str, files: list[dict[str, Any]], max_bytes: int
) -> list[dict[str, Any]]:
    """What to send for each written file: ``{"uri", "mime_type", "text" | "blob"}`` while
    the budget lasts, then ``{"uri", "mime_type", "name", "size"}`` (a link to read later)."""
    left = max_bytes
    resources: list[dict[str, Any]] = []
    for entry in files:
        relative = str(entry.get("path", ""))
        try:
            data, mime = read_work_file(relative)
        except (WorkFileError, OSError):
            continue
        uri = work_uri(server, relative)
        item: dict[str, Any] = {"uri": uri, "mime_type": mime}
        if is_text(mime):
            try:
                body: str | None = data.decode("utf-8")
            except UnicodeDecodeError:
                body, mime = None, "application/octet-stream"
                item["mime_type"] = mime
        else:
            body = None
        size = len(data) if body is not None else (len(data) + 2) // 3 * 4
        if size <= left:
            left -= size
            if body is not None:
                item["text"] = body
            else:
                item["blob"] = base64.b64encode(data).decode("ascii")
        else:
            item.update(name=Path(relative).name, size=len(data))
        resources.append(item)
    return resources
