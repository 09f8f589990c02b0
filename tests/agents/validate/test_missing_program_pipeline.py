"""A documented example that fails only because the external program the library runs is
not installed: its verdict says so (``env_failure``, the program named), and README
coverage lists the name apart instead of counting it as missed."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_solver_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_missing_program_is_an_environment_verdict(tmp_path: Path) -> None:
    repo = make_solver_repo(tmp_path / "solverpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    energy = tools["Solver.energy"]
    assert energy.status != "passed"
    assert energy.failure_type == "env_failure", energy.error
    assert energy.program == "fixture-solver-absent"
    assert energy.error is not None and "fixture-solver-absent" in energy.error
    assert tools["add"].status == "passed" and tools["add"].program is None

    coverage = report.coverage
    assert coverage.needs_programs == ["energy"]
    assert "energy" in coverage.documented and "energy" not in coverage.covered
    # Solver and add both passed: energy is out of the denominator, so nothing is missed
    assert coverage.ratio == 1.0
