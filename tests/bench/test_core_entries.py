"""bench/core_entries.py: core entry points scored on made-up conversion rows."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("core_entries", BENCH / "core_entries.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["core_entries"] = module
    spec.loader.exec_module(module)
    return module


TSV = (
    "library\tcore entry points\n"
    "hmm-lib\tGaussianHMM,GaussianHMM.fit,GaussianHMM.predict,nasdaq.load,score\n"
    "other\tf,g\n"
)


def _rows() -> list[dict[str, object]]:
    tools = [
        {"target": "hmm_lib.hmm:GaussianHMM", "receivers": []},
        # fit inherited from the base, proven on a GaussianHMM receiver: covers GaussianHMM.fit
        {"target": "hmm_lib.base:BaseHMM.fit", "receivers": ["hmm_lib.hmm:GaussianHMM"]},
        # predict of another class covers nothing
        {"target": "hmm_lib.mix:MixtureHMM.predict", "receivers": ["hmm_lib.mix:MixtureHMM"]},
        {"target": "hmm_lib.data.nasdaq:load", "receivers": []},
        {"target": "hmm_lib.core:rescore", "receivers": []},  # ends with "score", not ".score"
    ]
    return [
        {
            "source": "pypi:hmm-lib==0.3.3",
            "status": "success",
            "passed": 5,
            "expected": 2,
            "tools": tools,
            "seconds": {"total": 10.0},
        },
        {
            "source": "https://github.com/someone/other.git",
            "status": "failed",
            "passed": 1,
            "expected": 1,
            "tools": [{"target": "other:f"}],
            "seconds": {"total": 30.0},
        },
        {"source": "pypi:unlisted", "status": "success", "passed": 4, "expected": 3},
    ]


def test_core_entry_points_are_scored_per_library(tmp_path: Path) -> None:
    core_entries = _module()
    path = tmp_path / "core.tsv"
    path.write_text(TSV)
    core = core_entries.read_core(path)
    assert core == {
        "hmm-lib": [
            "GaussianHMM",
            "GaussianHMM.fit",
            "GaussianHMM.predict",
            "nasdaq.load",
            "score",
        ],
        "other": ["f", "g"],
    }
    rows = _rows()
    covered = core_entries.core_covered(core["hmm-lib"], rows[0]["tools"])
    assert covered == ["GaussianHMM", "GaussianHMM.fit", "nasdaq.load"]
    assert core_entries.library_of("pypi:hmm_lib==1", core) == "hmm-lib"
    assert core_entries.library_of("https://github.com/x/other", core) == "other"
    assert core_entries.library_of("pypi:unlisted", core) is None
    text = core_entries.core_table(rows, core)
    assert "| hmm-lib | 3/5 (60%) | GaussianHMM.predict, score |" in text
    assert "| other | 0/2 (0%) | f, g |" in text  # a failed conversion covers nothing
    assert "core entry points covered: 3/7 (43%)" in text
    assert "passed tools proven by an expected value: 6/10 (60%)" in text
    assert "median conversion time: 20.0 s" in text
