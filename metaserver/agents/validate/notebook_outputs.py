"""Check ``notebook-outputs``: a rerun with the defaults reproduces the notebook's stored outputs.

Text is compared after whitespace normalisation (none kept next to punctuation: library
versions print ``Text(0,0.5,'f')`` or ``Text(0, 0.5, 'f')``), with memory addresses in object
reprs ignored (IPython shows ``<Line2D at 0x…>`` where ``repr`` says ``object at``) and numpy
2's reprs read as numpy 1 showed them (``np.float64(1.5)`` as ``1.5``, a summarised array
without its ``shape=``), and the type name of a repr that describes its object after a colon
not compared (``<AxesSubplot:xlabel='t'>`` stored where a later matplotlib shows
``<Axes: xlabel='t'>``: classes are merged and renamed between versions, what follows the
colon is the value shown), an array's repr as the list it shows, and what changes from run
to run (timings, versions, dates; ``text_forms.py``) not compared at all; the numbers inside
it are compared within 3% relative (a rerun on another machine prints other rounding noise,
a different library version other last digits).
A docs page's ``>>>`` example stores what it shows (``shown``, doctest's reading): the cell's
printed output followed by its value's text, since a call that prints shows no value.
Figures are compared by perceptual hash (``runtime/phash.py``, computed the same way on both
sides): as many as stored, each within Hamming distance 20; a PNG that cannot be decoded is
compared by count only.
"""

from __future__ import annotations

import math
import re

from metaserver.agents.validate.text_forms import masked, unwrapped_arrays
from metaserver.contracts import JSON, ToolEvidence
from metaserver.runtime.phash import SAME_FIGURE, hamming

__all__ = ["RELATIVE_TOLERANCE", "compare_outputs", "notebook_seconds", "texts_match"]

RELATIVE_TOLERANCE = 0.03
_ADDRESS = re.compile(r"(?:\bobject )?\bat 0x[0-9a-fA-F]+")
# numpy 2 shows a scalar as np.float64(1.5) where notebooks run with numpy 1 stored 1.5.
_NUMPY_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|complex|bool|str)\w*\(([^()]*)\)")
_NUMPY_SHAPE = re.compile(r",\s*shape=\(\d+(?:,\s*\d+)*,?\)")
# <TypeName: what it shows>: the description is compared, not the class that gives it.
_DESCRIBED_REPR = re.compile(r"<[A-Za-z_][\w.]*:")
_AROUND_PUNCTUATION = re.compile(r"\s*([,:;=()\[\]{}])\s*")
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def compare_outputs(result: JSON, stored: JSON) -> tuple[list[JSON], list[str]]:
    """The compared pairs, and a line per difference (none: the outputs reproduce)."""
    compared: list[JSON] = []
    differences: list[str] = []
    cells = result.get("cells", []) if isinstance(result, dict) else []
    ran = {c.get("cell"): c for c in cells if isinstance(c, dict)}
    figures = result.get("figures", []) if isinstance(result, dict) else []
    for expected in stored if isinstance(stored, list) else []:
        number = expected.get("cell")
        cell = ran.get(number)
        if cell is None:
            differences.append(f"cell {number}: did not run")
            continue
        for kind, key in (("stdout", "stdout"), ("value", "text"), ("shown", "shown")):
            if key not in expected:
                continue
            want, got = str(expected[key]), str(cell.get(key) or "")
            if key == "shown":  # a >>> example shows what it printed, then its value
                got = "\n".join(str(cell.get(k) or "").rstrip("\n") for k in ("stdout", "text"))
            same = texts_match(got, want)
            compared.append(_pair(number, kind, want, got, same))
            if not same:
                shown = f"stored {want[:100]!r}, got {got[:100]!r}"
                differences.append(f"cell {number} {kind}: {shown}")
        if "images" in expected:
            drawn = [f for f in figures if isinstance(f, dict) and f.get("cell") == number]
            stored_hashes = expected["images"] if isinstance(expected["images"], list) else []
            same, shown = _same_figures(stored_hashes, [f.get("hash") for f in drawn])
            compared.append(_pair(number, "figures", stored_hashes, shown, same))
            if not same:
                differences.append(
                    f"cell {number} figures: stored {len(stored_hashes)}, drew {len(drawn)}"
                    f" ({shown})"
                )
    return compared, differences


def notebook_seconds(evidence: list[ToolEvidence]) -> dict[str, float]:
    """How long each notebook tool's validation run took, as ``notebook:<tool>`` seconds."""
    seconds: dict[str, float] = {}
    for item in evidence:
        found = item.evidence
        if found is None or found.check not in ("notebook-outputs", "notebook-run"):
            continue
        if isinstance(found.result, dict) and isinstance(found.result.get("seconds"), int | float):
            seconds[f"notebook:{item.name}"] = float(found.result["seconds"])
    return seconds


def _same_figures(stored: list[JSON], drawn: list[JSON]) -> tuple[bool, JSON]:
    """As many figures, each within the Hamming distance of the stored one (when both
    could be hashed); what was drawn, with the distances."""
    if len(stored) != len(drawn):
        return False, drawn
    distances: list[int | None] = []
    for want, got in zip(stored, drawn, strict=True):
        if isinstance(want, str) and isinstance(got, str):
            distances.append(hamming(got, want))
        else:
            distances.append(None)
    same = all(d is None or d < SAME_FIGURE for d in distances)
    return same, [{"hash": h, "distance": d} for h, d in zip(drawn, distances, strict=True)]


def _pair(cell: JSON, output: str, stored: JSON, rerun: JSON, match: bool) -> JSON:
    return {"cell": cell, "output": output, "stored": stored, "rerun": rerun, "match": match}


def texts_match(got: str, want: str) -> bool:
    """Equal after whitespace normalisation, addresses ignored, numbers within 3%."""
    got_parts, want_parts = _tokens(got), _tokens(want)
    if len(got_parts) != len(want_parts):
        return False
    for a, b in zip(got_parts, want_parts, strict=True):
        if isinstance(a, float) and isinstance(b, float):
            if not math.isclose(a, b, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12):
                return False
        elif a != b:
            return False
    return True


def _tokens(text: str) -> list[str | float]:
    """Text split into its numbers and the (whitespace-normalised) words between them."""
    # What varies between runs is not compared; an array is the list it shows (text_forms).
    text = masked(unwrapped_arrays(_ADDRESS.sub("at 0x?", text)))
    text = _NUMPY_SCALAR.sub(r"\1", text)
    text = _DESCRIBED_REPR.sub("<?:", text)
    text = _AROUND_PUNCTUATION.sub(r"\1", _NUMPY_SHAPE.sub("", text))
    # A 2-d array's str shows its rows apart (``[[1 2]\n [3 4]]``), a list's repr with commas.
    text = text.replace("][", "],[")
    text = " ".join(text.split())
    parts: list[str | float] = []
    position = 0
    for match in _NUMBER.finditer(text):
        if match.start() > position:
            between = text[position : match.start()]
            # ``[1. 2.]`` (an array's str) shows the list ``[1.0, 2.0]`` shows
            parts.append("," if between == " " and parts else between)
        parts.append(float(match.group()))
        position = match.end()
    if position < len(text):
        parts.append(text[position:])
    return parts
