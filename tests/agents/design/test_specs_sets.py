"""A README's set literals (``common({"H2", "O2"}, ...)``): read as sorted lists, and the
parameters they reach decode them as sets (specs._set_codecs, usage.UsageCall.sets)."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.design.specs import design
from metaserver.agents.repo_docs.usage import mine_usage
from metaserver.contracts import Candidate, CodeReport, Parameter
from metaserver.probe.arguments import ANY_JSON


def test_set_literals_are_read_and_their_parameters_take_sets(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "```python\n>>> common({'NaCl', 'H2O'}, second={'H2O'}, third=[3, 1])\n['H2O']\n```\n"
    )
    usage = mine_usage(tmp_path, {"common"})
    [call] = usage.calls["common"]
    assert (call.args, call.kwargs) == ([["H2O", "NaCl"]], {"second": ["H2O"], "third": [3, 1]})
    assert call.sets == ["0", "second"] and call.expected == ["H2O"]

    untyped = {"description": ANY_JSON}
    parameters = [
        Parameter(name=n, kind="positional_or_keyword", json_schema=untyped, description=ANY_JSON)
        for n in ("first", "second", "third")
    ]
    candidate = Candidate(
        target="pkg.mod:common",
        name="common",
        signature="common(first, second, third)",
        parameters=parameters,
        positional=["first", "second", "third"],
    )
    [spec] = design(CodeReport(packages=["pkg"], candidates=[candidate]), 1, usage)
    found = {p.name: (p.codec, p.json_schema, p.description) for p in spec.parameters}
    assert found == {
        "first": ("set", {"type": "array"}, None),
        "second": ("set", {"type": "array"}, None),
        "third": (None, untyped, ANY_JSON),
    }
    assert "set" in spec.codecs
    assert {"first": ["H2O", "NaCl"], "second": ["H2O"], "third": [3, 1]} in [
        e.arguments for e in spec.examples
    ]
