"""The standard doctest runner's word on a verdict blamed on the repository."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from metaserver.agents.validate.doctest_replay import RUNNER, judged, only_formatting
from metaserver.contracts import Evidence, ToolEvidence

MODULE = textwrap.dedent(
    '''
    """Fixture module."""


    class Stats:
        """A running mean.

        >>> rs = Stats()
        >>> rs.push(1); rs.push(2); rs.push(6)
        >>> rs.mean()
        3.0
        """

        def __init__(self):
            self.values = []

        def push(self, value):
            self.values.append(value)

        def mean(self):
            return sum(self.values) / len(self.values)


    class Sibling(Stats):
        """Another running statistic."""

        def mean(self):
            return 0.0


    def wrong(x):
        """Doubles.

        >>> wrong(2)
        5
        """
        return 2 * x
    '''
)


@pytest.mark.parametrize(
    ("got", "want"),
    [
        ("array([1., 2., 6.])\n", "[1.0, 2.0, 6.0]\n"),
        ("[1.0,  2.0]\n", "[1.0, 2.0]\n"),
        ("<pkg._core.Model object at 0x7f00aa12>\n", "<pkg.Model object at 0x55cc0134>\n"),
        ("(1, 2)\n", "[1, 2]\n"),
    ],
)
def test_a_difference_only_in_formatting(got: str, want: str) -> None:
    assert only_formatting(got, want)


@pytest.mark.parametrize(
    ("got", "want"),
    [("4\n", "5\n"), ("array([1., 2., 7.])\n", "[1.0, 2.0, 6.0]\n"), ("'a'\n", "'b'\n")],
)
def test_a_difference_in_values(got: str, want: str) -> None:
    assert not only_formatting(got, want)


def run_runner(tmp_path: Path, asked: list[list[str]]) -> dict[str, dict[str, object]]:
    (tmp_path / "fixturemod.py").write_text(MODULE)
    ran = subprocess.run(
        [sys.executable, "-c", RUNNER, json.dumps(asked)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path)},
        timeout=60,
        check=True,
    )
    answers: dict[str, dict[str, object]] = json.loads(ran.stdout)
    return answers


def test_the_runner_runs_the_docstring_unchanged(tmp_path: Path) -> None:
    answers = run_runner(
        tmp_path,
        [
            ["mean", "fixturemod:Stats.mean", "rs.mean()"],
            ["wrong", "fixturemod:wrong", "wrong(2)"],
            ["nowhere", "fixturemod:wrong", "wrong(3)"],
            ["sibling", "fixturemod:Sibling.mean", "rs.mean()"],
        ],
    )
    # Written for Stats, not for the Sibling our tool called it on: run where it was written.
    assert answers["sibling"]["where"] == "Stats"
    assert answers["sibling"]["outcome"] == "success"
    # The ;-separated line runs as written, in the class's docstring: the value is right.
    assert answers["mean"]["outcome"] == "success"
    assert answers["mean"]["where"] == "Stats"
    assert answers["mean"]["lines"] == [
        "rs = Stats()",
        "rs.push(1); rs.push(2); rs.push(6)",
        "rs.mean()",
    ]
    assert answers["wrong"]["outcome"] == "failure"
    assert answers["wrong"]["got"] == "4\n"
    assert answers["nowhere"] == {"found": False}


def blamed() -> ToolEvidence:
    return ToolEvidence(
        name="t",
        target="m:f",
        status="failed",
        error="expected 5, got 4",
        failure_type="repo_internal_bug",
        evidence=Evidence(arguments={}, check="expected-value", replay=["f(2)"]),
    )


def test_a_doctest_that_passes_unchanged_makes_the_verdict_ours() -> None:
    answer = {"found": True, "where": "f", "outcome": "success", "got": "5\n", "want": "5\n"}
    verdict = judged(blamed(), answer)
    assert verdict.failure_type == "api_inference_error"
    assert "passes" in (verdict.error or "")


def test_a_formatting_only_difference_makes_the_verdict_ours() -> None:
    answer = {
        "found": True,
        "where": "f",
        "outcome": "failure",
        "got": "array([1., 2.])\n",
        "want": "[1.0, 2.0]\n",
    }
    assert judged(blamed(), answer).failure_type == "api_inference_error"


def test_a_doctest_that_disagrees_unchanged_keeps_the_verdict_with_its_lines() -> None:
    answer = {
        "found": True,
        "where": "f",
        "outcome": "failure",
        "got": "4\n",
        "want": "5\n",
        "lines": ["x = 2", "f(x)"],
    }
    verdict = judged(blamed(), answer)
    assert verdict.failure_type == "repo_internal_bug"
    assert verdict.evidence is not None
    assert verdict.evidence.replay == ["x = 2", "f(x)"]
    # No answer (a README's line, a runner that did not run): the verdict as it was.
    assert judged(blamed(), {"found": False}) == blamed()
    assert judged(blamed(), None) == blamed()
