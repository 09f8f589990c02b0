"""Examples for script tools from a repository's README and docs (issue #4).

Shell sessions in fenced blocks (``$ python script.py --n 3 x``, or the console script's
name) are split with shlex and bound to the script's argparse definition; the output shown
right after a prompt becomes the expected stdout. Read statically: nothing runs.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path
from typing import Any, NoReturn

from metaserver.contracts import JSON, Candidate, Example, Parameter, ScriptTarget

__all__ = ["STDOUT", "bind_argv", "readme_examples"]

MAX_FILE_BYTES = 1_000_000
STDOUT = "stdout"

_DOCS = ("README.md", "README.rst", "README.txt", "README", "docs", "doc", "examples")
_FENCE = re.compile(r"^\s*(```|~~~)")
_PROMPT = re.compile(r"^\s*(?:\$|%|>)\s+")


def readme_examples(root: Path, candidate: Candidate) -> list[Example]:
    """Calls of the script shown in the README and docs, bound to its parameters.

    A command after a prompt (``$ ``) followed by lines up to a blank line, the next prompt
    or the end of the block shows its output: that becomes the expected stdout.
    """
    script = candidate.script
    if script is None:
        return []
    found: list[Example] = []
    for command, output in _sessions(root):
        argv = _script_argv(command, script)
        if argv is None:
            continue
        arguments = bind_argv(script, candidate.parameters, argv)
        if arguments is None:
            continue
        example = Example(
            arguments=arguments,
            expected=output,
            has_expected=output is not None,
            wrapper=STDOUT if output is not None else None,
            origin="usage",
        )
        if example not in found:
            found.append(example)
    found.sort(key=lambda e: not e.has_expected)
    return found


def _documents(root: Path) -> list[Path]:
    files: list[Path] = []
    for name in _DOCS:
        path = root / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.suffix in (".md", ".rst", ".txt"))
    return [p for p in files[:200] if p.is_file() and p.stat().st_size <= MAX_FILE_BYTES]


def _sessions(root: Path) -> list[tuple[str, str | None]]:
    """(command line, shown output or None) for each shell line in a fenced block."""
    sessions: list[tuple[str, str | None]] = []
    for path in _documents(root):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        inside = False
        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            if _FENCE.match(line):
                inside = not inside
                continue
            if not inside or not line.strip():
                continue
            prompted = _PROMPT.match(line)
            command = line[prompted.end() :] if prompted else line.strip()
            output: list[str] = []
            while prompted and index < len(lines):
                following = lines[index]
                if not following.strip() or _FENCE.match(following) or _PROMPT.match(following):
                    break
                output.append(following)
                index += 1
            sessions.append((command.strip(), "\n".join(output) if output else None))
    return sessions


def _script_argv(command: str, script: ScriptTarget) -> list[str] | None:
    """The arguments after the script's own name, when ``command`` runs this script."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    if words and re.fullmatch(r"python[0-9.]*|py", words[0]):
        words = words[1:]
        if script.mode in ("module", "function") and words[:2] == ["-m", script.module]:
            return words[2:]
        if script.mode == "path" and words and _same_path(words[0], script.path or ""):
            return words[1:]
        return None
    if not words:
        return None
    if script.mode == "function" and words[0] == script.prog:
        return words[1:]
    if script.mode == "path" and _same_path(words[0], script.path or "") and "/" in words[0]:
        return words[1:]  # ./script.py args
    return None


def _same_path(word: str, path: str) -> bool:
    return bool(path) and word.removeprefix("./") == path


class _Refused(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Refused(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise _Refused(message or "")


def bind_argv(
    script: ScriptTarget, parameters: list[Parameter], argv: list[str]
) -> dict[str, JSON] | None:
    """Tool arguments for ``argv``, parsed by a parser rebuilt from the definition, or None."""
    parser = _Parser(prog=script.prog, add_help=False, allow_abbrev=False)
    converters = {"str": str, "int": int, "float": float}
    for argument in script.arguments:
        names = argument.options or [argument.name]
        options: dict[str, Any] = {"default": argparse.SUPPRESS}
        if argument.options:
            options["dest"] = argument.name
        if argument.action == "switch":
            options["action"] = "store_true"
        elif argument.action == "count":
            options["action"] = "count"
        elif argument.action == "bool_optional":
            options["action"] = argparse.BooleanOptionalAction
        else:
            options["type"] = converters[argument.type]
            if argument.nargs is not None:
                options["nargs"] = argument.nargs
            if argument.action == "append":
                options["action"] = "extend" if argument.nargs is not None else "append"
        try:
            parser.add_argument(*names, **options)
        except (ValueError, TypeError, argparse.ArgumentError):
            return None
    try:
        namespace = parser.parse_args(argv)
    except (_Refused, ValueError, TypeError):
        return None
    arguments: dict[str, JSON] = dict(vars(namespace))
    if any(p.required and p.name not in arguments for p in parameters):
        return None
    return arguments
