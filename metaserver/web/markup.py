"""Small HTML builders: every value escaped, every text scrubbed of host paths."""

from __future__ import annotations

import html
import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from metaserver.server.public import public_text


def shown(text: object, home: Path) -> str:
    """``text`` as a page may show it: escaped, with no host path (a ``file://`` URL's path
    too, which the scrubbing of messages leaves alone)."""
    plain = str(text).replace("file://", "file:")
    return html.escape(public_text(plain, home))


def part(text: str) -> str:
    """``text`` as one component of a page address (``#/server/NAME``)."""
    return quote(text, safe="")


def link(href: str, text: str) -> str:
    """A link to a view of the page; ``text`` is HTML already."""
    return f'<a href="{html.escape(href)}">{text}</a>'


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], css: str = "") -> str:
    """A table; ``rows`` hold HTML already."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    klass = f' class="{css}"' if css else ""
    return f"<table{klass}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def code(value: Any, home: Path) -> str:
    """A JSON value, pretty-printed and scrubbed, as a block."""
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    return f"<pre>{shown(text, home)}</pre>"


def pager(base: str, page: int, pages: int) -> str:
    """Previous and next links of a paginated view (``base`` ends in ``?...&`` or ``?``)."""
    if pages <= 1:
        return ""
    items = []
    if page > 1:
        items.append(link(f"{base}page={page - 1}", "&larr; previous"))
    items.append(f"<span>page {page} of {pages}</span>")
    if page < pages:
        items.append(link(f"{base}page={page + 1}", "next &rarr;"))
    return f'<nav class="pager">{" ".join(items)}</nav>'


def page_count(total: int, size: int) -> int:
    """How many pages ``total`` items fill."""
    return max(1, -(-total // size))


def when(timestamp: float) -> str:
    """A registration time, in UTC."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(timestamp))
