"""Parse and validate a SOURCE argument (and its ``--ref``) into a :class:`Source`.

This is the gate in front of every network and subprocess use: it is pure validation (it may
look at the local file system, nothing else) and rejects anything it does not positively
recognise. The accepted forms are those of the command line (docs/ARCHITECTURE.md, "Contracts"):

* git URLs: ``https://``, ``http://``, ``ssh://``, ``file://`` and scp-like ``user@host:path``;
* ``pypi:NAME`` or ``pypi:NAME==VERSION``;
* an existing local directory;
* a local source archive (``.tar.gz``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``, ``.zip``).

A paper (``.pdf``, ``.md``, ``.markdown``, ``.txt``) is a SOURCE too, but not one this module
parses: :mod:`.paper` reads it and each repository link it holds is parsed here, as any SOURCE.

Everything that git would treat as an option (a leading ``-``) or hand to a remote helper
(``transport::address``, such as ``ext::sh -c id``) is refused here, before git sees it.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import SplitResult, unquote, urlsplit

from metaserver.agents.fetch.local_guard import check_project_directory
from metaserver.agents.fetch.paper import PAPER_SUFFIXES
from metaserver.contracts import Source
from metaserver.exceptions import SourceError

__all__ = ["ARCHIVE_SUFFIXES", "PYPI_NAME_RE", "PYPI_VERSION_RE", "parse_source", "validate_ref"]

PYPI_NAME_RE = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
"""A distribution name, as PEP 508 defines it."""

PYPI_VERSION_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.!+_-]{0,62}[A-Za-z0-9])?$")
"""A conservative superset of PEP 440 spellings: the characters a version may use, no more."""

_PYPI_PREFIX = "pypi:"
_GIT_SCHEMES = frozenset({"https", "http", "ssh", "file"})
_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
# git hands ``<transport>::<address>`` to the remote helper ``git-remote-<transport>``; ``ext``
# runs an arbitrary command, and the others are no better known, so the whole form is refused.
_REMOTE_HELPER_RE = re.compile(r"^[A-Za-z0-9+.-]+::")
# What RFC 3986 allows in a URL, plus ``%`` for escapes. Anything else (space, quotes,
# backslash, backtick, braces, ``|``, ``^``, ``<>``) has no business in a repository URL.
_URL_CHARS_RE = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+$")
_SCP_RE = re.compile(
    r"^(?P<user>[A-Za-z0-9._~+-]+)@(?P<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(?P<path>.+)$"
)
_HOST_RE = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.?)+$|^\[[0-9A-Fa-f:.]+\]$")
_REF_FORBIDDEN = re.compile(r"[~^:?*\[\\]|@\{|//|\.\.")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip")
"""Local files accepted as SOURCE: source archives, unpacked like an sdist."""
_MAX_SOURCE_LENGTH = 4096
_MAX_REF_LENGTH = 255


def parse_source(text: str, ref: str | None = None) -> Source:
    """Turn a SOURCE argument into a validated :class:`Source`; nothing is fetched.

    Args:
        text: The SOURCE as the user gave it. Surrounding whitespace is ignored.
        ref: A git branch, tag or commit (``--ref``). Only git sources accept one; an empty
            string means no ref.

    Returns:
        The parsed source. ``location`` is the URL for git, the resolved absolute path for a
        local directory, and the distribution name for pypi.

    Raises:
        SourceError: The source or the ref is malformed, unsafe, or names a local path that is
            not an existing directory. The message is one line and names the problem.
    """
    stripped = text.strip()
    _check_common(stripped)
    ref = ref or None

    if stripped[: len(_PYPI_PREFIX)].lower() == _PYPI_PREFIX:
        name, version = _parse_pypi(stripped[len(_PYPI_PREFIX) :])
        _refuse_ref(ref, "pypi")
        return Source(kind="pypi", location=name, version=version, original=text)

    if _REMOTE_HELPER_RE.match(stripped):
        transport = stripped.split("::", 1)[0]
        raise SourceError(
            f"git remote helpers ('{transport}::...') are not allowed as SOURCE: {stripped!r}"
        )

    if "://" in stripped:
        url = _parse_url(stripped)
        return Source(kind="git", location=url, ref=validate_ref(ref), original=text)

    scp = _SCP_RE.match(stripped)
    if scp:
        _check_scp(stripped, scp)
        return Source(kind="git", location=stripped, ref=validate_ref(ref), original=text)

    path = _parse_local(stripped)
    if path.is_file():
        _refuse_ref(ref, "local archive")
        return Source(kind="archive", location=str(path), original=text)
    _refuse_ref(ref, "local directory")
    return Source(kind="local", location=str(path), original=text)


def validate_ref(ref: str | None) -> str | None:
    """Check a git ref (branch, tag or commit) against options and path tricks.

    This is a conservative subset of ``git check-ref-format``: it refuses what could be read as
    an option or walk a path, not merely what git would refuse anyway.

    Args:
        ref: The ref, or None (or an empty string) for the remote's default branch.

    Returns:
        The ref unchanged, or None.

    Raises:
        SourceError: The ref is unsafe or malformed.
    """
    if not ref:
        return None
    shown = repr(ref)
    if len(ref) > _MAX_REF_LENGTH:
        raise SourceError(f"--ref is longer than {_MAX_REF_LENGTH} characters")
    if _has_control_or_space(ref):
        raise SourceError(f"--ref must not contain whitespace or control characters: {shown}")
    if ref.startswith("-"):
        raise SourceError(f"--ref must not start with '-' (it would be read as an option): {shown}")
    if _REF_FORBIDDEN.search(ref):
        raise SourceError(f"--ref contains a character sequence git refs may not use: {shown}")
    if ref.startswith(("/", ".")) or ref.endswith(("/", ".", ".lock")) or "/." in ref:
        raise SourceError(f"--ref is not a valid git ref name: {shown}")
    if ref == "@":
        raise SourceError("--ref '@' is not a branch, tag or commit")
    return ref


def _check_common(text: str) -> None:
    """Refusals that apply to every form of SOURCE."""
    if not text:
        raise SourceError("SOURCE is empty: give a git URL, a local directory or pypi:NAME")
    if len(text) > _MAX_SOURCE_LENGTH:
        raise SourceError(f"SOURCE is longer than {_MAX_SOURCE_LENGTH} characters")
    if text.startswith("-"):
        raise SourceError(
            f"SOURCE must not start with '-' (it would be read as an option): {text!r}"
        )
    if any(_is_control(ch) for ch in text):
        raise SourceError(f"SOURCE contains control characters: {text!r}")


def _parse_pypi(spec: str) -> tuple[str, str | None]:
    """Split ``NAME`` or ``NAME==VERSION`` and check both parts."""
    name, sep, version = spec.partition("==")
    if not name:
        raise SourceError("pypi: SOURCE needs a package name, as in pypi:NAME or pypi:NAME==1.0")
    if not PYPI_NAME_RE.match(name):
        raise SourceError(
            f"not a valid package name: {name!r} (use pypi:NAME or pypi:NAME==VERSION)"
        )
    if not sep:
        return name, None
    if not PYPI_VERSION_RE.match(version):
        raise SourceError(
            f"not a valid version for {name}: {version!r} (only an exact ==VERSION pin is allowed)"
        )
    return name, version


def _parse_url(text: str) -> str:
    """Validate a ``scheme://`` git URL and return it unchanged."""
    scheme_match = _SCHEME_RE.match(text)
    scheme = scheme_match.group(1).lower() if scheme_match else ""
    if scheme not in _GIT_SCHEMES:
        shown = scheme or text.split("://", 1)[0]
        raise SourceError(
            f"unsupported URL scheme {shown!r}: use https://, http://, ssh://, file:// "
            "or user@host:path"
        )
    if not _URL_CHARS_RE.match(text):
        raise SourceError(f"URL contains whitespace or characters a URL may not hold: {text!r}")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - parsing the port is what validates it
    except ValueError as err:
        raise SourceError(f"malformed URL {text!r}: {err}") from None
    if parts.fragment or "#" in text:
        raise SourceError(f"a git URL may not have a '#fragment': {text!r}")
    if scheme == "file":
        _check_file_url(text, parts)
    else:
        _check_network_url(text, parts)
    return text


