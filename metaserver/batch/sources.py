"""The sources of a batch file, and which of them the registry already holds.

A batch is resumable: a second run (after a crash, Ctrl-C, or to pick up new lines) skips a
source whose newest registered version was converted from the same SOURCE at the same
content: a pinned ``pypi:NAME==VERSION``, or a git source (URL, or a local checkout) whose
commit is still the registered one. Anything whose content cannot be named cheaply (an
unpinned package, a plain directory, an archive) is converted again; a re-conversion of
unchanged content replaces its version, so that costs time, never correctness.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from metaserver.agents.fetch.git import resolve_remote
from metaserver.agents.fetch.source import parse_source
from metaserver.exceptions import UserError
from metaserver.input_limits import read_text_file
from metaserver.registry.records import ServerRecord
from metaserver.registry.store import Registry

MAX_SOURCES = 10_000


def read_sources(path: Path) -> list[str]:
    """One SOURCE a line; ``#`` starts a comment; blank lines and repeats are ignored.

    Raises:
        UserError: the file is not a regular file, is too large (:mod:`metaserver.
            input_limits`), cannot be read, is not text, or lists no source.
    """
    text = read_text_file(path, "the batch file")
    sources: list[str] = []
    for line in text.splitlines():
        source = line.split("#", 1)[0].strip()
        if source and source not in sources:
            sources.append(source)
    if not sources:
        raise UserError(f"the batch file {path} lists no source")
    if len(sources) > MAX_SOURCES:
        raise UserError(f"the batch file lists {len(sources)} sources; at most {MAX_SOURCES}")
    return sources


def registered_as(registry: Registry, source: str, timeout: float = 30.0) -> ServerRecord | None:
    """The registered version that ``source`` would convert to again, if it is known to be."""
    try:
        parsed = parse_source(source, None)
    except UserError:
        return None  # reported when its conversion is tried
    candidates = [r for r in registry.list_servers() if r.source == source]
    if not candidates:
        return None
    if parsed.kind == "pypi":
        return candidates[0] if parsed.version else None
    if parsed.kind == "git":
        commit = resolve_remote(parsed, timeout)
    elif parsed.kind == "local" and (Path(parsed.location) / ".git").exists():
        commit = _local_head(Path(parsed.location), timeout)
    else:
        return None
    return next((r for r in candidates if commit is not None and r.commit == commit), None)


def _local_head(directory: Path, timeout: float) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "--verify", "HEAD"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
