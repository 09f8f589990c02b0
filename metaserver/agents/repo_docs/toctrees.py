"""The chapters a docs section lists: the pages of its ``toctree``, in the order it lists them.

A tutorial's chapters are often named for their subject, not for being a tutorial (a page
named for a transform, listed by an index titled "Usage examples"), so neither their names
nor their folder say they are guide pages; the section's index page does, by its
title, and its ``toctree`` (reST's directive, or MyST's fenced ``{toctree}``) lists them.
Static only: the texts are read, never built.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["page_title", "toctree_pages"]

_RST_TOCTREE = re.compile(r"^\.\.\s+toctree::")
_MYST_TOCTREE = re.compile(r"^(`{3,}|:{3,})\s*\{toctree\}")
_TITLED_ENTRY = re.compile(r"<([^<>]+)>\s*$")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
_SUFFIXES = (".rst", ".md", ".txt", ".markdown")
MAX_ENTRIES = 50


def page_title(text: str) -> str:
    """The page's first heading: a Markdown ``#`` line, or a reST line over an underline."""
    lines = _without_front_matter(text.splitlines())
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("# "):
            return stripped[2:].strip()
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if (
            stripped
            and not _UNDERLINE.match(stripped)
            and not stripped.startswith("..")
            and _UNDERLINE.match(following.strip())
            and len(following.strip()) >= len(stripped)
        ):
            return stripped
    return ""


def toctree_pages(page: Path, text: str, root: Path) -> list[Path]:
    """The existing text pages ``page``'s toctrees list, inside ``root``, in their order."""
    pages: list[Path] = []
    for entry in _entries(text)[:MAX_ENTRIES]:
        found = _resolve(page.parent, entry, root)
        if found is not None and found not in pages:
            pages.append(found)
    return pages


def _entries(text: str) -> list[str]:
    entries: list[str] = []
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        line = lines[number]
        myst = _MYST_TOCTREE.match(line.strip())
        if _RST_TOCTREE.match(line.strip()):
            number += 1
            while number < len(lines) and (
                not lines[number].strip() or lines[number][:1].isspace()
            ):
                entries.append(lines[number].strip())
                number += 1
            continue
        if myst:
            fence = myst.group(1)
            number += 1
            while number < len(lines) and not lines[number].strip().startswith(fence):
                entries.append(lines[number].strip())
                number += 1
        number += 1
    return [_target(e) for e in entries if e and not e.startswith(":") and _target(e)]


def _in_directive(line: str) -> bool:
    return not line.strip() or line[:1].isspace()


def _target(entry: str) -> str:
    titled = _TITLED_ENTRY.search(entry)
    target = titled.group(1).strip() if titled else entry
    if target == "self" or "://" in target or "*" in target or target.startswith("/"):
        return ""
    return target


def _resolve(folder: Path, entry: str, root: Path) -> Path | None:
    base = folder / entry
    tries = [base] if base.suffix.lower() in _SUFFIXES else []
    tries += [base.with_name(base.name + suffix) for suffix in _SUFFIXES]
    for candidate in tries:
        try:
            if candidate.is_symlink() or not candidate.is_file():
                continue
            resolved = candidate.resolve()
            resolved.relative_to(root.resolve())
        except (OSError, ValueError):
            continue
        return candidate
    return None


def _without_front_matter(lines: list[str]) -> list[str]:
    if lines and lines[0].strip() == "---":
        for number in range(1, len(lines)):
            if lines[number].strip() == "---":
                return lines[number + 1 :]
    return lines
