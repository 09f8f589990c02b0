"""bench/real_model.py: never-worse verdicts and the table, on made-up conversion rows."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # the bench scripts import each other by name
    return __import__(name)


CORE = {"hmm-lib": ["GaussianHMM.fit", "score"]}


def _row(targets: list[str], expected: int, status: str = "success") -> dict[str, object]:
    return {
        "source": "pypi:hmm-lib==1.0",
        "status": status,
        "passed": len(targets),
        "expected": expected,
        "seconds": {"total": 10.0, "wall": 11.0},
        "llm": {
            "calls": 4,
            "rejected": 2,
            "rejections": {"cut": 2},
            "contributed": {"x": 3},
            "seconds": 6.2,
            "allowance_seconds": 8.0,
            "skipped": {"tool_example": 2, "tool_requests": 1},
            "cut_to_time": 1,
        },
        "tools": [{"target": t, "receivers": []} for t in targets],
    }


def test_a_library_that_keeps_everything_is_never_worse() -> None:
    real_model = _bench("real_model")
    off = real_model.summary(_row(["hmm:GaussianHMM.fit", "hmm:other"], 1), CORE)
    on = real_model.summary(_row(["hmm:GaussianHMM.fit", "hmm:other", "hmm:score"], 2), CORE)
    assert off["core_covered"] == ["GaussianHMM.fit"] and off["core_total"] == 2
    assert on["core_covered"] == ["GaussianHMM.fit", "score"]
    assert real_model.losses(off, on) == []
    table = real_model.table([{"source": "hmm-lib", "without": off, "with": on}])
    assert "| hmm-lib | 2 -> 3 | 1/2 -> 2/2 | 1 (50%) -> 2 (67%) | 10 -> 10 | 6 / 8 | 4 |" in table
    # Requests not sent for want of time, and answers cut to it, beside what was rejected.
    assert "| 4 | 3 (+1 cut) | 2 (cut 2) | 3 | yes |" in table


def test_a_lost_tool_core_entry_or_value_check_is_named() -> None:
    real_model = _bench("real_model")
    off = real_model.summary(_row(["hmm:GaussianHMM.fit", "hmm:score"], 2), CORE)
    on = real_model.summary(_row(["hmm:GaussianHMM.fit", "hmm:other"], 1), CORE)
    assert real_model.losses(off, on) == [
        "tool hmm:score",
        "core score",
        "value-proven 2 -> 1",
    ]
    failed = real_model.summary(_row(["hmm:GaussianHMM.fit"], 1, status="failed"), CORE)
    assert failed["tools_passed"] == 0 and failed["passed"] == []
    assert "passed 2 -> 0" in real_model.losses(off, failed)
    table = real_model.table([{"source": "hmm-lib", "without": off, "with": failed}])
    assert "NO: tool hmm:GaussianHMM.fit" in table and "(success / failed)" in table
