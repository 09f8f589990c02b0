"""Every repair the review model may propose becomes a repair that is applied."""

from __future__ import annotations

from metaserver.agents.llm import Diagnosis
from metaserver.agents.repair.catalogue import Repair, RepairState
from metaserver.agents.repair.diagnosis import repair_from
from metaserver.contracts import REPAIR_KINDS

DROP = Repair(tool="ratio", kind="drop", reason="ValueError")


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
