"""Running a command-line script as a tool: parameters -> argv -> subprocess -> JSON result.

A script tool's target reads ``sys.argv`` and may call ``sys.exit``, print, or parse the
server's own command line if called in-process; so it always runs in a child process of the
generated server, in the server's work directory (the only writable place in the sandbox),
with a timeout and capped output. Standard library only: this module is copied into
generated servers. Nothing goes through a shell.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
from typing import IO, Any

from .decode import work_dir

__all__ = ["DEFAULT_TIMEOUT", "ScriptError", "build_argv", "command_for", "run_script"]

DEFAULT_TIMEOUT = 25.0
"""Seconds a run may take when the tool sets none (below the usual 30 s call budget)."""
STDERR_LINES = 10
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

# Run as ``python -c CALL MODULE QUALNAME PROG ARGS...``: the names travel as arguments, so
# nothing a repository declares is ever pasted into code.
CALL = (
    "import importlib, sys\n"
    "_, module, qualname, prog, *args = sys.argv\n"
    "target = importlib.import_module(module)\n"
    "for part in qualname.split('.'):\n"
    "    target = getattr(target, part)\n"
    "sys.argv = [prog, *args]\n"
    "sys.exit(target())\n"
)


class ScriptError(RuntimeError):
    """The script exited with a non-zero code, or ran out of time."""


def build_argv(arguments: list[dict[str, Any]], values: dict[str, Any]) -> list[str]:
    """The command line for ``values``: options first, then positionals in order.

    ``arguments`` are ScriptArgument dicts (name, options, action, nargs). A value of None
    (or a false switch) adds nothing. Long options with one value use ``--opt=value`` so a
    value starting with ``-`` is never read as an option; positionals go after ``--`` when
    one of them starts with ``-``.
    """
    words: list[str] = []
    positional: list[str] = []
    for argument in arguments:
        value = values.get(argument["name"])
        options = argument.get("options") or []
        if not options:
            if value is not None:
                positional.extend(_words(value))
            continue
        flag = next((o for o in options if o.startswith("--")), options[0])
        action = argument.get("action", "value")
        if value is None:
            continue
        if action == "switch":
            words += [flag] if value else []
        elif action == "bool_optional":
            words.append(flag if value else "--no-" + flag.lstrip("-"))
        elif action == "count":
            words += [flag] * max(0, int(value))
        elif action == "append":
            for item in value if isinstance(value, list) else [value]:
                words += _option(flag, item)
        elif isinstance(value, list):
            words += [flag, *_words(value)] if value else []
        else:
            words += _option(flag, value)
    if any(word.startswith("-") for word in positional):
        positional = ["--", *positional]
    return words + positional


def _option(flag: str, value: Any) -> list[str]:
    text = _word(value)
    return [f"{flag}={text}"] if flag.startswith("--") else [flag, text]


def _words(value: Any) -> list[str]:
    return [_word(v) for v in value] if isinstance(value, list) else [_word(value)]


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _script_path(launch: dict[str, Any]) -> str:
    """The script's file: the path written, else (a tree the environment holds a copy of,
    under ``<prefix>/source``, so that no host path is on the server's side) its place in
    that copy."""
    path = str(launch["path"])
    relative = str(launch.get("relative") or "")
    if relative and not os.path.isfile(path):
        copy = os.path.join(sys.prefix, "source", relative)
        if os.path.isfile(copy):
            return copy
    return path


def command_for(launch: dict[str, Any], argv: list[str]) -> list[str]:
    """The child's argv for a ScriptTarget-like ``launch`` (mode, path/module/function)."""
    python = sys.executable
    mode = launch["mode"]
    if mode == "path":
        return [python, _script_path(launch), *argv]
    module = str(launch.get("module") or "")
    if not _DOTTED.match(module):
        raise ValueError(f"not a module name: {module!r}")
    if mode == "module":
        return [python, "-m", module, *argv]
    function = str(launch.get("function") or "")
    if mode != "function" or not _DOTTED.match(function):
        raise ValueError(f"cannot run {launch!r}")
    return [python, "-c", CALL, module, function, str(launch.get("prog") or module), *argv]


def run_script(
    launch: dict[str, Any],
    arguments: list[dict[str, Any]],
    values: dict[str, Any],
    *,
    timeout: float | None = None,
    max_bytes: int = 1_000_000,
) -> dict[str, Any]:
    """Run the script with ``values``; ``{"exit_code", "stdout", "stderr"}`` on exit code 0.

    Output goes to temporary files (not pipes), so a chatty script can neither fill memory
    nor block on a full pipe; each stream keeps its first ``max_bytes // 2`` bytes.

    Raises:
        ScriptError: a non-zero exit (with the last lines of stderr), or the timeout.
    """
    command = command_for(launch, build_argv(arguments, values))
    limit = timeout or DEFAULT_TIMEOUT
    cwd = work_dir()
    cwd.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    with tempfile.TemporaryFile(dir=cwd) as out, tempfile.TemporaryFile(dir=cwd) as err:
        try:
            code = run_bounded(command, cwd=cwd, env=env, out=out, err=err, limit=limit)
        except subprocess.TimeoutExpired:
            raise ScriptError(f"{_prog(launch)} timed out after {limit:g} s") from None
        stdout = read_capped(out, max_bytes // 2)
        stderr = read_capped(err, max_bytes // 2)
    if code != 0:
        tail = "\n".join(stderr.rstrip().splitlines()[-STDERR_LINES:])
        raise ScriptError(f"{_prog(launch)} exited with code {code}: {tail or '(no stderr)'}")
    return {"exit_code": code, "stdout": stdout, "stderr": stderr}


def _prog(launch: dict[str, Any]) -> str:
    return str(launch.get("prog") or launch.get("module") or launch.get("path") or "script")


def run_bounded(
    command: list[str],
    *,
    cwd: os.PathLike[str] | str,
    env: dict[str, str],
    out: IO[bytes],
    err: IO[bytes],
    limit: float,
) -> int:
    """Run ``command`` in a process group of its own, output to the files ``out`` and ``err``;
    return its exit code. Whatever it leaves running is killed when it ends, and the whole
    group when it runs past ``limit`` seconds (then ``subprocess.TimeoutExpired`` is raised).
    """
    child = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=err,
        start_new_session=True,  # its own process group: a timeout ends its children too
    )
    try:
        return child.wait(timeout=limit)
    finally:
        _kill_group(child)  # on a timeout, and what it left running in the background


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    child.wait()


def read_capped(handle: IO[bytes], limit: int) -> str:
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(0)
    text = handle.read(limit).decode("utf-8", errors="replace")
    if size > limit:
        text += f"\n[... {size - limit} more bytes not shown]"
    return text
