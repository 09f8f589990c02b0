"""The git origin repository the fetch tests clone from."""

from __future__ import annotations

from pathlib import Path

import pytest
from fetch_helpers import Origin, make_origin


@pytest.fixture
def origin(tmp_path: Path) -> Origin:
    return make_origin(tmp_path)
