"""Many processes on one METASERVER_HOME at once, then a check that every version is whole.

Usage::

    uv run python bench/home_soak.py [--minutes 5] [--sources FILE] [--home DIR] [--json]
        [--converts 3] [--batches 2] [--serves 2]

Eight processes share one home (issue 28): two ``metaserver serve``
over stdio, each driven by a FastMCP client that lists the servers and calls their tools
(``call_generated``); three loops of ``metaserver convert``, two of ``metaserver batch`` (each
round a file of :data:`BATCH_SOURCES` sources drawn at random, one conversion at a time: a
file of every source of a real corpus ran on for an hour past the window), and one of
``metaserver remove`` (a registered server, every 20 s, while more than one is registered).
The sources are those of ``--sources`` (one SOURCE a line) or, by default, small fixture
repositories this script builds (git packages of doctested functions, with an ``add(a, b)``).
When the minutes are up no new conversion starts; serving and removal go on until the running
ones finish. Then every registered
version is called (``metaserver call REF``, its first tool with its validated arguments),
the registry's ``PRAGMA integrity_check`` is read, and every entry of ``servers/``,
``environments/`` and ``workspaces/`` must belong to a registered version (after one more
sweep, a ``serve`` start, when a command killed at its timeout left some). A call refused
because its server was removed meanwhile is counted apart; any other error fails. It prints
how many of each operation ran and failed, the cause of every command that did not end ok
(its JSON failure, else its stderr's last lines), and the checks; exit 1 when a check
fails. Not run by CI: it takes minutes and converts for real.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from metaserver.children.oneshot import HANDLE_PREFIX
from metaserver.registry import Registry
from metaserver.registry.files import owned_paths, version_dirs
from metaserver.settings import Settings

MODULE = '''\
"""{name}: small helpers, a metaserver soak fixture."""


def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(2, 3)
    5
    """
    return a + b


def scale(x: float, factor: float = 2.0) -> float:
    """Multiply a number by a factor.

    >>> scale(1.5)
    3.0
    """
    return x * factor


def shout(text: str) -> str:
    """Upper-case a text and add an exclamation mark.

    >>> shout("hi")
    'HI!'
    """
    return text.upper() + "!"


def evens(n: int) -> list[int]:
    """The even numbers below n.

    >>> evens(7)
    [0, 2, 4, 6]
    """
    return list(range(0, n, 2))
