"""Choosing and downloading the distribution files a bundle needs from the package index.

Nothing is built or run here: a pinned requirement gets the wheel whose tags the target
interpreter accepts (``packaging.tags``), else its source distribution, downloaded with the
index's hash checked (:mod:`metaserver.agents.fetch.index`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from pathlib import Path

import httpx
from packaging.requirements import InvalidRequirement, Requirement
from packaging.tags import Tag, compatible_tags, cpython_tags, platform_tags, sys_tags
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from metaserver import __version__
from metaserver.agents.fetch.index import IndexFile, download_file, list_files
from metaserver.exceptions import FetchError

logger = logging.getLogger(__name__)

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([A-Za-z0-9.+!_-]+)$")


def pins(lines: Iterable[str]) -> dict[str, str]:
    """``name==version`` pins from a freeze or compile output (local paths and URLs dropped)."""
    found: dict[str, str] = {}
    for line in lines:
        text = line.split("#", 1)[0].strip()
        match = _PIN.match(text)
        if match:
            found[canonicalize_name(match.group(1))] = match.group(3)
    return found


def target_tags(python: str) -> list[Tag]:
    """The wheel tags an interpreter X.Y on this machine's platform accepts, best first."""
    major, minor = (int(part) for part in python.split(".")[:2])
    import sys

    if (major, minor) == sys.version_info[:2]:
        return list(sys_tags())
    platforms = list(platform_tags())
    version = (major, minor)
    return [
        *cpython_tags(version, platforms=platforms),
        *compatible_tags(version, platforms=platforms),
    ]


def choose(name: str, version: str, files: list[IndexFile], tags: list[Tag]) -> IndexFile | None:
    """The best wheel of ``name==version`` for ``tags``, else its sdist, else None."""
    wanted = Version(version)
    rank = {tag: index for index, tag in enumerate(tags)}
    best: tuple[int, IndexFile] | None = None
    sdist: IndexFile | None = None
    for file in files:
        if file.yanked and best is not None:
            continue
        try:
            if file.filename.endswith(".whl"):
                wheel_name, wheel_version, _, wheel_tags = parse_wheel_filename(file.filename)
                if canonicalize_name(wheel_name) != name or wheel_version != wanted:
                    continue
                score = min((rank[t] for t in wheel_tags if t in rank), default=None)
                if score is not None and (best is None or score < best[0]):
                    best = (score, file)
            else:
                sdist_name, sdist_version = parse_sdist_filename(file.filename)
                if canonicalize_name(sdist_name) == name and sdist_version == wanted:
                    sdist = sdist or file
        except (InvalidWheelFilename, InvalidSdistFilename):
            continue
    return best[1] if best is not None else sdist


async def download_all(
    wanted: dict[str, str], python: str, index: str, target: Path, timeout: float = 120.0
) -> list[str]:
    """Download a file for each ``name==version`` into ``target``; the file names.

    Raises:
        FetchError: a distribution has no file usable by the target interpreter, or a
            download failed.
    """
    target.mkdir(parents=True, exist_ok=True)
    tags = target_tags(python)
    headers = {"User-Agent": f"metaserver/{__version__}"}
    gate = asyncio.Semaphore(8)
    async with httpx.AsyncClient(
        follow_redirects=True, timeout=httpx.Timeout(timeout), headers=headers
    ) as client:

        async def one(name: str, version: str) -> str:
            async with gate:
                files = await list_files(client, index, name)
                chosen = choose(name, version, files, tags)
                if chosen is None:
                    raise FetchError(
                        f"{name}=={version} has no wheel for Python {python} on this platform "
                        "and no source distribution on the index"
                    )
                path = target / chosen.filename
                if not path.exists():
                    partial = path.with_name(path.name + ".part")
                    await download_file(client, chosen, partial)
                    partial.rename(path)
                return chosen.filename

        return sorted(await asyncio.gather(*(one(n, v) for n, v in sorted(wanted.items()))))


def requirement_closure(distribution: str) -> dict[str, str]:
    """``distribution`` and what it needs, as installed here (``importlib.metadata``), pinned.

    Markers are evaluated for this interpreter, extras requested along the way are followed.
    """
    from importlib import metadata

    found: dict[str, str] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo: list[tuple[str, frozenset[str]]] = [(distribution, frozenset())]
    while todo:
        name, extras = todo.pop()
        if (canonicalize_name(name), extras) in seen:
            continue
        seen.add((canonicalize_name(name), extras))
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found[canonicalize_name(name)] = dist.version
        for line in dist.requires or []:
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            marker = requirement.marker
            contexts = [{"extra": extra} for extra in extras] or [{"extra": ""}]
            if marker is not None and not any(marker.evaluate(c) for c in contexts):
                continue
            todo.append((requirement.name, frozenset(requirement.extras)))
    return found
