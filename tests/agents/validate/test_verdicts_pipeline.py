"""Honest verdicts through a real conversion: what is the repository's, and what is ours."""

from __future__ import annotations

import pytest
from verdict_fixtures import make_verdict_repo

from metaserver.contracts import ConversionReport, Evidence, ToolEvidence
from metaserver.pipeline import convert
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

TOOL_CALL_TIMEOUT = 6


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> ConversionReport:
    import asyncio

    root = tmp_path_factory.mktemp("verdicts")
    repo = make_verdict_repo(root / "verdictpack")
    settings = Settings(home=root / "home", timeouts={"tool_call": TOOL_CALL_TIMEOUT})
    return asyncio.run(convert(str(repo), settings=settings, max_tools=16))


def tool(report: ConversionReport, qualname: str) -> ToolEvidence:
    return next(t for t in report.tools if t.target.rpartition(":")[2] == qualname)


def by_value(report: ConversionReport, qualname: str) -> Evidence:
    """The evidence of a tool that passed by an expected value."""
    found = tool(report, qualname)
    assert found.status == "passed", found.error
    assert found.evidence is not None
    assert found.evidence.check == "expected-value"
    return found.evidence


def test_the_conversion_succeeds(report: ConversionReport) -> None:
    assert report.status == "success", report.failure
    assert report.tools_passed >= 3


def test_a_semicolon_separated_session_passes_by_its_documented_value(
    report: ConversionReport,
) -> None:
    mean = by_value(report, "RunningStats.mean")
    assert mean.result == 3.0
    assert [s.line for s in mean.session] == [
        "rs = RunningStats()",
        "rs.push(1)",
        "rs.push(2)",
        "rs.push(6)",
    ]


def test_a_documented_value_that_is_wrong_refuses_its_tool_with_the_replay(
    report: ConversionReport,
) -> None:
    read = tool(report, "Gauge.read")
    assert read.status == "dropped"
    assert read.failure_type == "repo_internal_bug", read.error
    assert read.evidence is not None
    assert read.evidence.replay == ["g = Gauge(2)", "g.read()"]
    # the repository's own doctest, run unchanged, disagrees too
    assert "standard doctest runner, shows '4'" in (read.error or "")


def test_a_readme_value_its_tests_contradict_is_noted_not_blamed(
    report: ConversionReport,
) -> None:
    # The README's 'JLLFSH' is older than the code; the tests' value settles it.
    codex = by_value(report, "consonants")
    assert (codex.arguments, codex.result) == ({"word": "abc"}, "ABC")
    assert len(codex.disagreed) == 1
    assert "JLLFSH" in codex.disagreed[0]
    assert "JLYFSH" in codex.disagreed[0]


def test_a_random_sample_is_proven_by_the_shape_its_tests_assert(
    report: ConversionReport,
) -> None:
    # Passed after the server's own replayed tests: they compare the shape, not the numbers
    # (a tool they fail is left out, dropped with their reason).
    noise = by_value(report, "noise")
    assert (noise.attribute, noise.expected) == ("shape", [2, 3])


def test_an_array_too_large_to_answer_is_proven_by_the_shape_its_notice_gives(
    report: ConversionReport,
) -> None:
    image = by_value(report, "blank")
    assert image.expected == [600, 700]
    notice = image.result
    assert isinstance(notice, dict) and notice["truncated"] is True
    assert notice["shape"] == [600, 700]


def test_a_table_shown_by_printing_it_is_the_answer_and_its_proof(
    report: ConversionReport,
) -> None:
    printed = by_value(report, "squares")
    assert printed.result == "n  square\n0  0\n1  1\n2  4\n3  9\n"
    # A printed table without an ELLIPSIS: read as pandas would print it, it is no frame
    # of this answer, so it is compared as doctest compares text.
    table = by_value(report, "powers")
    assert str(table.result).splitlines()[-1].split() == ["2", "4", "8"]


def test_a_call_that_kills_or_hangs_the_server_is_charged_alone(
    report: ConversionReport,
) -> None:
    for name in ("crash", "spin"):
        charged = tool(report, name)
        assert charged.status == "dropped"
        assert charged.failure_type != "repo_internal_bug", charged.error
    assert "restarted" in (tool(report, "crash").error or "")
    assert tool(report, "spin").failure_type == "timeout"
    # Whatever order they were called in, every other tool met a server that answered.
    assert all(
        "Connection closed" not in (t.error or "") for t in report.tools if t.name != "crash"
    )
    assert tool(report, "triple").status == "passed"


def test_a_tool_its_own_tests_cannot_replay_is_left_out_with_the_reason(
    report: ConversionReport,
) -> None:
    claim = tool(report, "claim")
    assert claim.status == "dropped"
    assert claim.failure_type == "api_inference_error"
    assert claim.error is not None
    assert "server's own tests" in claim.error
    assert "claimed already" in claim.error  # the reason its replay gave
