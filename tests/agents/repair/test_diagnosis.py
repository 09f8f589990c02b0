"""Every repair the review model may propose becomes a repair that is applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from metaserver.agents.conversion import Conversion, Draft
from metaserver.agents.llm import Diagnosis
from metaserver.agents.repair.catalogue import REPAIR_KINDS, TIMEOUT_FACTOR, Repair, RepairState
from metaserver.agents.repair.diagnosis import repair_from
from metaserver.agents.repair.rounds import _apply
from metaserver.contracts import (
    ConversionReport,
    Environment,
    Example,
    Parameter,
    Source,
    ToolSpec,
    Workspace,
)
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings

DROP = Repair(tool="ratio", kind="drop", reason="ValueError")


def spec(name: str = "ratio") -> ToolSpec:
    return ToolSpec(
        name=name,
        description="",
        target=f"pkg:{name}",
        parameters=[
            Parameter(name="text", kind="positional_or_keyword", json_schema={"type": "string"})
        ],
    )


def draft(tmp_path: Path) -> Draft:
    settings = Settings(home=tmp_path / "home", sandbox={"backend": "process"})
    source = Source(kind="local", location=str(tmp_path), original=str(tmp_path))
    conversion = Conversion(
        settings=settings,
        sandbox=get_sandbox(settings.sandbox),
        report=ConversionReport(server="pkg", source=str(tmp_path)),
        workspace=Workspace(source=source, path=tmp_path),
        token="t0",
        max_tools=12,
    )
    venv = tmp_path / "venv"
    environment = Environment(
        ok=True,
        strategy="source",
        python="3.11",
        python_path=venv / "bin" / "python",
        venv=venv,
        seconds=0,
    )
    return Draft(conversion, environment)


def test_each_proposed_kind_maps_to_the_same_kind_of_repair() -> None:
    proposals = {
        "next_example": Diagnosis(kind="next_example", arguments={"text": "3:4"}),
        "longer_timeout": Diagnosis(kind="longer_timeout", timeout_seconds=90.0),
        "add_dependency": Diagnosis(kind="add_dependency", requirement="numpy>=1.26,<3"),
        "drop": Diagnosis(kind="drop", reason="needs a display"),
    }
    assert set(proposals) == set(REPAIR_KINDS)
    for kind, diagnosis in proposals.items():
        repair = repair_from(DROP, diagnosis, RepairState())
        assert repair.kind == kind
    assert repair_from(DROP, proposals["next_example"], RepairState()).examples[0].arguments == {
        "text": "3:4"
    }
    assert repair_from(DROP, proposals["longer_timeout"], RepairState()).timeout == 90.0
    assert repair_from(DROP, proposals["add_dependency"], RepairState()).package == "numpy>=1.26,<3"


def test_a_repair_already_tried_is_not_proposed_again() -> None:
    state = RepairState(installed={"numpy"}, extended={"ratio"})
    assert repair_from(DROP, Diagnosis(kind="add_dependency", requirement="numpy"), state) == DROP
    assert repair_from(DROP, Diagnosis(kind="longer_timeout"), state) == DROP
    assert repair_from(DROP, Diagnosis(kind="none"), RepairState()) == DROP


@pytest.mark.parametrize(("seconds", "expected"), [(90.0, 90.0), (None, 30.0 * TIMEOUT_FACTOR)])
async def test_a_longer_timeout_uses_the_seconds_proposed(
    tmp_path: Path, seconds: float | None, expected: float
) -> None:
    tool = spec()
    repair = Repair(tool="ratio", kind="longer_timeout", timeout=seconds, reason="slow")
    state = RepairState()
    attempts = await _apply(draft(tmp_path), [repair], [tool], state)
    assert tool.timeout == expected and state.extended == {"ratio"} and attempts == {}


async def test_a_longer_timeout_never_shortens_the_budget(tmp_path: Path) -> None:
    tool = spec()
    tool.timeout = 200.0
    repair = Repair(tool="ratio", kind="longer_timeout", timeout=60.0, reason="slow")
    await _apply(draft(tmp_path), [repair], [tool], RepairState())
    assert tool.timeout == 200.0


async def test_next_example_hands_its_examples_to_validation(tmp_path: Path) -> None:
    example = Example(arguments={"text": "3:4"}, origin="llm")
    repair = Repair(tool="ratio", kind="next_example", examples=[example], reason="x")
    attempts = await _apply(draft(tmp_path), [repair], [spec()], RepairState())
    assert attempts == {"ratio": [example]}
