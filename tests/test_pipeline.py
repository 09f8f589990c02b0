"""The whole pipeline on fixture repositories: the validation gate and its repairs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_calc_repo, make_package_repo, make_repair_repo, make_spare_repo
from llm_server import ScriptedLLM, answer, by_schema, failing, llm_settings

from metaserver.agents.environment.cache import EnvironmentCache
from metaserver.contracts import CheckKind, ConversionReport, Evidence, ToolEvidence
from metaserver.exceptions import FailureType, UserError
from metaserver.pipeline import convert, dominant_failure, passed_by_check
from metaserver.registry import Registry
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_tool_dropped_beyond_repair_is_replaced_by_the_next_design(
    tmp_path: Path,
) -> None:
    repo = make_spare_repo(tmp_path / "spare")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings, max_tools=3)

    assert report.status == "success", report.failure
    statuses = {t.name: t.status for t in report.tools}
    # The three documented functions rank first; the broken one is dropped and the
    # undocumented spare, held in reserve, stands in for it in the next round.
    assert statuses == {
        "add": "passed",
        "double": "passed",
        "broken": "dropped",
        "reverse": "passed",
    }
    assert report.tools_passed == 3
    served = {t.name for t in Registry(settings.registry_path).get(report.server).tools}
    assert served == {"add", "double", "reverse"}


@pytest.mark.integration
async def test_each_repair_ends_in_the_right_status(tmp_path: Path) -> None:
    repo = make_repair_repo(tmp_path / "fixer")
    # Short enough that the tool that never returns is dropped soon, long enough that the
    # first call of the server restarted after it does not time out on a loaded machine
    # (2 s gave a third round there).
    settings = Settings(home=tmp_path / "home", timeouts={"tool_call": 5})

    report = await convert(str(repo), settings=settings)

    tools = {t.name: t for t in report.tools}
    assert report.status == "success", report.failure
    # Round 1 validates everything; round 2 re-runs only the repaired tools; the timeout
    # that failed twice is dropped without a third run.
    assert report.rounds == 2

    # An undeclared dependency: installed by the repair, then the doctest value matches.
    assert tools["shout"].status == "passed"
    assert tools["shout"].evidence is not None
    assert tools["shout"].evidence.result == "HI!"
    assert tools["shout"].repaired == "add_dependency"

    # No example in its own docstring: synthesised arguments fail, the module's doctest passes.
    assert tools["ratio"].status == "passed"
    assert tools["ratio"].evidence is not None
    assert tools["ratio"].evidence.check == "expected-value"
    assert tools["ratio"].evidence.result == 0.75
    assert tools["ratio"].repaired == "next_example"
    assert tools["add"].repaired is None

    # Never returns: one longer timeout, then dropped, in bounded time.
    assert tools["wait_forever"].status == "dropped"
    assert tools["wait_forever"].failure_type == "timeout"

    # Its doctest disagrees with its code: a repository bug, refused with both values.
    assert tools["double"].status == "dropped"
    assert tools["double"].failure_type == "repo_internal_bug"
    assert tools["double"].error is not None
    assert "expected 4" in tools["double"].error and "got 6" in tools["double"].error

    # An object with no JSON form comes back as a handle, in the first round.
    assert tools["make_box"].status == "passed"
    assert tools["make_box"].evidence is not None
    box = tools["make_box"].evidence.result
    assert set(box) == {"handle", "type", "repr"} and box["type"].endswith("Box")

    registered = {t.name for t in Registry(settings.registry_path).get("fixerpack").tools}
    assert registered == {"add", "negate", "square", "shout", "ratio", "make_box"}
    assert report.tools_passed == 6
    server = Path(report.output_dir or "")
    assert "def tool_double" not in (server / "server.py").read_text()
    assert '"repo_internal_bug"' in (server / "tools.json").read_text()


RATIO = '''

def parse_ratio(text: str) -> float:
    """The value of a ratio written as two integers around a colon."""
    left, right = text.split(":")
    return int(left) / int(right)
'''


@pytest.mark.integration
async def test_review_model_repairs_what_the_catalogue_gives_up_on(tmp_path: Path) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    module = repo / "calcpack" / "__init__.py"
    module.write_text(
        module.read_text().replace('"word_counts",', '"word_counts", "parse_ratio",') + RATIO
    )

    def diagnose(request: dict[str, object]) -> object:
        return answer(
            {
                "kind": "next_example",
                "reason": "the text must hold two integers around a colon",
                "arguments": {"text": "3:4"},
                "requirement": None,
                "timeout_seconds": None,
            }
        )

    # Every other agent fails (HTTP 500): only the review model contributes.
    with ScriptedLLM(by_schema({"tool_diagnosis": diagnose}, default=failing(500))) as llm:
        settings = Settings(home=tmp_path / "home", llm=llm_settings(llm.url), max_tools=8)
        report = await convert(str(repo), settings=settings)
        asked = llm.calls("tool_diagnosis")

    tools = {t.name: t for t in report.tools}
    assert report.status == "success", report.failure
    assert tools["parse_ratio"].status == "passed", tools["parse_ratio"]
    assert tools["parse_ratio"].repaired == "next_example"
    assert tools["parse_ratio"].evidence is not None
    assert tools["parse_ratio"].evidence.arguments == {"text": "3:4"}
    assert tools["parse_ratio"].evidence.result == 0.75
    assert len(asked) == 1  # asked once, for the one tool the catalogue could not save
    assert report.llm.calls >= 1


@pytest.mark.integration
async def test_converting_an_unchanged_local_tree_again_reuses_its_environment(
    tmp_path: Path,
) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    settings = Settings(home=tmp_path / "home")
    first = await convert(str(repo), settings=settings)
    again = await convert(str(repo), settings=settings)
    assert first.status == again.status == "success", (first.failure, again.failure)
    assert first.environment is not None and not first.environment.cached
    assert again.environment is not None and again.environment.cached
    assert again.tools_passed == first.tools_passed


async def test_a_conversion_the_disk_cannot_hold_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    repo = make_calc_repo(tmp_path / "calc")
    settings = Settings(home=tmp_path / "home", min_free_mb=10**12)
    with pytest.raises(UserError, match=r"MB free on the disk of METASERVER_HOME.* MB more"):
        await convert(str(repo), settings=settings)
    assert not (tmp_path / "home").exists()


TWO_TOOLS = '''\
"""Too small to serve: two documented functions, and a server needs three."""


def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(2, 3)
    5
    """
    return a + b


