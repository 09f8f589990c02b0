"""A conversion whose README uses the part of the package that needs an optional extra."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_extra_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_the_extra_the_readme_needs_is_installed_and_its_function_is_a_tool(
    tmp_path: Path,
) -> None:
    repo = make_extra_repo(tmp_path / "chunkpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    # Only the extra the README reaches (not "test", not the self-referencing "all").
    assert [(e.name, e.requirements) for e in report.environment.extras] == [
        ("chunks", ["more-itertools==11.2.1"])
    ]
    assert "chunkpack/chunking.py imports more_itertools" in report.environment.extras[0].reason
    assert report.environment.added == []  # decided up front, not by a failed import
    pairs = {t.target: t for t in report.tools}["chunkpack.chunking:pairs"]
    assert pairs.status == "passed", pairs.error
    assert pairs.evidence is not None and pairs.evidence.result == [[1, 2], [3]]
    assert pairs.evidence.check == "expected-value"
    assert report.coverage.covered == ["pairs"] and report.coverage.ratio == 1.0
