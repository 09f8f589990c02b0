"""What a repair install would download, measured before it runs, and the bound on it."""

from __future__ import annotations

from pathlib import Path

import pytest
from environment_fixtures import plain_environment

from metaserver.agents.environment.dependencies import add_packages
from metaserver.agents.environment.download_size import installed_names, lock_download
from metaserver.exceptions import DownloadTooLarge
from metaserver.settings import Settings


def test_only_what_the_environment_lacks_is_counted_largest_first(tmp_path: Path) -> None:
    local = tmp_path / "local-1.0-py3-none-any.whl"
    local.write_bytes(b"x" * 1234)
    lock: dict[str, object] = {
        "packages": [
            {"name": "NumPy", "wheels": [{"url": "https://x/numpy.whl", "size": 16_000_000}]},
            {"name": "torch", "wheels": [{"url": "https://x/torch.whl", "size": 539_000_000}]},
            {"name": "ezyrb", "sdist": {"url": "https://x/ezyrb.tar.gz", "size": 40_000}},
            {"name": "local", "wheels": [{"path": str(local)}]},
        ]
    }

    download = lock_download(lock, installed={"numpy"})

    assert download.files == (("torch", 539_000_000), ("ezyrb", 40_000), ("local", 1234))
    assert download.total == 539_041_234
    assert download.describe(shown=1) == "539 MB (torch 539 MB, ...)"


@pytest.mark.integration
async def test_an_install_past_the_bound_is_refused_and_one_within_is_made(
    tmp_path: Path, settings: Settings
) -> None:
    # Issue 30: a tutorial's optional import pulled 3.2 GB (torch and CUDA) into PyDMD's
    # environment. The resolver's measure refuses it before anything is downloaded.
    environment, sandbox = await plain_environment(tmp_path, settings)

    with pytest.raises(DownloadTooLarge, match=r"would download \d+ MB \(numpy \d+ MB"):
        await add_packages(environment, ["numpy"], settings, sandbox, max_download_mb=1)
    assert "numpy" not in installed_names(environment.venv)
    # A few kB: within the bound.
    await add_packages(environment, ["six"], settings, sandbox, max_download_mb=1)
    assert "six" in installed_names(environment.venv)
    assert sorted(p.name for p in settings.environments_dir.iterdir()) == ["plain-abc1"]
