"""Scripts run by ``science_python`` (conftest.py): an environment with numpy, pandas,
sympy, networkx and pint, which metaserver itself does not depend on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

PROBE = Path(__file__).resolve().parents[1] / "metaserver" / "probe"
"""The probe's folder, the first argument of a script that starts with ``PROBE_PRELUDE``."""

PROBE_PRELUDE = r"""
import ast, json, sys
import importlib.util
# The probe as the sandbox loads it (its __main__.py): a package under a private name.
entry_spec = importlib.util.spec_from_file_location("probe_entry", sys.argv[1] + "/__main__.py")
entry = importlib.util.module_from_spec(entry_spec)
entry_spec.loader.exec_module(entry)
entry.load(sys.argv[1])
"""
"""The opening of a script that imports the probe's modules as ``metaserver_probe``."""


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
