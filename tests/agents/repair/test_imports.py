"""The missing-module repair at the import probe, in a whole conversion."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_undeclared_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_an_undeclared_import_is_installed_before_analysis_gives_up(
    tmp_path: Path,
) -> None:
    repo = make_undeclared_repo(tmp_path / "loudpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    # The first probe could not import loudpack (no module named 'six'); the install the
    # validation repair would make ran first, and the second probe found the tools.
    assert report.status == "success", report.failure
    assert report.environment is not None
    assert report.environment.added == ["six"]
    passed = {t.name for t in report.tools if t.status == "passed"}
    assert passed == {"shout", "whisper", "joined"}
