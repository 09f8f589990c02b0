"""``metaserver bundle``: everything an offline machine needs to convert some sources.

For each source, on this connected machine: fetch it and build its environment exactly as a
conversion does (in the sandbox: build scripts are code), which pins every distribution the
environment installs; pin the build backend a source build needs and what replaying the
generated tests installs (``uv pip compile``, wheels only, so nothing runs). Then download a
file for every pin (:mod:`.wheels`), plus metaserver's own wheel and the distributions it
needs, and copy the fetched trees in the workspace cache's format. The offline machine
installs metaserver from ``wheels/`` and converts with ``--bundle`` (:mod:`.use`).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from metaserver import __version__
from metaserver.agents.environment.build import build_environment, uv_binary
from metaserver.agents.fetch.candidates import fetch_first, source_candidates
from metaserver.agents.validate.selftest import SELFTEST_PACKAGES
from metaserver.bundle.manifest import BundledSource, Manifest, write_manifest
from metaserver.bundle.wheels import download_all, pins, requirement_closure
from metaserver.exceptions import EnvironmentBuildError, MetaServerError, UserError
from metaserver.fs import remove_tree
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings

logger = logging.getLogger(__name__)

# What a project without [build-system] is built with (PEP 517's fallback).
DEFAULT_BUILD = ["setuptools>=40.8.0", "wheel"]


async def make_bundle(
    sources: list[str],
    output: Path,
    settings: Settings,
    python: str,
    repo_url: str | None = None,
) -> Manifest:
    """Fill ``output`` with what converting ``sources`` offline needs; return its manifest.

    A paper SOURCE is resolved as ``metaserver convert`` resolves it: the repository
    ``repo_url`` names, else the first of its links that fetches. The bundle holds that
    repository under its own SOURCE, which ``convert PAPER --bundle`` looks up.

    Raises:
        UserError: a bad source (a paper that links no repository, ``repo_url`` for one that
            is not a paper), an ``output`` that is not an empty directory (or a place for
            one), an unusable ``python``.
        MetaServerError: a source could not be fetched, or its environment built.
    """
    resolved = [source_candidates(source, None, repo_url) for source in sources]
    if output.exists() and not output.is_dir():
        raise UserError(f"--output {output} is not a directory")
    if output.exists() and any(output.iterdir()):
        raise UserError(f"--output {output} is not empty")
    if not output.exists() and any(p.exists() and not p.is_dir() for p in output.parents):
        raise UserError(f"--output {output} is under a file, not a directory")
    output.mkdir(parents=True, exist_ok=True)
    workspaces, wheels = output / "workspaces", output / "wheels"
    workspaces.mkdir()
    manifest = Manifest(python=python, metaserver=__version__)
    wanted = _metaserver_distributions()
    with tempfile.TemporaryDirectory(prefix="metaserver-bundle-") as scratch:
        home = Path(scratch) / "home"
        local = settings.model_copy(update={"home": home})
        sandbox = get_sandbox(local.sandbox)
        for source, (paper, candidates) in zip(sources, resolved, strict=True):
            logger.info("bundle: %s", source)
            fetched = await fetch_first(candidates, local, str(len(manifest.sources)))
            if isinstance(fetched, MetaServerError):
                raise fetched
            chosen, workspace = fetched
            if not workspace.fingerprint:
                raise UserError(f"{source}: its tree has no fingerprint to be found by")
            venv = home / "environments" / f"bundle-{len(manifest.sources)}"
            environment = await build_environment(workspace, venv, local, sandbox)
            installed = pins(environment.lock.splitlines())
            wanted.update(installed)
            backend = _build_requirements(workspace.path)
            wanted.update(await asyncio.to_thread(_resolve_wheels, backend, python))
            manifest.sources.append(
                BundledSource(
                    source=chosen.original,
                    paper=source if paper is not None else None,
                    fingerprint=workspace.fingerprint,
                    version=workspace.version,
                    commit=workspace.commit,
                    requirements=[f"{n}=={v}" for n, v in sorted(installed.items())],
                )
            )
            remove_tree(venv)
        # The fetched trees, in the workspace cache's own layout (keys, remembered refs).
        shutil.copytree(local.workspace_store, workspaces, dirs_exist_ok=True)
    # Replaying a generated server's tests installs these into its environment.
    wanted.update(await asyncio.to_thread(_resolve_wheels, SELFTEST_PACKAGES, python))
    manifest.distributions = await download_all(
        wanted, python, settings.index.url, wheels, settings.timeouts.fetch
    )
    own = _build_own_wheel(wheels)
    if own is not None:
        manifest.distributions.append(own)
    write_manifest(output, manifest)
    return manifest


def _metaserver_distributions() -> dict[str, str]:
    """metaserver's own installed requirements, pinned (its wheel is built separately)."""
    closure = requirement_closure("metaserver")
    closure.pop("metaserver", None)
    return closure


def _build_requirements(tree: Path) -> list[str]:
    """What a source build of ``tree`` needs: its declared build system, else PEP 517's."""
    pyproject = tree / "pyproject.toml"
    if not pyproject.is_file():
        return DEFAULT_BUILD
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        declared = data.get("build-system", {}).get("requires")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return DEFAULT_BUILD
    if isinstance(declared, list) and declared and all(isinstance(r, str) for r in declared):
        return declared
    return DEFAULT_BUILD


def _resolve_wheels(requires: list[str], python: str) -> dict[str, str]:
    """``requires`` and everything they need, pinned, by ``uv pip compile`` with wheels only
    (so nothing is built or run).

    Raises:
        EnvironmentBuildError: the requirements cannot be resolved to wheels.
    """
    with tempfile.TemporaryDirectory(prefix="metaserver-bundle-reqs-") as scratch:
        wanted = Path(scratch) / "requirements.in"
        wanted.write_text("\n".join(requires) + "\n", encoding="utf-8")
        done = subprocess.run(
            [uv_binary(), "pip", "compile", "--quiet", "--only-binary", ":all:",
             "--python-version", python, "--no-header", str(wanted)],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    if done.returncode != 0:
        raise EnvironmentBuildError(
            f"{requires} could not be resolved to wheels: {done.stderr[-500:]}"
        )
    return pins(done.stdout.splitlines())


def _build_own_wheel(wheels: Path) -> str | None:
    """metaserver's own wheel, built from the checkout it runs from (if it runs from one)."""
    project = Path(__file__).resolve().parents[2]
    if not (project / "pyproject.toml").is_file() or not (project / "metaserver").is_dir():
        logger.warning("bundle: metaserver does not run from a checkout; its wheel is not added")
        return None
    before = set(wheels.glob("metaserver-*.whl"))
    done = subprocess.run(
        [uv_binary(), "build", "--wheel", "--quiet", "--out-dir", str(wheels), str(project)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    built = sorted(set(wheels.glob("metaserver-*.whl")) - before)
    if done.returncode != 0 or not built:
        raise EnvironmentBuildError(f"building metaserver's wheel failed: {done.stderr[-500:]}")
    return built[-1].name


def current_python() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"
