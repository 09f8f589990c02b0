"""Coverage counts a method only on the class the README calls it on, through a real
conversion: another class's method of the same name covers nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from api_fixtures import make_tally_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_same_named_method_of_another_class_covers_nothing(tmp_path: Path) -> None:
    repo = make_tally_repo(tmp_path / "tallykit")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    passed = {t.target.rpartition(":")[2] for t in report.tools if t.status == "passed"}
    assert {"make_tally", "Tally.mean", "Ledger.total"} <= passed
    assert "Tally.total" not in passed  # deprecated: never a tool
    coverage = report.coverage
    assert coverage.basis == "readme"
    assert coverage.documented == ["make_tally", "total", "mean"]
    assert coverage.covered == ["make_tally", "mean"]
    assert coverage.ratio == round(2 / 3, 3)
