"""Applying repairs between validation rounds (metaserver/agents/repair/rounds.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from draft_helpers import draft, spec

from metaserver.agents.repair import rounds
from metaserver.agents.repair.catalogue import TIMEOUT_FACTOR, Repair, RepairState
from metaserver.agents.repair.rounds import apply_repairs, needing_failed_tools
from metaserver.contracts import (
    Evidence,
    Example,
    NotebookCell,
    NotebookTarget,
    SessionStep,
    ToolEvidence,
    ToolSpec,
)
from metaserver.exceptions import DownloadTooLarge, EnvironmentBuildError


@pytest.mark.parametrize(("seconds", "expected"), [(90.0, 90.0), (None, 30.0 * TIMEOUT_FACTOR)])
async def test_a_longer_timeout_uses_the_seconds_proposed(
    tmp_path: Path, seconds: float | None, expected: float
) -> None:
    tool = spec()
    repair = Repair(tool="ratio", kind="longer_timeout", timeout=seconds, reason="slow")
    state = RepairState()
    attempts = await apply_repairs(draft(tmp_path), [repair], [tool], state)
    assert tool.timeout == expected and state.extended == {"ratio"} and attempts == {}


async def test_a_longer_timeout_never_shortens_the_budget(tmp_path: Path) -> None:
    tool = spec()
    tool.timeout = 200.0
    repair = Repair(tool="ratio", kind="longer_timeout", timeout=60.0, reason="slow")
    await apply_repairs(draft(tmp_path), [repair], [tool], RepairState())
    assert tool.timeout == 200.0


async def test_next_example_hands_its_examples_to_validation(tmp_path: Path) -> None:
    example = Example(arguments={"text": "3:4"}, origin="llm")
    repair = Repair(tool="ratio", kind="next_example", examples=[example], reason="x")
    attempts = await apply_repairs(draft(tmp_path), [repair], [spec()], RepairState())
    assert attempts == {"ratio": [example]}


async def test_a_notebooks_companions_that_cannot_install_leave_the_missing_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The install itself is the real uv in the sandbox elsewhere (test_dependencies); here,
    # which installs are asked for, and in which order, when a companion is no distribution.
    asked: list[list[str]] = []

    async def install(_environment: object, packages: list[str], *_: object, **__: object) -> None:
        asked.append(packages)
        if "mpl_toolkits" in packages:
            raise EnvironmentBuildError("no distribution mpl_toolkits")

    monkeypatch.setattr(rounds, "add_packages", install)
    repair = Repair(
        tool="ratio",
        kind="add_dependency",
        package="matplotlib",
        companions=["corner", "mpl_toolkits"],
        reason="missing",
    )
    state = RepairState()
    await apply_repairs(draft(tmp_path), [repair], [spec()], state)
    assert asked == [["matplotlib", "corner", "mpl_toolkits"], ["matplotlib"]]
    assert state.installed == {"matplotlib"}


UV_NOT_FOUND = (
    "installing matplotlib, mpl_toolkits, scipy failed: error: No solution found when "
    "resolving dependencies\n  cause: Because mpl-toolkits was not found in the package "
    "registry and you require mpl-toolkits, we can conclude that your requirements are "
    "unsatisfiable."
)


async def test_a_missing_module_no_distribution_has_is_left_out_of_the_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # scikit-fuzzy's gallery: each script missed a module, one of them a namespace that
    # matplotlib ships; every install that named it failed, and so the others never came.
    asked: list[list[str]] = []

    async def install(_environment: object, packages: list[str], *_: object, **__: object) -> None:
        asked.append(packages)
        if "mpl_toolkits" in packages:
            raise EnvironmentBuildError(UV_NOT_FOUND)

    monkeypatch.setattr(rounds, "add_packages", install)
    repairs = [
        Repair(tool="ratio", kind="add_dependency", package=name, reason="missing")
        for name in ("scipy", "mpl_toolkits", "matplotlib")
    ]
    state = RepairState()
    await apply_repairs(draft(tmp_path), repairs, [spec()], state)
    assert asked == [["matplotlib", "mpl_toolkits", "scipy"], ["matplotlib", "scipy"]]
    assert {"matplotlib", "scipy"} <= state.installed


async def test_a_requirement_past_the_download_bound_costs_the_others_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PyDMD: a tutorial's ezyrb pulls in torch and CUDA (3.2 GB); refused by the bound, it
    # must not keep out the small module another tool lacks in the same round.
    asked: list[tuple[list[str], object]] = []

    async def install(
        _environment: object, packages: list[str], *_: object, max_download_mb: int = 0
    ) -> None:
        asked.append((packages, max_download_mb))
        if "ezyrb" in packages:
            raise DownloadTooLarge("not installing ezyrb: it would download 3165 MB")

    monkeypatch.setattr(rounds, "add_packages", install)
    repairs = [
        Repair(
            tool="tour", kind="add_dependency", package="ezyrb", companions=["pandas"], reason=""
        ),
        Repair(tool="ratio", kind="add_dependency", package="h5py", reason="missing"),
    ]
    state = RepairState()
    await apply_repairs(draft(tmp_path), repairs, [spec(), spec("tour")], state)
    bound = draft(tmp_path).settings.repair_install_max_mb
    assert asked == [
        (["ezyrb", "h5py", "pandas"], bound),
        (["ezyrb", "h5py"], bound),
        (["ezyrb"], bound),
        (["h5py"], bound),
    ]
    assert bound == 500 and "h5py" in state.installed
    assert state.refused == {"ezyrb": "not installing ezyrb: it would download 3165 MB"}


def test_a_dropped_tool_whose_drop_says_why_reports_that() -> None:
    # The refused install was only logged: the report said "No module named 'ezyrb'".
    missing = "cell 2 raised ModuleNotFoundError: No module named 'ezyrb'"
    failed = ToolEvidence(name="tour", target="t.ipynb", status="failed", error=missing)
    plain = ToolEvidence(name="ratio", target="pkg:ratio", status="failed", error="boom")
    why = "not installing ezyrb: 3165 MB (the tool failed: No module named 'ezyrb')"
    planned = [
        Repair(tool="tour", kind="drop", reason=why, error=why),
        Repair(tool="ratio", kind="drop", reason="boom"),
    ]
    explained = rounds.explained_drops(planned, {"tour": failed, "ratio": plain})
    assert list(explained) == ["tour"]
    assert explained["tour"].error == why


def test_without_unknown_reads_uv_s_names_as_canonical() -> None:
    packages = ["Mpl_Toolkits>=1", "numpy"]
    assert rounds.without_unknown(packages, UV_NOT_FOUND) == ["numpy"]
    assert rounds.without_unknown(packages, "error: a build failed") == packages


async def test_a_longer_timeout_reaches_the_budget_a_notebook_tool_times_itself_with(
    tmp_path: Path,
) -> None:
    cells = [NotebookCell(cell=0, source="import time\ntime.sleep(40)")]
    slow = ToolSpec(
        name="tour",
        description="A slow tutorial.",
        target="docs/tour.ipynb",
        parameters=[],
        kind="notebook",
        notebook=NotebookTarget(path="docs/tour.ipynb", cells=cells),
    )
    work = draft(tmp_path)
    work.render([slow])
    assert "timeout=None" in (work.server_dir / "server.py").read_text()

    repair = Repair(tool="tour", kind="longer_timeout", timeout=100.0, reason="slow")
    await apply_repairs(work, [repair], [slow], RepairState())

    assert "timeout=100.0" in (work.server_dir / "server.py").read_text()


def _evidence(name: str, status: str, *tools: str) -> ToolEvidence:
    steps = [SessionStep(line=f"x = {t}()", target=f"pkg:{t}", tool=t) for t in tools]
    return ToolEvidence(
        name=name,
        target=f"pkg:{name}",
        status=status,  # type: ignore[arg-type]
        evidence=Evidence(arguments={}, session=steps),
    )


def test_a_tool_proven_on_a_tool_that_did_not_pass_is_not_published() -> None:
    # ``intersects`` was proven on what ``prep`` built; ``prep`` failed on its own, so a
    # server of passed tools could not rebuild it; ``outer`` needs ``intersects`` in turn.
    evidence = [
        _evidence("prep", "failed"),
        _evidence("point_new", "passed"),
        _evidence("intersects", "passed", "point_new", "prep"),
        _evidence("outer", "passed", "intersects"),
        _evidence("area", "passed", "point_new"),
    ]
    checked = {e.name: e for e in needing_failed_tools(evidence)}
    assert [n for n, e in checked.items() if e.status == "passed"] == ["point_new", "area"]
    assert checked["intersects"].failure_type == "api_inference_error"
    assert "prep, which did not pass" in (checked["intersects"].error or "")
    assert "intersects" in (checked["outer"].error or "")
