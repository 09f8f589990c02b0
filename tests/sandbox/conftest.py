"""Backends under test: each real one that works here (see ``backends.require_backend``)."""

from __future__ import annotations

import pytest
from backends import require_backend


@pytest.fixture(params=["bwrap", "process"])
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    require_backend(name)
    return name