def double(x: int) -> int:
    """Double an integer.

    >>> double(4)
    8
    """
    return 2 * x
'''


@pytest.mark.integration
async def test_a_failed_conversion_keeps_its_report_and_server_and_nothing_else(
    tmp_path: Path,
) -> None:
    repo = make_package_repo(tmp_path / "small", "smallpack", "smallpack", TWO_TOOLS)
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "failed" and report.failure is not None
    assert report.tools_passed == 2
    # No workspace, environment or scratch directory of it is left...
    for parent in (settings.workspaces_dir, settings.environments_dir, settings.servers_dir):
        assert not parent.exists() or list(parent.iterdir()) == [], parent
    # ...but the stored environment it was built into stays for the next conversion.
    assert EnvironmentCache(settings.environment_store).entries()
    # Its report and generated server are kept, readable, under home/failed/.
    [entry] = list(settings.failed_dir.iterdir())
    kept = ConversionReport.model_validate_json((entry / "report.json").read_text())
    assert kept.status == "failed" and kept.failure == report.failure
    assert kept.output_dir == report.output_dir == str(entry / "server")
    assert (entry / "server" / "server.py").is_file() and (
        entry / "server" / "tools.json"
    ).is_file()
    assert {p.name for p in (entry / "server" / "work").iterdir()} <= {"server.log"}
    # The registry never heard of it.
    assert Registry(settings.registry_path).list_servers() == []


def test_the_conversion_fails_for_the_cause_most_tools_share() -> None:
    def failed(name: str, kind: FailureType) -> ToolEvidence:
        return ToolEvidence(name=name, target=f"p:{name}", status="failed", failure_type=kind)

    passed = ToolEvidence(name="ok", target="p:ok", status="passed")
    many_ours = [
        failed("a", "api_inference_error"),
        failed("b", "api_inference_error"),
        passed,
        failed("c", "repo_internal_bug"),  # the last one seen is not the cause
    ]
    assert dominant_failure(many_ours) == "api_inference_error"
    tie = [failed("a", "repo_internal_bug"), failed("b", "timeout")]
    assert dominant_failure(tie) == "timeout"  # a tie is not blamed on the repository
    assert dominant_failure([passed]) == "untoolable_repo"


def test_passed_tools_are_counted_by_the_check_that_proved_them() -> None:
    def tool(name: str, status: str, check: CheckKind | None) -> ToolEvidence:
        evidence = Evidence(arguments={}, check=check) if check else None
        return ToolEvidence(name=name, target=f"p:{name}", status=status, evidence=evidence)

    tools = [
        tool("a", "passed", "no-error"),
        tool("b", "passed", "expected-value"),
        tool("c", "passed", "expected-value"),
        tool("d", "failed", "expected-value"),  # failed: not counted
        tool("e", "passed", "notebook-run"),
        tool("f", "passed", None),
    ]
    counted = passed_by_check(tools)
    assert list(counted.items()) == [("expected-value", 2), ("notebook-run", 1), ("no-error", 1)]
