"""A project's static packaging metadata, read without running any of its code: ``PKG-INFO``
(a source distribution's), a wheel's ``METADATA``, ``pyproject.toml``, ``setup.cfg`` and
``setup.py`` as text.

Fetch reads the name and version from them (agents/fetch/metadata.py), the environment the
``Requires-Python`` (agents/environment/interpreters.py) and the requirements and extras
(agents/environment/extras.py). Each reader answers None for a file that is absent, too
large to be metadata, or unreadable, so that no caller trips over a project's broken file.
"""

from __future__ import annotations

import configparser
import logging
import tomllib
from email.message import Message
from email.parser import HeaderParser
from pathlib import Path

logger = logging.getLogger(__name__)

MAX_METADATA_BYTES = 1024 * 1024


def metadata_text(path: Path) -> str | None:
    """A metadata file's text, or None if absent, unreadable, or implausibly large."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_METADATA_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def read_headers(path: Path) -> Message | None:
    """The headers of a core-metadata file (``PKG-INFO``, ``METADATA``), or None."""
    text = metadata_text(path)
    return HeaderParser().parsestr(text) if text is not None else None


def read_pyproject(root: Path) -> dict[str, object] | None:
    """``root/pyproject.toml`` parsed, or None (absent, unreadable, or not TOML)."""
    text = metadata_text(root / "pyproject.toml")
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        logger.warning("ignoring unreadable pyproject.toml in %s: %s", root, err)
        return None


def pyproject_table(root: Path, *keys: str) -> dict[str, object] | None:
    """The table at ``keys`` of ``root/pyproject.toml`` (``"project"``; ``"tool", "poetry"``),
    or None where the file or any table on the way is missing or not a table."""
    table: object = read_pyproject(root)
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table if isinstance(table, dict) else None


def read_setup_cfg(root: Path) -> configparser.ConfigParser | None:
    """``root/setup.cfg`` parsed (no interpolation: ``%`` is literal there), or None."""
    text = metadata_text(root / "setup.cfg")
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error as err:
        logger.warning("ignoring unreadable setup.cfg in %s: %s", root, err)
        return None
    return parser
