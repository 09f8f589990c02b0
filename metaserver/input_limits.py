"""How much input metaserver reads, and the checks that hold every surface to it.

Every surface that takes input from outside (the command line, the stdio and HTTP
transports, the meta-tools' arguments) checks it here *before* it is read or parsed, so an
absurd input costs a bounded amount of memory and time and gets one clear sentence back:

- a FILE (a batch file) must be a regular file (a FIFO would block forever, ``/dev/zero``
  never ends) no larger than :data:`MAX_FILE_BYTES`;
- a JSON text (``JSON_ARGS``, one JSON-RPC line or HTTP body) is at most
  :data:`MAX_JSON_BYTES`, nested at most :data:`MAX_JSON_DEPTH` deep, holds no number longer
  than :data:`MAX_NUMBER_CHARS` characters (Python refuses to read an integer past 4,300
  digits, and a JSON-RPC peer cannot round-trip one anyway) and no ``NaN`` or ``Infinity``
  (which are not JSON);
- a search text (``list_tools``' query, ``find_tools``' task) is at most
  :data:`MAX_QUERY_CHARS` characters.

The checks scan the text with regular expressions (strings blanked out first), never with
the parser whose limits they guard.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

from metaserver.exceptions import UserError

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_JSON_BYTES = 8 * 1024 * 1024
MAX_JSON_DEPTH = 100
MAX_NUMBER_CHARS = 1000
MAX_QUERY_CHARS = 2000

# A JSON string, escapes included (the unrolled-loop form: linear, no backtracking).
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_NUMBER = re.compile(rf"[-+0-9.eE]{{{MAX_NUMBER_CHARS + 1},}}")
_NOT_JSON = re.compile(r"\b(?:NaN|-?Infinity)\b")
_BRACKETS = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = str.maketrans({"[": "1", "{": "1", "]": "0", "}": "0"})


def json_problem(text: str) -> str | None:
    """What is wrong with ``text`` as bounded JSON, in a few words, or None.

    Only the bounds are judged (size, depth, number length, non-JSON constants); whether
    ``text`` is JSON at all is the parser's to say.
    """
    if len(text) > MAX_JSON_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_JSON_BYTES:
        return f"it is larger than {MAX_JSON_BYTES // (1024 * 1024)} MiB"
    bare = _STRING.sub('""', text)
    if _NUMBER.search(bare):
        return f"it holds a number longer than {MAX_NUMBER_CHARS} characters"
    constant = _NOT_JSON.search(bare)
    if constant:
        return f"it holds {constant.group()}, which is not JSON"
    steps = _BRACKETS.sub("", bare).translate(_DEPTH_STEP)
    if len(steps) > MAX_JSON_DEPTH:
        depths = itertools.accumulate(1 if step == "1" else -1 for step in steps)
        if max(depths, default=0) > MAX_JSON_DEPTH:
            return f"it is nested too deeply (more than {MAX_JSON_DEPTH} levels)"
    return None


def load_json(text: str, what: str) -> Any:
    """``text`` parsed as bounded JSON.

    Args:
        text: the JSON text.
        what: what it is, for the message (``"JSON_ARGS"``).

    Raises:
        UserError: ``text`` breaks a bound (:func:`json_problem`) or is not JSON.
    """
    problem = json_problem(text)
    if problem is not None:
        raise UserError(f"{what} is refused: {problem}")

    def finite(number: str) -> float:
        value = float(number)
        if not math.isfinite(value):  # 1e999 reads as an infinity
            raise UserError(f"{what} holds {number}, which is not a finite number")
        return value

    def constant(name: str) -> Any:
        raise UserError(f"{what} holds {name}, which is not JSON")

    try:
        return json.loads(text, parse_float=finite, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise UserError(f"{what} is not valid JSON: {exc.msg}") from None
    except (RecursionError, ValueError) as exc:  # belt and braces: the bounds cover both
        raise UserError(f"{what} cannot be read: {type(exc).__name__}") from None


def non_finite(value: Any, depth: int = 0) -> bool:
    """Whether parsed JSON ``value`` holds a NaN or an infinity (a parser that accepts them
    let one through)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if depth > MAX_JSON_DEPTH:
        return False  # deeper than the bound: refused by json_problem before parsing
    if isinstance(value, dict):
        return any(non_finite(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(non_finite(item, depth + 1) for item in value)
    return False


def read_text_file(path: Path, what: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file at ``path``, read only after its kind and size
    are checked.

    Args:
        path: the file.
        what: what it is, for the message (``"the batch file"``).
        max_bytes: the largest size accepted.

    Raises:
        UserError: not a regular file (a FIFO, a device, a directory), larger than
            ``max_bytes``, unreadable, or not UTF-8 text.
    """
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not wait; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
        os.close(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"{what} {path} is not a regular file")
        raise UserError(f"{what} {path} is larger than {_size(max_bytes)}")
    with os.fdopen(fd, "rb") as file:
        try:
            data = file.read(max_bytes + 1)
        except OSError as exc:
            raise UserError(f"cannot read {what} {path}: {exc.strerror}") from None
    if len(data) > max_bytes:  # it grew while we looked
        raise UserError(f"{what} {path} is larger than {_size(max_bytes)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{what} {path} is not UTF-8 text") from None


def check_query(text: str | None, what: str) -> None:
    """Refuse a search text longer than :data:`MAX_QUERY_CHARS`.

    Raises:
        UserError: it is longer (the message does not repeat it).
    """
    if text is not None and len(text) > MAX_QUERY_CHARS:
        raise UserError(f"{what} is longer than {MAX_QUERY_CHARS} characters")


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB" if count >= 1024 * 1024 else f"{count} bytes"
