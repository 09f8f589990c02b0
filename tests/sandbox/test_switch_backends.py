"""Switching backends in one METASERVER_HOME never breaks a conversion, in either order.

The ``process`` backend runs as metaserver's own uid where the sandbox uid cannot reach a
path (here: pytest's private /tmp directory), so it must not leave entries in the stores the
bwrap backend's sandbox uid writes (its uv cache above all), and bwrap must not leave any
that process cannot use. Before the caches were named by their writer's uid, process then
bwrap failed: ``failed to open file .../uv-sandbox-60999/sdists-v11/.git: Permission denied``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from backends import require_backend
from fixture_repos import make_calc_repo

from metaserver.pipeline import convert
from metaserver.settings import SandboxSettings, Settings

pytestmark = pytest.mark.integration


async def test_conversions_succeed_in_any_order_of_backends(tmp_path: Path) -> None:
    """process then bwrap, then bwrap then process: both orders, one home, one uv cache."""
    require_backend("bwrap")
    home = tmp_path / "home"
    for index, backend in enumerate(("process", "bwrap", "process")):
        repo = make_calc_repo(tmp_path / f"calc-{index}", name=f"calcpack{index}")
        settings = Settings(
            home=home,
            uv_cache_dir=tmp_path / "uv",  # caches of this test's own, so the order is real
            sandbox=SandboxSettings(backend=backend),  # type: ignore[arg-type]
        )
        report = await convert(f"file://{repo}", settings=settings)
        assert report.status == "success", (index, backend, report.failure, report.environment)
        assert report.tools_passed > 0
