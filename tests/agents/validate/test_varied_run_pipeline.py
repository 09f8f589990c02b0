"""A tutorial that fixes a parameter's value elsewhere (a size its later arithmetic needs) is
proven by its faithful runs; the run with other parameters that fails is recorded, with the
parameters the tutorial fixes, and blamed on no one (issue 30, corner's ``custom``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from varied_fixtures import make_varied_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_parameter_the_tutorial_fixes_does_not_fail_the_tool(tmp_path: Path) -> None:
    repo = make_varied_repo(tmp_path / "gridpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings, max_tools=8)

    assert report.status == "success", report.failure
    grid = {t.name: t for t in report.tools}["grid"]
    assert grid.status == "passed", grid.error
    evidence = grid.evidence
    assert evidence is not None and evidence.check == "notebook-run"
    assert evidence.arguments == {"ndim": 2, "nsamples": 50, "scale": 2.0}
    assert evidence.expected == [{"cell": 2, "stdout": "40 rows\n", "text": "[2.0, 10.0, 18.0]"}]
    assert all(pair["match"] for pair in evidence.compared)
    other = evidence.other_run
    assert isinstance(other, dict)
    assert other["arguments"] == {"ndim": 3, "nsamples": 51, "scale": 2.2}
    assert other["passed"] is False
    (difference,) = other["differences"]
    assert "cannot reshape 122 values into 40 rows" in difference
    # Moved one at a time: nsamples alone breaks the tutorial's own arithmetic.
    assert other["fixed"] == ["nsamples"]
    assert other["varies"] == ["ndim", "scale"]
    assert report.tutorials is not None
    assert report.tutorials.passed == {"notebook-run": 1}