def _check_network_url(text: str, parts: SplitResult) -> None:
    """An https/http/ssh URL needs a plausible host and a repository path."""
    host = parts.hostname or ""
    if not host:
        raise SourceError(f"URL has no host: {text!r}")
    # ``ssh://-oProxyCommand=...`` would reach ssh as an option (CVE-2017-1000117).
    if host.startswith("-") or (parts.username or "").startswith("-"):
        raise SourceError(f"URL host or user must not start with '-': {text!r}")
    if not _HOST_RE.match(host) and not _HOST_RE.match(f"[{host}]"):
        raise SourceError(f"URL has an invalid host {host!r}: {text!r}")
    if parts.path.strip("/") == "":
        raise SourceError(f"URL names a host but no repository path: {text!r}")


def _check_file_url(text: str, parts: SplitResult) -> None:
    """A file:// URL must name an existing local path (checked now: it costs nothing)."""
    if parts.netloc not in ("", "localhost"):
        raise SourceError(f"file:// URLs must be local (file:///path): {text!r}")
    path = Path(unquote(parts.path))
    if not path.is_absolute() or parts.path.strip("/") == "":
        raise SourceError(f"file:// URL needs an absolute path: {text!r}")
    if not path.exists():
        raise SourceError(f"file:// URL names a path that does not exist: {path}")


