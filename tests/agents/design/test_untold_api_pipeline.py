"""A README with no code: the main API is what the tests call, proven by the values they
assert, through a real conversion and MCP."""

from __future__ import annotations

from pathlib import Path

import pytest
from api_fixtures import make_untold_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_the_tests_main_api_is_chosen_and_proven_by_their_values(tmp_path: Path) -> None:
    repo = make_untold_repo(tmp_path / "textkit")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings, max_tools=6)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    # the values the tests assert prove the tools: ==, pytest.approx, assertAlmostEqual
    for name, expected in (
        ("edit_distance", 3),
        ("ngrams", [["to", "be"], ["be", "or"]]),
        ("overlap", 0.5),
        ("mean_length", 2.0),
    ):
        tool = tools[name]
        assert tool.status == "passed", (name, tool.error)
        assert tool.evidence is not None
        assert tool.evidence.check == "expected-value", name
        assert tool.evidence.expected == expected, name
    # the loader copied into four sibling modules is one tool
    loaders = [t for t in report.tools if t.target.endswith(":load")]
    assert len(loaders) == 1
    # the internal helpers, though their doctests prove them, do not take the API's places
    assert not any(t.target.startswith(("textkit.utils:", "textkit.compat:")) for t in report.tools)
    # coverage is measured on the public namespace: neither 100% of nothing nor n/a
    coverage = report.coverage
    assert coverage.basis == "namespace"
    assert coverage.documented[:3] == ["edit_distance", "ngrams", "overlap"]
    assert set(coverage.documented) == {"edit_distance", "ngrams", "overlap", "stem"}
    assert coverage.ratio is not None
    assert {"edit_distance", "ngrams", "overlap"} <= set(coverage.covered)
