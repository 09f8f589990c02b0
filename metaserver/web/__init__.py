"""The registry page of ``metaserver serve --transport http`` (door: :func:`add_page`).

The shell at ``/`` holds no data: a sign-in form and a little plain JavaScript
(``static/page.js``) that keeps the token in the browser's session storage and fetches the
server-rendered fragments under ``/ui/`` with it, as a bearer header. Every fragment and
``/metrics`` pass the same Host and Origin guard as ``/mcp`` (FastMCP's, app-wide) and the
token check of :mod:`metaserver.web.auth`.
"""

from metaserver.web.routes import add_page

__all__ = ["add_page"]
