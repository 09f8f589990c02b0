"""A fixture module for the probe's readers: written to a file, imported under its name, with
the README and guide texts the probe reads beside it (members.set_guides)."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

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
