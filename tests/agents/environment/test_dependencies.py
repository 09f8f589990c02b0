"""Which requirements the add_dependency repair installs (names and version specifiers only),
and the scratch an install leaves (none)."""

from __future__ import annotations

from pathlib import Path

import pytest
from environment_fixtures import plain_environment

from metaserver.agents.environment.dependencies import add_packages, is_requirement
from metaserver.exceptions import EnvironmentBuildError
from metaserver.settings import Settings


@pytest.mark.parametrize(
    "text", ["numpy", "PyYAML", "numpy>=1.26,<3", "scikit-learn==1.5.2", "pint[numpy]~=0.24"]
)
def test_names_with_specifiers_are_accepted(text: str) -> None:
    assert is_requirement(text)


@pytest.mark.parametrize(
    "text",
    [
        "evil @ https://example.invalid/x.whl",
        "--index-url http://x numpy",
        "-e .",
        "../pkg",
        "/tmp/pkg.whl",
        "numpy; os_name == 'nt'",
        "a" * 201,
        "",
    ],
)
def test_urls_paths_options_and_markers_are_refused(text: str) -> None:
    assert not is_requirement(text)


@pytest.mark.integration
async def test_an_install_leaves_no_repair_scratch_whether_it_works_or_fails(
    tmp_path: Path, settings: Settings
) -> None:
    # Issue 28: the repair install's scratch (uv's cache and home, ``.<venv>.repair``) goes
    # when the install ends, installed or failed; none is left beside a registered version.
    environment, sandbox = await plain_environment(tmp_path, settings)
    scratch = environment.venv.parent / ".plain-abc1.repair"

    await add_packages(environment, ["pytest"], settings, sandbox)  # present: uv says so
    assert not scratch.exists()
    with pytest.raises(EnvironmentBuildError, match="metaserver-no-such-dist-xyz"):
        await add_packages(environment, ["metaserver-no-such-dist-xyz"], settings, sandbox)
    assert not scratch.exists()
    assert sorted(p.name for p in settings.environments_dir.iterdir()) == ["plain-abc1"]
