"""Environment stage: a fresh uv virtual environment with the repository installed.

The repository is installed (its build scripts run) through the sandbox, with the network
allowed because installs need the package index. The generated server's only requirement,
FastMCP, is installed beside it.
"""

from __future__ import annotations

import logging
import shutil
import sys
import time
from pathlib import Path

import platformdirs
import uv

from metaserver.contracts import Environment, EnvironmentAttempt, Workspace
from metaserver.exceptions import EnvironmentBuildError
from metaserver.sandbox import Policy, Sandbox
from metaserver.settings import Settings

logger = logging.getLogger(__name__)

PACKAGE_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


def uv_binary() -> str:
    return uv.find_uv_bin()


def default_python(settings: Settings) -> str:
    """The interpreter new environments use: configured, else the one running metaserver."""
    if settings.python:
        return settings.python
    base = getattr(sys, "_base_executable", None) or sys.executable
    return str(Path(base).resolve())


def uv_environment(settings: Settings) -> dict[str, str]:
    """uv's configuration for a child: the shared cache and the package index settings."""
    cache = settings.uv_cache_dir or Path(platformdirs.user_cache_dir("uv"))
    env = {
        "UV_CACHE_DIR": str(cache),
        "UV_DEFAULT_INDEX": settings.index.url,
        "UV_NO_PROGRESS": "1",
        "UV_PYTHON_DOWNLOADS": "never",
    }
    if settings.index.extra_url:
        env["UV_INDEX"] = settings.index.extra_url
    if settings.index.find_links:
        env["UV_FIND_LINKS"] = settings.index.find_links
    if settings.index.offline:
        env["UV_OFFLINE"] = "1"
    return env


async def build_environment(
    workspace: Workspace, venv: Path, settings: Settings, sandbox: Sandbox
) -> Environment:
    """Create ``venv`` and install the workspace into it, or raise EnvironmentBuildError.

    A half-built environment is removed before the error propagates.
    """
    started = time.monotonic()
    installable = any((workspace.path / marker).exists() for marker in PACKAGE_MARKERS)
    strategy = "source" if installable else "requirements+path"
    try:
        attempt = await _install(workspace, venv, strategy, settings, sandbox)
    except BaseException:
        shutil.rmtree(venv, ignore_errors=True)
        raise
    if not attempt.ok:
        shutil.rmtree(venv, ignore_errors=True)
        raise EnvironmentBuildError(
            f"{strategy} install failed: {attempt.error}", attempts=[attempt]
        )
    python = venv / "bin" / "python"
    return Environment(
        ok=True,
        strategy=strategy,
        python=_python_version(venv),
        python_path=python,
        venv=venv,
        seconds=round(time.monotonic() - started, 2),
        lock=await _freeze(python, venv, settings, sandbox),
        attempts=[attempt],
    )


async def _install(
    workspace: Workspace, venv: Path, strategy: str, settings: Settings, sandbox: Sandbox
) -> EnvironmentAttempt:
    started = time.monotonic()
    uv_bin = uv_binary()
    policy = _policy(workspace, venv, settings)
    created = await sandbox.run(
        [uv_bin, "venv", "--quiet", "--python", default_python(settings), str(venv)], policy
    )
    if not created.ok:
        return _failed(strategy, started, created.tail())
    install = [uv_bin, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python")]
    if strategy == "source":
        # A copy, not a link: hard links into the shared cache would let code that writes
        # into its environment poison every other environment (sandbox.md, uv section).
        install += ["--link-mode=copy", str(workspace.path), settings.fastmcp_requirement]
    else:
        requirements = workspace.path / "requirements.txt"
        if requirements.exists():
            install += ["-r", str(requirements)]
        install += [settings.fastmcp_requirement]
    result = await sandbox.run(install, policy)
    if result.timed_out:
        return _failed(strategy, started, f"timed out after {settings.timeouts.environment:.0f}s")
    if not result.ok:
        return _failed(strategy, started, result.tail(12))
    if strategy == "requirements+path":
        _add_to_path(venv, workspace.path)
    return EnvironmentAttempt(
        strategy=strategy, ok=True, seconds=round(time.monotonic() - started, 2)
    )


def _policy(workspace: Workspace, venv: Path, settings: Settings) -> Policy:
    workdir = venv.parent / f".{venv.name}.build"
    return Policy(
        workdir=workdir,
        timeout=settings.timeouts.environment,
        network=not settings.index.offline,
        readable=(workspace.path,),
        writable=(venv, workdir),
        env=uv_environment(settings),
    )


def _failed(strategy: str, started: float, error: str) -> EnvironmentAttempt:
    return EnvironmentAttempt(
        strategy=strategy, ok=False, seconds=round(time.monotonic() - started, 2), error=error
    )


def _add_to_path(venv: Path, directory: Path) -> None:
    """Put a non-installable repository on the environment's import path (a .pth file)."""
    for site in (venv / "lib").glob("python*/site-packages"):
        (site / "metaserver_workspace.pth").write_text(f"{directory}\n")


def _python_version(venv: Path) -> str:
    for line in (venv / "pyvenv.cfg").read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("version_info", "version"):
            return value.strip()
    return "unknown"


async def _freeze(python: Path, venv: Path, settings: Settings, sandbox: Sandbox) -> str:
    policy = Policy(
        workdir=venv.parent / f".{venv.name}.build",
        timeout=60,
        env=uv_environment(settings),
    )
    result = await sandbox.run([uv_binary(), "pip", "freeze", "--python", str(python)], policy)
    shutil.rmtree(policy.workdir, ignore_errors=True)
    return result.stdout if result.ok else ""
