"""bench/home_soak.py: what a loop counts when its command ends, times out, or may remove."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("home_soak", BENCH / "home_soak.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["home_soak"] = module
    spec.loader.exec_module(module)
    return module


def test_a_command_past_its_timeout_is_counted_not_raised() -> None:
    soak = _module()
    # A batch of a large library ran past the soak's 30 minutes: the thread died with
    # TimeoutExpired and its count was lost.
    slow = [sys.executable, "-c", "import time; time.sleep(30)"]
    assert soak.outcome("batch", slow, {}, timeout=0.5)[0] == "batch killed at the timeout"
    failing = [sys.executable, "-c", "raise SystemExit(3)"]
    assert soak.outcome("convert", failing, {}, timeout=30)[0] == "convert exit 3"
    ok = soak.outcome("remove", [sys.executable, "-c", "pass"], {}, timeout=30)
    assert ok == ("remove ok", None)


def test_every_exit_that_is_not_ok_names_its_cause() -> None:
    soak = _module()
    # Issue 28: a soak's "convert exit 1" kept nothing, so its cause went unexamined.
    report = (
        '{"source": "pypi:colour-science", "status": "failed", "failure": {"type": '
        '"import_error", "detail": "the analysis probe failed\\nTraceback\\n'
        "FileNotFoundError: '/work/report.json'\"}}"
    )
    printing = [sys.executable, "-c", f"import sys; print({report!r}); sys.exit(1)"]
    counted, cause = soak.outcome("convert", printing, {}, timeout=30)
    assert counted == "convert exit 1"
    assert cause == (
        "pypi:colour-science import_error: the analysis probe failed / "
        "FileNotFoundError: '/work/report.json'"
    )
    rows = '[{"source": "a", "failure": null}, {"source": "b", "failure": "env_failure: x"}]'
    assert soak.exit_cause(rows, "") == "b env_failure: x"
    stderr = "INFO metaserver.x: started\nTraceback (most recent call last):\nKeyError: 'k'\n"
    assert soak.exit_cause("", stderr) == "Traceback (most recent call last): | KeyError: 'k'"
    error = '{"status": "error", "error": "unknown server \'calc\'", "exit_code": 2}'
    assert soak.exit_cause(error, "error: unknown server") == "unknown server 'calc'"
    slow = [sys.executable, "-c", "import time; time.sleep(30)"]
    assert soak.outcome("batch", slow, {}, timeout=0.5)[1] == "no exit within 0.5 s"


def test_the_last_registered_server_is_kept() -> None:
    soak = _module()
    chance = random.Random(1)
    # Removal every 20 s outran conversions of minutes: nothing was left to call at the end.
    assert soak.removal_choice([], chance) is None
    assert soak.removal_choice(["only"], chance) is None
    assert soak.removal_choice(["a", "b"], chance) in {"a", "b"}


def test_a_call_of_a_removed_server_is_counted_apart_from_a_failure(tmp_path: Path) -> None:
    soak_module = _module()
    soak = soak_module.Soak(tmp_path / "home", [], 0)
    outcome = soak_module.call_outcome
    assert outcome(soak, False, "42") == "serve call ok"
    removed = "server 'calc' was removed: it is no longer registered"
    assert outcome(soak, True, removed) == "serve call refused: removed"
    assert outcome(soak, True, "no registered server named 'calc'").endswith("removed")
    assert soak.errors == []
    # The soak's 4 failures were of this kind: counted as errors, their text kept.
    lost = "Error calling tool 'f': No module named 'colour.io'"
    assert outcome(soak, True, lost) == "serve call error"
    assert soak.errors == [lost]


def test_a_tool_validated_with_a_handle_is_not_the_one_called() -> None:
    soak = _module()

    class Tool:
        def __init__(self, name: str, arguments: dict[str, object]) -> None:
            self.name, self.evidence = name, {"arguments": arguments}

    record = SimpleNamespace(
        tools=[
            Tool("bandwidth", {"sys": {"handle": "h_abc"}}),
            Tool("plot", {"system": "h_abc"}),
            Tool("poles", {"length_m": 2}),
        ]
    )
    # A handle lives in the process that made it: the soak's 2 call errors were of this kind.
    assert soak.first_call(record) == ("poles", {"length_m": 2})
