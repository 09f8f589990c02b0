"""Scripts run by ``science_python`` (conftest.py): an environment with numpy, pandas,
sympy, networkx and pint, which metaserver itself does not depend on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


def run_json(python: Path, script: str, cwd: Path, *args: str) -> Any:
    """Run ``script`` with ``python`` in ``cwd`` and read the JSON its last line prints."""
    (cwd / "check.py").write_text(script)
    run = subprocess.run(
        [str(python), "check.py", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])
