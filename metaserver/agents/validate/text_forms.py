"""Printed output with what is no finding taken out (ARCHITECTURE.md, "Honest attribution").

Two kinds of difference between a stored (or documented) output and a rerun's say nothing
about the repository's code:

- what changes from run to run or install to install: durations (``fit took 1.52 s``,
  ``12.3 ms ± 1 ms per loop``), version strings (``pkg 1.4.2``), dates and clock times,
  memory addresses, the names of temporary files (``/work/tmp3bdcw0td.dcm``: ``tempfile``'s
  eight random characters), where a package is installed (``/venv/lib/python3.11/site-
  packages/pkg/data/ct.dcm`` against the docs' ``/path/to/pkg/data/ct.dcm``: the last two
  parts are compared). ``masked`` replaces each with a placeholder on both sides, so it is not
  compared at all (``plain_reprs`` only the addresses: a doctest's value is a function's);
- a dependency's formatting: numpy 2 prints ``array([1., 2.])`` where a notebook run with
  numpy 1, or a list, showed ``[1.0, 2.0]``; a class's repr names the module that defines it
  (``<pkg._core.Model object>``, ``<pkg.Model object>``). ``unwrapped_arrays`` and the class
  names in ``plain_reprs`` leave the values to be compared.
"""

from __future__ import annotations

import re

__all__ = ["masked", "numpy_printed", "plain_reprs", "unwrapped_arrays"]

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{4,}\b")
_DURATION = re.compile(
    r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?\s*"
    r"(?:ns|µs|μs|us|ms|s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?)(?![\w])"
    r"(?:\s*±\s*[-+]?(?:\d+\.\d*|\.\d+|\d+)\s*(?:ns|µs|μs|us|ms|s))?"
)
_DATE_TIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
    r"|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b"
)
# Three dotted numbers (``1.4.2``, ``2.0.1rc1``, ``v0.16.1.dev3+g1a2b``), or two after the
# word version (``version 2.1``): what an install, not the code, decides.
_VERSION = re.compile(
    r"(?<![\w.])v?\d+\.\d+\.\d+(?:[.+-]?[A-Za-z0-9]+)*(?![\w.])"
    r"|(?i:\bversion\b)\s*:?\s*v?\d+\.\d+(?:[.+-]?[A-Za-z0-9]+)*"
)
# ``tempfile``'s names: ``tmp`` and eight of its random characters (a file or a folder), one
# a digit at least, so that a name an example chose (``tmp_results``) stays compared; in a
# path (``/work/tmpgnbfyotp.dcm``) any eight, since one name in twelve has no digit (pydicom's
# ``plot_write_dicom`` was reported as unseeded randomness for such a name).
_TEMPORARY = re.compile(r"\btmp(?=[a-z_]{0,7}\d)[a-z0-9_]{8}\b|(?<=/)tmp[a-z0-9_]{8}\b")
# A path of three folders or more, from the root, home, or a placeholder the docs wrote
# (``[path/to]/pkg/data/ct.dcm``, ``/path/to/pkg/...``): where the package is installed
# is the install's; its last two parts (the data file and its folder) are the code's.
_PATH = re.compile(
    r"(?:(?<![\w.\]])~|\[[^\]\s/]*(?:/[^\]\s/]*)*\]|(?<![\w.:/\]~]))(?:/[\w.@+-]+){3,}"
)
# ``<pkg._core.Model object at ...>``: the class by its own name, not its module's path.
_CLASS_PATH = re.compile(r"<(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_]\w*[\s>:(])")
_ARRAY_CALL = re.compile(r"\b(?:np\.|numpy\.)?array\(")
_PRINTED_ARRAY = re.compile(r"\[[\[\]\s\d.eE+\-naif]*\]")
_PRINTED_TOKEN = re.compile(r"\[|\]|[^\s\[\]]+")
_ARRAY_OPTIONS = re.compile(r",\s*(?:dtype|shape)=[^,()]*(?:\([^()]*\))?[^,()]*$")


