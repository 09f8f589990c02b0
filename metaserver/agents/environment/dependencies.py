"""Adding a distribution to an existing environment (the ``add_dependency`` repair).

Installing runs build scripts, so it goes through the sandbox like the first install. The
environment may share its files with the store of built environments and with other
conversions' environments (hard links), so the install gets a private copy first and the
result is frozen again (:mod:`metaserver.agents.environment.cache`).
"""

from __future__ import annotations

import asyncio
import re
import shutil

from metaserver.agents.environment.build import local_wheelhouse, uv_binary, uv_environment
from metaserver.agents.environment.cache import freeze_environment, unshare_environment
from metaserver.agents.environment.download_size import measure_download, over_bound
from metaserver.agents.environment.host_paths import drop_local_origins
from metaserver.agents.environment.shared_files import share_identical_files
from metaserver.contracts import Environment
from metaserver.exceptions import DownloadTooLarge, EnvironmentBuildError
from metaserver.sandbox import Policy, Sandbox
from metaserver.sandbox.identity import sandbox_identity
from metaserver.settings import Settings

# A strict PEP 508 subset: a name, maybe extras and version specifiers; no URL, no path, no
# pip option. Each requirement is one argv element: nothing here is parsed by a shell.
_REQUIREMENT = re.compile(
    r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?(?:\[[A-Za-z0-9._,-]+\])?"
    r"(?:\s*(?:===|==|!=|<=|>=|~=|<|>)\s*[A-Za-z0-9.*+!_-]+"
    r"(?:\s*,\s*(?:===|==|!=|<=|>=|~=|<|>)\s*[A-Za-z0-9.*+!_-]+)*)?$"
)


def is_requirement(text: str) -> bool:
    """Whether ``text`` is a requirement :func:`add_packages` accepts."""
    return len(text) <= 200 and _REQUIREMENT.match(text) is not None


async def add_packages(
    environment: Environment,
    packages: list[str],
    settings: Settings,
    sandbox: Sandbox,
    max_download_mb: int = 0,
) -> None:
    """Install ``packages`` (requirements: a name, maybe version specifiers) into ``environment``.

    With ``max_download_mb`` (a repair's, ``settings.repair_install_max_mb``) its download
    is measured first (``download_size.py``) and past it nothing is installed, since one
    tutorial's optional import must not cost a conversion gigabytes and its time budget;
    0 (an install metaserver itself needs, such as pytest for the self-test): no measure.

    Raises:
        DownloadTooLarge: the download is past ``max_download_mb``.
        EnvironmentBuildError: one is not a plain requirement, or the install failed.
    """
    for package in packages:
        if not is_requirement(package):
            raise EnvironmentBuildError(f"refusing to install {package!r}: not a plain requirement")
    workdir = environment.venv.parent / f".{environment.venv.name}.repair"
    if max_download_mb > 0:
        try:
            download = await measure_download(environment, packages, settings, sandbox, workdir)
        finally:
            await asyncio.to_thread(shutil.rmtree, workdir, ignore_errors=True)
        if over_bound(download, max_download_mb) and download is not None:
            raise DownloadTooLarge(
                f"not installing {', '.join(packages)}: it would download "
                f"{download.describe()}, past METASERVER_REPAIR_INSTALL_MAX_MB={max_download_mb}"
            )
    policy = Policy(
        workdir=workdir,
        timeout=settings.timeouts.environment,
        network=not settings.index.offline,
        readable=local_wheelhouse(settings),
        writable=(environment.venv, workdir),
        env=uv_environment(settings),
        kind="install",
    )
    argv = [uv_binary(), "pip", "install", "--quiet", "--link-mode=copy"]
    argv += ["--python", str(environment.python_path), *packages]
    identity = sandbox_identity(settings.sandbox.uid, settings.sandbox.gid)
    await asyncio.to_thread(unshare_environment, environment.venv, identity)
    try:
        result = await sandbox.run(argv, policy)
    finally:
        await asyncio.to_thread(drop_local_origins, environment.venv)
        await asyncio.to_thread(freeze_environment, environment.venv)
        # The private copy shares nothing: share its files again, now that it is frozen.
        await asyncio.to_thread(share_identical_files, environment.venv, settings.shared_files)
        # uv's scratch (its cache and home): nothing reads it again (the soak found one left
        # beside a registered version).
        await asyncio.to_thread(shutil.rmtree, workdir, ignore_errors=True)
    if not result.ok:
        raise EnvironmentBuildError(f"installing {', '.join(packages)} failed: {result.tail(6)}")
