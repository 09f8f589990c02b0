"""The runtime side of script tools: parameters to argv, and the captured subprocess run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from metaserver.runtime.decode import set_work_dir
from metaserver.runtime.scripts import ScriptError, build_argv, command_for, run_script

ARGS = [
    {"name": "src", "options": [], "action": "value"},
    {"name": "more", "options": [], "action": "value", "nargs": "*"},
    {"name": "top", "options": ["--top", "-t"], "action": "value"},
    {"name": "n", "options": ["-n"], "action": "value"},
    {"name": "verbose", "options": ["-v", "--verbose"], "action": "switch"},
    {"name": "tag", "options": ["--tag"], "action": "append"},
    {"name": "pair", "options": ["--pair"], "action": "value", "nargs": 2},
    {"name": "quiet", "options": ["-q"], "action": "count"},
    {"name": "color", "options": ["--color"], "action": "bool_optional"},
]


def test_build_argv() -> None:
    values = {
        "src": "a.txt",
        "more": [1, 2],
        "top": 3,
        "n": -1,
        "verbose": True,
        "tag": ["x", "y"],
        "pair": [0.5, 1.5],
        "quiet": 2,
        "color": False,
    }
    assert build_argv(ARGS, values) == [
        "--top=3", "-n", "-1", "--verbose", "--tag=x", "--tag=y", "--pair", "0.5", "1.5",
        "-q", "-q", "--no-color", "a.txt", "1", "2",
    ]  # fmt: skip


def test_build_argv_leaves_out_unset_values_and_guards_dashes() -> None:
    assert build_argv(ARGS, {"src": "-x", "verbose": False, "top": None}) == ["--", "-x"]
    assert build_argv(ARGS, {"top": "--evil"}) == ["--top=--evil"]


def test_command_for_each_mode() -> None:
    assert command_for({"mode": "path", "path": "/r/s.py"}, ["a"]) == [
        sys.executable,
        "/r/s.py",
        "a",
    ]
    assert command_for({"mode": "module", "module": "pkg.cli"}, []) == [
        sys.executable,
        "-m",
        "pkg.cli",
    ]
    call = command_for({"mode": "function", "module": "m", "function": "f", "prog": "p"}, ["x"])
    assert call[1] == "-c" and call[3:] == ["m", "f", "p", "x"]
    with pytest.raises(ValueError):
        command_for({"mode": "module", "module": "os; import x"}, [])


@pytest.mark.integration
def test_run_script_captures_output_and_raises_on_failure(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text(
        "import sys, os\n"
        "print('cwd', os.path.basename(os.getcwd()), *sys.argv[1:])\n"
        "print('x' * 5000)\n"
        "print('careful', file=sys.stderr)\n"
        "sys.exit(3 if '--fail' in sys.argv else 0)\n"
    )
    set_work_dir(tmp_path / "work")
    flag = [{"name": "fail", "options": ["--fail"], "action": "switch"}]
    launch = {"mode": "path", "path": str(script), "prog": "s.py"}
    result = run_script(launch, flag, {"fail": False}, max_bytes=2000)
    assert result["exit_code"] == 0 and result["stdout"].startswith("cwd work\n")
    assert "more bytes not shown" in result["stdout"] and len(result["stdout"]) < 1100
    assert result["stderr"] == "careful\n"
    with pytest.raises(ScriptError, match="exited with code 3: careful"):
        run_script(launch, flag, {"fail": True})
    script.write_text("import time\ntime.sleep(30)\n")
    with pytest.raises(ScriptError, match="timed out"):
        run_script(launch, flag, {}, timeout=0.5)