def masked(text: str) -> str:
    """``text`` as ``plain_reprs`` makes it, and its durations, dates and times, and
    versions as placeholders: for the output of a whole run (a notebook's), where what the
    clock and the install print is no finding. A value a function returns for its
    arguments (a date library's date, a version parser's version) is not masked: it is
    what the function computes."""
    text = plain_reprs(text)
    text = _DATE_TIME.sub("<moment>", text)
    text = _VERSION.sub("<version>", text)
    text = _TEMPORARY.sub("<temporary>", text)
    text = _PATH.sub(_path_tail, text)
    return _DURATION.sub("<duration>", text)


def _path_tail(match: re.Match[str]) -> str:
    return "<path>/" + "/".join(match.group(0).rsplit("/", 2)[-2:])


def plain_reprs(text: str) -> str:
    """``text`` with memory addresses as ``0x?`` and a class named in a repr by its own
    name (``<pkg._core.Model object at 0x?>`` as ``<Model object at 0x?>``)."""
    return _CLASS_PATH.sub("<", _ADDRESS.sub("0x?", text))


def unwrapped_arrays(text: str) -> str:
    """``text`` with each numpy array repr as the list it shows: ``array([1., 2.])`` as
    ``[1., 2.]``, its ``dtype=`` (and a summary's ``shape=``) left out."""
    out: list[str] = []
    position = 0
    for match in _ARRAY_CALL.finditer(text):
        if match.start() < position:
            continue  # inside an array already unwrapped
        end = _closing(text, match.end())
        if end is None:
            break
        out.append(text[position : match.start()])
        inner = unwrapped_arrays(text[match.end() : end])
        while True:
            trimmed = _ARRAY_OPTIONS.sub("", inner)
            if trimmed == inner:
                break
            inner = trimmed
        out.append(inner)
        position = end + 1
    out.append(text[position:])
    return "".join(out)


def _closing(text: str, start: int) -> int | None:
    """The index of the ``)`` that closes the bracket opened just before ``start``."""
    depth = 1
    for index in range(start, len(text)):
        if text[index] in "([{":
            depth += 1
        elif text[index] in ")]}":
            depth -= 1
            if depth == 0:
                return index if text[index] == ")" else None
    return None


def numpy_printed(text: str) -> tuple[list[object], list[float]] | None:
    """What ``print`` of a numpy array of numbers shows, read back: (nested lists, each
    number's slack in order: half a unit of the last digit printed, which numpy makes the
    same for all numbers of a fixed-point array), or None for any other text. numpy writes
    an array's ``str`` without commas (``[[1. 2.]`` then `` [3. 4.]]``, ``[0 0 0 0]``); an
    array it shortened (``...``) is not all shown and is no value."""
    text = text.strip()
    if not _PRINTED_ARRAY.fullmatch(text) or "..." in text:
        return None
    stack: list[list[object]] = [[]]
    places: list[tuple[int, int]] = []  # (decimals, exponent) of each number
    for part in _PRINTED_TOKEN.findall(text):
        if part == "[":
            stack.append([])
        elif part == "]":
            if len(stack) < 2:
                return None
            done = stack.pop()
            stack[-1].append(done)
        else:
            try:
                number: object = int(part) if part.lstrip("+-").isdigit() else float(part)
            except ValueError:
                return None
            mantissa, _, exponent = part.lower().partition("e")
            places.append((len(mantissa.partition(".")[2]), int(exponent or 0)))
            stack[-1].append(number)
    if len(stack) != 1 or len(stack[0]) != 1 or not isinstance(stack[0][0], list):
        return None
    widest = max((d for d, e in places if e == 0), default=0)
    slack = [0.5 * 10.0 ** (e - d) if e else 0.5 * 10.0**-widest for d, e in places]
    return stack[0][0], slack
