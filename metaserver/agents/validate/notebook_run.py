"""Check ``notebook-run``: a tutorial saved without outputs, run here to make its reference.

Most research repositories save their notebooks without outputs, and example scripts store
none at all, so there is nothing of theirs to reproduce. The tool's first run with its
defaults (in the sandbox, through MCP, as every call) makes the reference: each cell's
printed output, value text and figures, and the figures it saved as files. The tool is
proven by a second run with the same arguments reproducing that reference (compared as
``notebook-outputs`` compares stored outputs: values as values, figures by perceptual hash)
and by a run with other parameters that must finish and show the same kinds of outputs.
Two runs with the same arguments that disagree show unseeded randomness: that is reported
(``Evidence.unseeded``), never passed, since no reference can be made of it.

A run with other parameters that fails while the faithful runs agree says the tutorial fixes
a value elsewhere (corner's ``nsamples`` must stay a multiple of 5 for a later ``reshape``):
each moved parameter is then tried alone (``lone_variations``), those that fail alone are
recorded as ``fixed``, and the tool stands on its faithful runs (ARCHITECTURE.md decision 32).
"""

from __future__ import annotations

from metaserver.agents.validate.notebook_outputs import compare_outputs
from metaserver.contracts import JSON, Parameter
from metaserver.runtime.phash import SAME_FIGURE, hamming

__all__ = [
    "MAX_LONE_RUNS",
    "lone_variations",
    "other_kinds",
    "reference_outputs",
    "reproduction",
    "varied_arguments",
]

# Each lone run costs a tutorial's run; a tutorial with more moved numbers is recorded on
# the first ones only (the rest are neither fixed nor varied).
MAX_LONE_RUNS = 4


def reference_outputs(result: JSON) -> list[JSON]:
    """A run's outputs in the shape of stored ones: ``{"cell", "stdout", "text", "images"}``
    for each cell that showed something."""
    if not isinstance(result, dict):
        return []
    figures = [f for f in result.get("figures") or [] if isinstance(f, dict)]
    outputs: list[JSON] = []
    for cell in result.get("cells") or []:
        if not isinstance(cell, dict):
            continue
        number = cell.get("cell")
        entry: dict[str, JSON] = {"cell": number}
        if cell.get("stdout"):
            entry["stdout"] = cell["stdout"]
        if cell.get("text") is not None:
            entry["text"] = cell["text"]
        images = [f.get("hash") for f in figures if f.get("cell") == number]
        if images:
            entry["images"] = images
        if len(entry) > 1:
            outputs.append(entry)
    return outputs


def saved_figures(result: JSON) -> dict[str, JSON]:
    """The PNG files a run wrote, by their path in its run directory, with their hashes."""
    if not isinstance(result, dict):
        return {}
    saved: dict[str, JSON] = {}
    for item in result.get("files") or []:
        if isinstance(item, dict) and "hash" in item and isinstance(item.get("path"), str):
            # notebooks/<run>/<path>: the run's own directory differs from run to run
            parts = item["path"].split("/")
            saved["/".join(parts[2:]) or item["path"]] = item["hash"]
    return saved


def reproduction(first: JSON, second: JSON) -> tuple[list[JSON], list[str]]:
    """The second run beside the first's outputs, and a line per difference."""
    compared, differences = compare_outputs(second, reference_outputs(first))
    made, again = saved_figures(first), saved_figures(second)
    for path in sorted(made):
        got = again.get(path)
        want = made[path]
        if isinstance(want, str) and isinstance(got, str):
            same = hamming(got, want) < SAME_FIGURE
        else:
            same = path in again
        compared.append(
            {"cell": None, "output": f"saved {path}", "stored": want, "rerun": got, "match": same}
        )
        if not same:
            differences.append(f"saved figure {path}: " + ("differs" if got else "not written"))
    return compared, differences


def varied_arguments(parameters: list[Parameter], arguments: dict[str, JSON]) -> dict[str, JSON]:
    """``arguments`` with each number moved a little (an integer by one, a float by a tenth),
    so that a run with them takes other values the same way; unchanged when none is a number.
    """
    varied = dict(arguments)
    for parameter in parameters:
        value = varied.get(parameter.name, parameter.default)
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            varied[parameter.name] = value + 1
        elif isinstance(value, float) and value != 0.0:
            varied[parameter.name] = float(f"{value * 1.1:.6g}")
    return varied


def lone_variations(
    arguments: dict[str, JSON], varied: dict[str, JSON]
) -> list[tuple[str, dict[str, JSON]]]:
    """Each parameter ``varied`` moves, with ``arguments`` where only that one is moved, in
    parameter order and at most ``MAX_LONE_RUNS``."""
    moved = [name for name in varied if varied[name] != arguments.get(name)]
    return [(name, {**arguments, name: varied[name]}) for name in moved[:MAX_LONE_RUNS]]


def other_kinds(first: JSON, other: JSON) -> list[str]:
    """Where the run with other parameters did not show what the first showed: a cell's
    printed output, value or figures, or a saved figure (their values may differ)."""
    shown = {o.get("cell"): o for o in reference_outputs(other) if isinstance(o, dict)}
    missing: list[str] = []
    for entry in reference_outputs(first):
        if not isinstance(entry, dict):
            continue
        there = shown.get(entry.get("cell")) or {}
        for kind, label in (("stdout", "printed output"), ("text", "value"), ("images", "figures")):
            if kind in entry and kind not in there:
                missing.append(f"cell {entry.get('cell')}: no {label}")
    saved = saved_figures(other)
    missing += [
        f"saved figure {path}: not written" for path in saved_figures(first) if path not in saved
    ]
    return missing
