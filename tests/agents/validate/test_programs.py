"""missing_program: an example that failed only because an external program is absent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from metaserver.agents.validate.programs import missing_program

ABSENT = "metaserver-no-such-program"


def test_the_os_error_of_running_an_absent_program_names_it() -> None:
    with pytest.raises(FileNotFoundError) as raised:
        subprocess.run([ABSENT, "input.nw"], check=False)
    error = f"Error calling tool 'energy': {raised.value}"
    assert missing_program(error) == ABSENT


def test_a_shell_that_could_not_find_it_exits_127(tmp_path: Path) -> None:
    # The shell makes x.out before it looks for the program: in the test's own directory.
    finished = subprocess.run(
        ["/bin/sh", "-c", f"{ABSENT} x.in > x.out"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert finished.returncode == 127
    # A library that ran it through a shell, as its own error says it
    error = f'Calculator "calc" failed with command "{ABSENT} x.in > x.out" with error code 127'
    assert missing_program(error) == ABSENT
    assert missing_program(finished.stderr) == ABSENT  # the shell's own "not found"


def test_a_program_that_is_installed_is_not_the_cause() -> None:
    python = sys.executable.rpartition("/")[2]
    assert missing_program(f"[Errno 2] No such file or directory: '{python}'") is None
    assert missing_program('failed with command "sh -c x" with error code 127') is None


def test_a_missing_file_is_not_a_missing_program() -> None:
    assert missing_program("[Errno 2] No such file or directory: 'data.csv'") is None
    assert missing_program("[Errno 2] No such file or directory: '/work/x/direct'") is None
    assert missing_program("Could not guess file type") is None
    # exit status 1 is the program's own failure, not its absence
    assert missing_program(f'failed with command "{ABSENT} a" with error code 1') is None