def _check_scp(text: str, match: re.Match[str]) -> None:
    """``user@host:path``: the parts must not be readable as ssh or git options."""
    user, host, path = match.group("user"), match.group("host"), match.group("path")
    if user.startswith("-") or host.startswith("-") or path.startswith("-"):
        raise SourceError(f"user@host:path parts must not start with '-': {text!r}")
    if not _URL_CHARS_RE.match(text):
        raise SourceError(f"git address contains whitespace or unsafe characters: {text!r}")
    if path.strip("/") == "":
        raise SourceError(f"git address names a host but no repository path: {text!r}")


def _parse_local(text: str) -> Path:
    """An existing local directory or source archive, resolved to an absolute path."""
    path = Path(text).expanduser()
    if path.is_dir():
        resolved = path.resolve()
        check_project_directory(resolved)  # not /, a home directory or a system tree
        return resolved
    if path.is_file() and path.name.lower().endswith(ARCHIVE_SUFFIXES):
        return path.resolve()
    if path.exists():
        raise SourceError(
            f"SOURCE is not a directory or a source archive ({', '.join(ARCHIVE_SUFFIXES)}) "
            f"or a paper ({', '.join(PAPER_SUFFIXES)}): {text}"
        )
    scheme = _SCHEME_RE.match(text)
    # ``javascript:...``, ``data:...``, ``ftp:...`` are not paths that happen to be missing.
    if scheme and "/" not in text.split(":", 1)[0]:
        raise SourceError(
            f"unsupported SOURCE {text!r}: use a git URL, a local directory, or pypi:NAME"
        )
    raise SourceError(
        "SOURCE is not a git URL, pypi:NAME, or an existing local directory or source "
        f"archive: {text!r}"
    )


def _refuse_ref(ref: str | None, kind: str) -> None:
    if ref is not None:
        raise SourceError(f"--ref applies only to git sources, not to a {kind} source")


def _is_control(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")


def _has_control_or_space(text: str) -> bool:
    return any(ch.isspace() or _is_control(ch) for ch in text)