'''
PYPROJECT = """\
[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.9"

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
packages = ["{name}"]
"""
REMOVE_EVERY = 20.0
BATCH_SOURCES = 2
COMMAND_TIMEOUT = 1800.0  # a conversion command past this is killed (and counted)


def _git(cwd: Path, *args: str) -> None:
    identity = {"GIT_AUTHOR_NAME": "soak", "GIT_AUTHOR_EMAIL": "soak@example.invalid"}
    identity |= {"GIT_COMMITTER_NAME": "soak", "GIT_COMMITTER_EMAIL": "soak@example.invalid"}
    env = {**identity, "HOME": str(cwd), "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def fixture_sources(root: Path, count: int = 2) -> list[str]:
    """``count`` small git repositories, one package each; their paths."""
    sources = []
    for index in range(count):
        name = f"soak{'abcdefgh'[index]}"
        repo = root / name
        (repo / name).mkdir(parents=True, exist_ok=True)
        (repo / "pyproject.toml").write_text(PYPROJECT.format(name=name))
        (repo / name / "__init__.py").write_text(MODULE.format(name=name))
        (repo / "README.md").write_text(textwrap.dedent(f"# {name}\n\nA soak fixture.\n"))
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "initial")
        sources.append(str(repo))
    return sources


class Soak:
    """The shared state of one soak: deadline, counters, the home."""

    def __init__(self, home: Path, sources: list[str], seconds: float) -> None:
        self.home, self.sources = home, sources
        self.deadline = time.monotonic() + seconds
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
        if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
            self.env["METASERVER_SANDBOX__BACKEND"] = backend
        self.env["METASERVER_HOME"] = str(home)
        self.registry = Registry(Settings(home=home).registry_path)

        self.converting = 0  # conversions and batches in progress
        self.errors: list[str] = []  # the first unexpected call errors' texts
        self.causes: list[str] = []  # why each command that did not end ok ended so

    def running(self) -> bool:
        return time.monotonic() < self.deadline

    def overlapping(self) -> bool:
        """Serving and removal go on while any conversion does, past the deadline too."""
        with self.lock:
            return self.running() or self.converting > 0

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1

    def cli(self, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "metaserver", *args]
        return subprocess.run(
            command, capture_output=True, text=True, env=self.env, timeout=timeout
        )

    def counted(self, label: str, *args: str) -> None:
        """Run a conversion command (a convert or a batch) and count how it ended."""
        with self.lock:
            self.converting += 1
        try:
            command = [sys.executable, "-m", "metaserver", *args]
            counted, cause = outcome(label, command, self.env, COMMAND_TIMEOUT)
            self.count(counted)
            if cause is not None:
                with self.lock:
                    self.causes.append(f"{counted} ({' '.join(args[1:])}): {cause}")
        finally:
            with self.lock:
                self.converting -= 1


def outcome(
    label: str, command: list[str], env: dict[str, str], timeout: float
) -> tuple[str, str | None]:
    """How ``command`` ended, as a count's name (ok, its exit status, or killed at the
    timeout: what it left is swept by the next conversion of its name, not by this one),
    and for any other end than ok, its cause (:func:`exit_cause`)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"{label} killed at the timeout", f"no exit within {timeout:g} s"
    if done.returncode == 0:
        return f"{label} ok", None
    return f"{label} exit {done.returncode}", exit_cause(done.stdout, done.stderr)


def exit_cause(stdout: str, stderr: str, limit: int = 400) -> str:
    """Why a command failed: the failures its ``--json`` output names (a report's, a batch
    row's, an error object's), else the last lines of its stderr that are no log record.
    A soak's ``convert exit 1`` with nothing kept could not be explained afterwards."""
    try:
        printed: Any = json.loads(stdout)
    except ValueError:
        printed = None
    rows = printed if isinstance(printed, list) else [printed]
    said = [_failure_text(row) for row in rows if isinstance(row, dict)]
    said = [text for text in said if text]
    if said:
        return "; ".join(said)[:limit]
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(_LOG_LEVELS)]
    return (" | ".join(lines[-3:]) or "nothing on stdout or stderr")[:limit]


_LOG_LEVELS = ("DEBUG ", "INFO ", "WARNING ")


def _failure_text(row: dict[str, Any]) -> str:
    """``type: first / last line of detail`` of a report (a batch row's failure is that
    text already); an error object's text."""
    failure = row.get("failure")
    if isinstance(failure, dict):
        failure = f"{failure.get('type') or 'failure'}: {failure.get('detail') or ''}"
    if failure:
        lines = [line.strip() for line in str(failure).splitlines() if line.strip()]
        shown = " / ".join(dict.fromkeys([lines[0], lines[-1]]))
        return f"{row.get('source') or ''} {shown}".strip()
    if row.get("status") == "error" and row.get("error"):
        return str(row["error"])
    return ""


def removal_choice(names: list[str], chance: random.Random) -> str | None:
    """A registered server to remove, or None while one or none is registered: the last is
    kept, so that the check at the end has a version to call."""
    return chance.choice(names) if len(names) > 1 else None


def convert_loop(soak: Soak, seed: int) -> None:
    chance = random.Random(seed)  # noqa: S311 - which source next, not a secret
    while soak.running():
        soak.counted("convert", "convert", "--json", chance.choice(soak.sources))


def batch_loop(soak: Soak, corpus: Path, seed: int) -> None:
    chance = random.Random(seed)  # noqa: S311 - which sources next, not a secret
    while soak.running():
        drawn = chance.sample(soak.sources, min(BATCH_SOURCES, len(soak.sources)))
        corpus.write_text("\n".join(drawn) + "\n")
        soak.counted("batch", "batch", str(corpus), "--concurrency", "1", "--json")
        time.sleep(1)  # a batch of registered sources skips them all: do not spin


def remove_loop(soak: Soak, seed: int) -> None:
    chance = random.Random(seed)  # noqa: S311 - which source next, not a secret
    while soak.overlapping():
        time.sleep(REMOVE_EVERY)
        name = removal_choice([s.name for s in soak.registry.summaries()], chance)
        if name is None or not soak.overlapping():
            continue
        done = soak.cli("remove", name)
        soak.count("remove ok" if done.returncode == 0 else f"remove exit {done.returncode}")
        if done.returncode != 0:
            with soak.lock:
                cause = exit_cause(done.stdout, done.stderr)
                soak.causes.append(f"remove exit {done.returncode} ({name}): {cause}")


def first_call(record: Any) -> tuple[str, dict[str, Any]] | None:
    """A tool of ``record`` and the arguments it was validated with, where they name no
    handle: a handle lives in the server process that made it, so a call from another
    one is refused by design ("unknown or expired handle"), which is no failure here."""
    for tool in record.tools:
        evidence = tool.evidence or {}
        arguments = evidence.get("arguments")
        if isinstance(arguments, dict) and not names_handle(arguments):
            return tool.name, arguments
    return None


def names_handle(value: Any) -> bool:
    """Whether ``value`` holds a handle: a ``{"handle": id}`` descriptor or a bare id."""
    if isinstance(value, dict):
        return "handle" in value or any(names_handle(v) for v in value.values())
    if isinstance(value, list):
        return any(names_handle(v) for v in value)
    return isinstance(value, str) and value.startswith(HANDLE_PREFIX)


def serve_thread(soak: Soak) -> None:
    try:
        asyncio.run(serve_driver(soak))
    except Exception as exc:  # counted, not raised: the checks still run
        soak.count(f"serve crashed: {type(exc).__name__}")


async def serve_driver(soak: Soak) -> None:
    transport = StdioTransport(
        command=sys.executable, args=["-m", "metaserver", "serve"], env=soak.env
    )
    async with Client(transport) as client:
        while soak.overlapping():
            listed = await client.call_tool("list_servers", {}, raise_on_error=False)
            soak.count("serve list_servers" + ("" if not listed.is_error else " error"))
            records = soak.registry.list_servers()
            if not records:
                await asyncio.sleep(2)
                continue
            record = random.choice(records)  # noqa: S311 - which server next
            call = first_call(record)
            if call is None:
                soak.count("serve no tool to call")
                await asyncio.sleep(2)
                continue
            tool, arguments = call
            result = await client.call_tool(
                "call_generated",
                {"server": record.name, "tool": tool, "arguments": arguments},
                raise_on_error=False,
            )
            soak.count(call_outcome(soak, result.is_error, text_of(result)))
            await asyncio.sleep(0.5)


def text_of(result: Any) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


# What a call of a server removed meanwhile answers: one removed between the driver's listing
# and the call, or one whose live child in this serve process another process removed.
REMOVED = ("was removed", "no registered server")


def call_outcome(soak: Soak, is_error: bool, text: str) -> str:
    """A call's count name; the first texts of unexpected errors are kept for the report."""
    if not is_error:
        return "serve call ok"
    if any(marker in text for marker in REMOVED):
        return "serve call refused: removed"
    with soak.lock:
        if len(soak.errors) < 10:
            soak.errors.append(text[:300])
    return "serve call error"


async def sweeping_start(soak: Soak) -> None:
    """Start and stop a ``metaserver serve``: its start sweeps what killed processes left."""
    transport = StdioTransport(
        command=sys.executable, args=["-m", "metaserver", "serve"], env=soak.env
    )
    async with Client(transport) as client:
        await client.call_tool("list_servers", {}, raise_on_error=False)


def orphans_of(soak: Soak) -> list[str]:
    """Entries of the version directories that no registered version uses."""
    settings = Settings(home=soak.home)
    versions = [v for s in soak.registry.summaries() for v in soak.registry.versions(s.name)]
    used = {p.absolute() for record in versions for p in owned_paths(settings, record)}
    return [
        str(entry)
        for parent in version_dirs(settings)
        if parent.is_dir()
        for entry in parent.iterdir()
        if entry.absolute() not in used
    ]


def check(soak: Soak) -> dict[str, Any]:
    """Every registered version callable, the database whole, no orphan directory."""
    settings = Settings(home=soak.home)
    failures = []
    versions = [v for s in soak.registry.summaries() for v in soak.registry.versions(s.name)]
    for record in versions:
        call = first_call(record)
        if call is None:
            failures.append(f"{record.ref}: no tool with validated arguments")
            continue
        tool, arguments = call
        done = soak.cli("call", record.ref, tool, json.dumps(arguments), "--json", timeout=300)
        if done.returncode != 0:
            failures.append(f"{record.ref}: call {tool} exit {done.returncode}: {done.stdout}")
    integrity = "no database"
    if settings.registry_path.exists():
        with sqlite3.connect(settings.registry_path) as db:
            integrity = str(db.execute("PRAGMA integrity_check").fetchone()[0])
    # Left by a process killed at the end (its command's timeout), which no later process
    # swept: the next that sweeps (here a serve's start) must take them.
    before = orphans_of(soak)
    if before:
        asyncio.run(sweeping_start(soak))
    return {
        "versions": len(versions),
        "callable": len(versions) - len(failures),
        "call_failures": failures,
        "call_errors": soak.errors,
        "integrity_check": integrity,
        "orphans_before_last_sweep": len(before),
        "orphans": orphans_of(soak),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--sources", type=Path, help="one SOURCE a line (default: fixtures)")
    parser.add_argument("--home", type=Path, help="the home (default: a new temporary one)")
    parser.add_argument("--json", action="store_true")
    # A shorter run for finding one cause: fewer processes of each kind (issue 28's are
    # 3 convert loops, 2 batch loops, 2 serves and the remove loop).
    parser.add_argument("--converts", type=int, default=3, help="convert loops")
    parser.add_argument("--batches", type=int, default=2, help="batch loops")
    parser.add_argument("--serves", type=int, default=2, help="serve processes")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="metaserver-soak-"))
    home = args.home or scratch / "home"
    if args.sources is not None:
        # A corpus file's way: '#' lines are comments (the dev corpus has them).
        lines = [s.strip() for s in args.sources.read_text().splitlines()]
        sources = [s for s in lines if s and not s.startswith("#")]
    else:
        sources = fixture_sources(scratch / "sources")
    soak = Soak(home, sources, args.minutes * 60)
    started = time.monotonic()
    threads = [threading.Thread(target=convert_loop, args=(soak, i)) for i in range(args.converts)]
    threads += [
        threading.Thread(target=batch_loop, args=(soak, scratch / f"batch-{i}.txt", 10 + i))
        for i in range(args.batches)
    ]
    threads += [threading.Thread(target=remove_loop, args=(soak, 99))]
    threads += [threading.Thread(target=serve_thread, args=(soak,)) for _ in range(args.serves)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ran = round(time.monotonic() - started)
    result = {
        "seconds": ran,
        "processes": {"convert": args.converts, "batch": args.batches, "serve": args.serves},
        "counts": dict(sorted(soak.counts.items())),
        "exit_causes": soak.causes,
        **check(soak),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{'operation':<28} {'count':>6}")
        for what, count in sorted(soak.counts.items()):
            print(f"{what:<28} {count:>6}")
        print(f"ran {ran} s (the last operations finish after the deadline)")
        for cause in soak.causes:
            print(f"  {cause}")
        print(f"registered versions: {result['versions']}, callable: {result['callable']}")
        print(f"integrity_check: {result['integrity_check']}")
        print(f"orphans before a last sweep: {result['orphans_before_last_sweep']}")
        print(f"orphan directories: {len(result['orphans'])}")
        for line in [*result["call_failures"], *result["orphans"], *result["call_errors"]]:
            print(f"  {line}")
    ok = not result["call_failures"] and result["integrity_check"] == "ok"
    ok = ok and "serve call error" not in soak.counts
    return 0 if ok and not result["orphans"] else 1


if __name__ == "__main__":
    sys.exit(main())
