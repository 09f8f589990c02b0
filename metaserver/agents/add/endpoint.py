"""What ``metaserver add`` is given, checked before anything runs: a command or a URL.

A stdio server's executable must be found (on PATH, or as a path) and be an executable file;
the command is never given to a shell. Its arguments are passed unchanged, except that a
relative path naming something in the current directory is refused: the server runs in its
own work directory, where such a path names nothing (docs/ARCHITECTURE.md, "Existing MCP
servers"). An HTTP server's URL must be ``http`` or ``https`` with a host and no credentials
in it (they belong in a header); each header must be ``Name: value`` with a token for a name.
Header values are secrets: no message here repeats one.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import SecretStr

from metaserver.exceptions import UserError
from metaserver.registry.records import Endpoint

__all__ = ["http_endpoint", "parse_header", "stdio_endpoint", "url_allowed"]

# RFC 9110 field names: a token.
_FIELD_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$")
# Set by the MCP client itself; a header of the same name would break the transport.
_TRANSPORT_HEADERS = frozenset(
    {
        "accept",
        "connection",
        "content-length",
        "content-type",
        "host",
        "last-event-id",
        "mcp-protocol-version",
        "mcp-session-id",
        "transfer-encoding",
    }
)


def stdio_endpoint(command: list[str], allow_network: bool = False) -> Endpoint:
    """The endpoint of a server started by ``command`` (its executable made absolute).

    Raises:
        UserError: no command, an executable that is not found or not executable, or an
            argument that cannot reach the sandboxed server as given.
    """
    if not command or not command[0].strip():
        raise UserError("give the server's command after '--', e.g. -- /usr/bin/my-server")
    for argument in command:
        if "\x00" in argument:
            raise UserError("the command holds a NUL character")
    executable = _executable(command[0])
    for argument in command[1:]:
        if not os.path.isabs(argument) and argument not in (".", "..") and _names_a_file(argument):
            absolute = os.path.abspath(argument)
            raise UserError(
                f"argument {argument!r} is a relative path: the server runs in a work "
                f"directory of its own, so give it as an absolute path ({absolute})"
            )
    return Endpoint(
        transport="stdio", command=[str(executable), *command[1:]], allow_network=allow_network
    )


def http_endpoint(url: str, headers: Mapping[str, str] | None = None) -> Endpoint:
    """The endpoint of a streamable HTTP server at ``url``, called with ``headers``.

    Raises:
        UserError: a URL that is not plain http(s) with a host, or a malformed header.
    """
    return Endpoint(transport="http", url=_checked_url(url), headers=_checked_headers(headers))


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` -> (name, value); the value is never repeated in an error.

    Raises:
        UserError: no colon, or an empty name.
    """
    name, colon, value = text.partition(":")
    if not colon or not name.strip():
        raise UserError("a header must be given as 'Name: value'")
    return name.strip(), value.strip()


def _executable(given: str) -> Path:
    if "/" in given:
        path = Path(os.path.abspath(given))
        if not path.exists():
            raise UserError(f"command {given!r} does not exist")
    else:
        found = shutil.which(given)
        if found is None:
            raise UserError(f"command {given!r} is not found on PATH")
        path = Path(os.path.abspath(found))
    if not path.is_file() or not os.access(path, os.X_OK):
        raise UserError(f"command {given!r} is not an executable file")
    return path


def _names_a_file(argument: str) -> bool:
    try:
        return Path(argument).exists()
    except (OSError, ValueError):
        return False


def _checked_url(url: str) -> str:
    url = url.strip()
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise UserError("the URL holds whitespace or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port  # raises for a malformed port
    except ValueError as exc:
        raise UserError(f"invalid URL: {exc}") from None
    del port
    if parts.scheme not in ("http", "https"):
        got = f"its scheme is {parts.scheme!r}" if parts.scheme else "it has no scheme"
        raise UserError(f"the URL must start with http:// or https:// ({got})")
    if not parts.hostname:
        raise UserError("the URL names no host")
    if parts.username is not None or parts.password is not None:
        # Kept out: the URL is listed, a credential is not.
        raise UserError("the URL holds credentials; pass them as a header instead")
    return url


def _checked_headers(headers: Mapping[str, str] | None) -> dict[str, SecretStr]:
    checked: dict[str, SecretStr] = {}
    seen: set[str] = set()
    for name, value in (headers or {}).items():
        if not _FIELD_NAME.match(name):
            raise UserError(f"invalid header name {name!r}")
        if name.lower() in _TRANSPORT_HEADERS:
            raise UserError(f"header {name!r} is set by the MCP transport itself")
        if name.lower() in seen:
            raise UserError(f"header {name!r} is given twice")
        if any(ch in value for ch in "\r\n\x00"):
            raise UserError(f"the value of header {name!r} holds a line break or NUL")
        seen.add(name.lower())
        checked[name] = SecretStr(value)
    return checked


def header_map(texts: Iterable[str]) -> dict[str, str]:
    """``--header`` options as a mapping (a repeated name is refused by
    :func:`http_endpoint`, so it is kept apart here)."""
    pairs = [parse_header(text) for text in texts]
    names = [name.lower() for name, _ in pairs]
    for name, _ in pairs:
        if names.count(name.lower()) > 1:
            raise UserError(f"header {name!r} is given twice")
    return dict(pairs)


def url_allowed(url: str, allowed: Iterable[str]) -> bool:
    """Whether ``url`` is one of ``allowed``, or lies under one that ends with ``/`` (same
    scheme, host and port; the path below it). Query and fragment must match exactly."""
    wanted = _url_key(url)
    if wanted is None:
        return False
    for entry in allowed:
        key = _url_key(entry)
        if key is None or key[:3] != wanted[:3] or key[4] != wanted[4]:
            continue
        if key[3] == wanted[3] or (key[3].endswith("/") and wanted[3].startswith(key[3])):
            return True
    return False


def _url_key(url: str) -> tuple[str, str, int, str, str] | None:
    """(scheme, host, port, path, query) with the default port filled in, or None."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    path = parts.path or "/"
    # A dot segment (plain or percent-encoded) could climb out of an allowed prefix.
    if any(seg in (".", "..") for seg in path.split("/")) or "%2e" in path.lower():
        return None
    return parts.scheme, parts.hostname.lower(), port, path, parts.query
