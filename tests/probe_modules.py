"""A fixture module for the probe's readers: written to a file, imported under its name, with
the README and guide texts the probe reads beside it (members.set_guides); or a fixture
package probed as in production, by the probe script in a fresh interpreter."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from metaserver.agents.analysis.analyse import PROBE
from metaserver.contracts import CodeReport
from metaserver.probe import members


@contextlib.contextmanager
def guided_module(folder: Path, name: str, source: str, guides: list[str]) -> Iterator[ModuleType]:
    """Module ``name`` made of ``source``, imported while the probe reads ``guides``."""
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    members.set_guides(guides)
    try:
        spec.loader.exec_module(loaded)
        yield loaded
    finally:
        members.set_guides([])
        del sys.modules[name]


def probed_package(folder: Path, name: str, source: str, guides: list[str]) -> CodeReport:
    """The probe's report on package ``name`` (its ``__init__`` is ``source``), written in
    ``folder`` and probed by the script in this interpreter, reading ``guides``."""
    (folder / name).mkdir()
    (folder / name / "__init__.py").write_text(source)
    guides_file = folder / "guides.json"
    guides_file.write_text(json.dumps(guides))
    output = folder / "report.json"
    argv = [sys.executable, "-I", str(PROBE), "--output", str(output), "--path", str(folder)]
    subprocess.run([*argv, "--guides", str(guides_file)], check=True, cwd=folder, timeout=60)
    return CodeReport.model_validate(json.loads(output.read_text()))
