"""Environment stage: a fresh uv environment the repository's code can be imported from.

A ladder of strategies, each tried only when the one before failed; every attempt and the
lines that decided it are kept in :attr:`Environment.attempts` (and in the error):

1. ``source``: install the workspace itself, with an interpreter its ``Requires-Python``
   allows;
2. ``published-wheel``: the same distribution as binary wheels from the index (the same
   version when one fits, else the newest that does), for builds that need a compiler, a
   system library or an interpreter this machine lacks;
3. ``requirements+path``: the repository's requirements, and the tree on the import path,
   for repositories that are scripts rather than packages.

Installs run through the sandbox (build scripts are code), with one shared uv cache, bytecode
compiled once, and a per-attempt timeout inside one budget for the stage. A finished
environment is made read-only and kept for reuse (see :mod:`metaserver.agents.environment.cache`); a
failed or interrupted one is removed.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs
import uv

from metaserver.agents.environment.base_layer import base_key, ensure_base, seed_from_base
from metaserver.agents.environment.bytecode import name_bytecode
from metaserver.agents.environment.cache import EnvironmentCache, freeze_environment
from metaserver.agents.environment.extras import ChosenExtra, choose_extras
from metaserver.agents.environment.host_paths import drop_local_origins, put_on_path
from metaserver.agents.environment.interpreters import (
    Interpreter,
    choose_interpreter,
    discover_interpreters,
    read_requires_python,
)
from metaserver.agents.environment.native_build import needs_compiler
from metaserver.agents.environment.shared_files import share_identical_files
from metaserver.agents.environment.strategies import (
    collect_requirements,
    decisive_lines,
    installed_version,
    is_installable,
)
from metaserver.contracts import (
    Environment,
    EnvironmentAttempt,
    InstalledExtra,
    Workspace,
)
from metaserver.exceptions import EnvironmentBuildError
from metaserver.fs import remove_tree
from metaserver.sandbox import Policy, RunResult, Sandbox
from metaserver.sandbox.identity import sandbox_identity
from metaserver.settings import Settings

__all__ = ["build_environment", "default_python", "uv_binary", "uv_environment", "vcs_version"]

logger = logging.getLogger(__name__)

# A build that takes its version from git tags: setuptools-scm, or hatch-vcs (which asks it).
_VCS_VERSION = re.compile(r"setuptools[-_]scm|hatch[-_]vcs|use_scm_version")
_SOURCE_SHARE = 0.5  # of the stage budget, at most, so that the fallbacks always get a turn
# What replaying a generated server's tests needs in its environment (a bundle carries it
# too). Installed with the environment, before it is frozen: added later, it would cost a
# private copy of the whole environment, an install, and sharing its files again.
SELFTEST_PACKAGES = ["pytest"]


def uv_binary() -> str:
    return uv.find_uv_bin()


def default_python(settings: Settings) -> str:
    """The preferred interpreter: configured, else the one running metaserver."""
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
        # Bytecode compiled at install records its source's hash, not the install time, so
        # environments can share it (shared_files.py). 1980-01-01: the earliest time a zip
        # (a wheel built from source) can store.
        "SOURCE_DATE_EPOCH": "315532800",
    }
    if settings.index.extra_url:
        env["UV_INDEX"] = settings.index.extra_url
    if settings.index.find_links:
        env["UV_FIND_LINKS"] = settings.index.find_links
    if settings.index.offline:
        env["UV_OFFLINE"] = "1"
    return env


def vcs_version(workspace: Workspace) -> dict[str, str]:
    """The version a build that takes it from git gets when the tree has no git metadata.

    A private copy of a tree holds no ``.git``, so a project whose version comes from its
    tags (setuptools-scm, and hatch-vcs, which asks setuptools-scm) failed to build ("unable
    to detect version") and fell back to the tree on the path without its dependencies.
    setuptools-scm reads ``SETUPTOOLS_SCM_PRETEND_VERSION`` first: the version the source
    declared, else 0.0.0 (a local tree whose version lives only in its tags)."""
    if (workspace.path / ".git").exists() or not _versioned_by_git(workspace.path):
        return {}
    return {"SETUPTOOLS_SCM_PRETEND_VERSION": workspace.version or "0.0.0"}


def _versioned_by_git(root: Path) -> bool:
    """Whether the tree's build takes its version from git (only then is the variable set:
    a dependency built from its sdist in the same install would read it too)."""
    for name in ("pyproject.toml", "setup.py", "setup.cfg"):
        path = root / name
        try:
            if path.is_file() and _VCS_VERSION.search(path.read_text(errors="replace")[:200_000]):
                return True
        except OSError:
            continue
    return False


def local_wheelhouse(settings: Settings) -> tuple[Path, ...]:
    """The wheelhouse directory an install must be able to read, when it is one."""
    links = settings.index.find_links
    if links and "://" not in links and Path(links).is_dir():
        return (Path(links).resolve(),)
    return ()


@dataclass
class _Build:
    """What every attempt of one build shares."""

    workspace: Workspace
    venv: Path
    settings: Settings
    sandbox: Sandbox
    chosen: Interpreter | None
    fallback: Interpreter
    requires_python: str | None
    candidates: list[Interpreter]
    deadline: float
    workdir: Path = field(init=False)
    installed: str | None = None
    tried_wheels: set[str] = field(default_factory=set)
    bases: dict[Path, Path | None] = field(default_factory=dict)  # interpreter -> its layer
    seeded: bool = False  # the last environment made holds a base layer (with the test runner)

    def __post_init__(self) -> None:
        self.workdir = self.venv.parent / f".{self.venv.name}.build"

    def remaining(self, share: float = 1.0) -> float:
        left = self.deadline - time.monotonic()
        return max(1.0, min(left, self.settings.timeouts.environment * share))

    async def uv(self, args: list[str], timeout: float) -> RunResult:
        policy = Policy(
            workdir=self.workdir,
            timeout=timeout,
            network=not self.settings.index.offline,
            readable=(self.workspace.path, *local_wheelhouse(self.settings)),
            writable=(self.venv, self.workdir),
            env={**uv_environment(self.settings), **vcs_version(self.workspace)},
            kind="install",
        )
        return await self.sandbox.run([uv_binary(), *args], policy)

    async def uv_in(self, args: list[str], workdir: Path, venv: Path, timeout: float) -> RunResult:
        """uv as an install that writes only ``workdir`` and the environment ``venv``."""
        policy = Policy(
            workdir=workdir,
            timeout=min(timeout, self.remaining()),
            network=not self.settings.index.offline,
            readable=local_wheelhouse(self.settings),
            writable=(venv,),
            env=uv_environment(self.settings),
            kind="install",
        )
        return await self.sandbox.run([uv_binary(), *args], policy)


async def build_environment(
    workspace: Workspace, venv: Path, settings: Settings, sandbox: Sandbox
) -> Environment:
    """Build ``venv`` for ``workspace`` by the first strategy that works.

    Args:
        workspace: The fetched tree (read, never modified).
        venv: Where the environment goes; it must not exist yet.
        settings: Interpreter, package index, timeouts and the home holding the caches.
        sandbox: Runs every install (build scripts are repository code).

    Returns:
        The environment, with its strategy, interpreter, lock, and every attempt made.

    Raises:
        EnvironmentBuildError: Every strategy failed; ``attempts`` holds each one's decisive
            lines, and the message says what a person can do about it. Nothing is left at
            ``venv``.
    """
    started = time.monotonic()
    candidates = await asyncio.to_thread(discover_interpreters, settings.python)
    requires = read_requires_python(workspace.path)
    preferred = Path(default_python(settings)).resolve()
    chosen = choose_interpreter(candidates, requires, preferred)
    fallback = choose_interpreter(candidates, None, preferred) or Interpreter((0, 0, 0), preferred)
    build = _Build(
        workspace, venv, settings, sandbox, chosen, fallback, requires, candidates,
        deadline=started + settings.timeouts.environment,
    )  # fmt: skip
    cache = EnvironmentCache(settings.environment_store)
    python = chosen or fallback
    # Static (metadata and the guides' imports): decided before the key, which it is part of.
    extras: list[ChosenExtra] = []
    if settings.install_documented_extras:
        extras = await asyncio.to_thread(choose_extras, workspace.path, workspace.distribution)
    key = None
    if workspace.fingerprint:
        extra = " ".join(server_packages(settings) + [f"[{e.name}]" for e in extras])
        key = cache.key(workspace.fingerprint, python.path, python.version_text, extra)
    try:
        environment = await _restore(cache, key, build) if key else None
        built = environment is None
        if environment is None:
            environment = await _climb(build)
            if extras:
                environment.extras = await _add_extras(build, extras)
            if settings.run_generated_tests and not build.seeded:
                await _add_test_runner(build)
            # After the last install, while the sandbox user may still write it.
            renamed = await name_bytecode(
                venv, build.workdir, sandbox, min(120.0, build.remaining())
            )
            logger.debug("environment: %s compiled files renamed to /venv", renamed)
        # A stored copy keeps the lock its build took: its local install's origin (``@
        # file://``, which tells a bundle the distribution is not on the index) is dropped
        # below, and a new freeze would name it as if it were.
        if built or not environment.lock:
            environment.lock = await _freeze(build)
        # Last: the lock step, an install-kind child, was handed the environment too. From
        # here on nothing sandboxed writes it (an install into it unshares it first).
        await asyncio.to_thread(drop_local_origins, venv)
        await asyncio.to_thread(freeze_environment, venv)
        if built:
            saved = await asyncio.to_thread(share_identical_files, venv, settings.shared_files)
            logger.info("environment shares %.1f MB with earlier ones", saved / 1e6)
        if built and key:
            await asyncio.to_thread(cache.store, key, environment)
    except BaseException:
        remove_tree(venv)
        raise
    finally:
        shutil.rmtree(build.workdir, ignore_errors=True)
    environment.seconds = round(time.monotonic() - started, 2)
    logger.info(
        "environment for %s: %s, Python %s, %.1f s%s",
        workspace.distribution or workspace.path.name,
        environment.strategy,
        environment.python,
        environment.seconds,
        " (stored copy)" if environment.cached else "",
    )
    return environment


async def _restore(cache: EnvironmentCache, key: str, build: _Build) -> Environment | None:
    environment = await asyncio.to_thread(cache.restore, key, build.venv)
    if environment is None:
        return None
    if environment.strategy == "requirements+path":
        put_on_path(build.venv, build.workspace.path)  # one stored before named the tree
    return environment


async def _climb(build: _Build) -> Environment:
    """Try each strategy in turn; the first that works gives the environment."""
    ladder: list[tuple[str, Callable[[_Build], Awaitable[EnvironmentAttempt]]]] = []
    from_index = bool(build.workspace.distribution) and build.workspace.source.kind in (
        "pypi",
        "archive",
    )
    if from_index and build.workspace.version and needs_compiler(build.workspace.path):
        # The same version, built by its maintainers, before minutes of compiling that may
        # fail for a missing header (native_build.py); only that version, so the code
        # analysed is the code installed.
        ladder.append(("published-wheel", _same_version_wheel))
    if is_installable(build.workspace.path):
        ladder.append(("source", _source))
    if from_index:
        # Also for a tree that cannot be built at all, such as one unpacked from a wheel.
        # Only where the index itself named the distribution: for a git or local tree, a
        # same-named package on the index may be an unrelated project (name squatting).
        ladder.append(("published-wheel", _published_wheel))
    ladder.append(("requirements+path", _requirements_path))
    attempts: list[EnvironmentAttempt] = []
    for strategy, attempt_with in ladder:
        started = time.monotonic()
        try:
            attempt = await attempt_with(build)
        except OSError as err:
            attempt = EnvironmentAttempt(strategy=strategy, ok=False, seconds=0, error=str(err))
        attempt.seconds = round(time.monotonic() - started, 2)
        attempts.append(attempt)
        if attempt.ok:
            break
        logger.info("environment strategy %s failed: %s", strategy, attempt.error)
        remove_tree(build.venv)
    else:
        raise EnvironmentBuildError(_reason(build, attempts), attempts=attempts)
    return Environment(
        ok=True,
        strategy=attempts[-1].strategy,
        python=_python_version(build.venv),
        python_path=build.venv / "bin" / "python",
        venv=build.venv,
        seconds=0,
        attempts=attempts,
        requested_version=build.workspace.version,
        installed_version=build.installed or build.workspace.version,
    )


async def _create(build: _Build, python: Interpreter, strategy: str) -> EnvironmentAttempt | None:
    """A fresh relocatable environment (so a stored copy works at another path)."""
    args = ["venv", "--quiet", "--relocatable", "--python", str(python.path), str(build.venv)]
    result = await build.uv(args, timeout=min(120.0, build.remaining()))
    if result.ok:
        return None
    return _failed(strategy, python, result, "creating the environment")


async def _install(
    build: _Build, python: Interpreter, strategy: str, requirements: list[str], share: float = 1.0
) -> EnvironmentAttempt:
    failed = await _create(build, python, strategy)
    if failed is not None:
        return failed
    build.seeded = await _seed(build, python)
    timeout = build.remaining(share)
    # Bytecode is compiled here, once: environments are read-only at run time, and every
    # child would otherwise compile what it imports on each start (seconds for numpy stacks).
    # Copies, not hard links: the install's build scripts run as the sandbox user, who owns
    # the sandbox's package cache; files linked from it into earlier environments would be
    # theirs to rewrite (ARCHITECTURE.md, "Sandbox facts").
    args = ["pip", "install", "--compile-bytecode", "--link-mode=copy"]
    args += ["--python", str(build.venv / "bin/python")]
    result = await build.uv([*args, *requirements, build.settings.fastmcp_requirement], timeout)
    if not result.ok:
        return _failed(strategy, python, result, f"timed out after {timeout:.0f} s")
    return EnvironmentAttempt(strategy=strategy, ok=True, seconds=0, python=python.version_text)


async def _source(build: _Build) -> EnvironmentAttempt:
    if build.chosen is None:
        found = ", ".join(c.version_text for c in build.candidates) or "none"
        return EnvironmentAttempt(
            strategy="source",
            ok=False,
            seconds=0,
            error=f"Requires-Python {build.requires_python!r} excludes every interpreter on "
            f"this machine ({found})",
        )
    return await _install(
        build, build.chosen, "source", [str(build.workspace.path)], share=_SOURCE_SHARE
    )


async def _published_wheel(build: _Build) -> EnvironmentAttempt:
    """The distribution's own wheels: the workspace's version, else the newest that fits."""
    name = build.workspace.distribution or ""
    version = build.workspace.version
    return await _wheels(build, [f"{name}=={version}", name] if version else [name])


async def _same_version_wheel(build: _Build) -> EnvironmentAttempt:
    """The distribution's own wheels of exactly the workspace's version."""
    return await _wheels(build, [f"{build.workspace.distribution}=={build.workspace.version}"])


async def _wheels(build: _Build, pins: list[str]) -> EnvironmentAttempt:
    name = build.workspace.distribution or ""
    python = build.chosen or build.fallback
    version = build.workspace.version
    errors: list[str] = []
    for requirement in pins:
        if requirement in build.tried_wheels:
            continue
        build.tried_wheels.add(requirement)
        # No build runs at all: every distribution must come as a wheel.
        attempt = await _install(
            build, python, "published-wheel", ["--only-binary", ":all:", requirement]
        )
        if attempt.ok:
            build.installed = await _installed(build, name)
            if version and build.installed != version:
                attempt.error = f"{name} {version} has no wheel that fits Python " + (
                    f"{python.version_text}; installed {build.installed} instead"
                )
            return attempt
        errors.append(f"{requirement}: {attempt.error}")
        remove_tree(build.venv)
    return EnvironmentAttempt(
        strategy="published-wheel",
        ok=False,
        seconds=0,
        error="\n".join(errors) or "no other wheels to try than those tried first",
        python=python.version_text,
    )


async def _requirements_path(build: _Build) -> EnvironmentAttempt:
    requirements = collect_requirements(build.workspace.path)
    build.workdir.mkdir(parents=True, exist_ok=True)
    listed = build.workdir / "requirements.txt"
    listed.write_text("".join(f"{line}\n" for line in requirements))
    python = build.chosen or build.fallback
    attempt = await _install(build, python, "requirements+path", ["-r", str(listed)])
    if attempt.ok:
        put_on_path(build.venv, build.workspace.path)
    return attempt


def _failed(
    strategy: str, python: Interpreter, result: RunResult, timeout_text: str
) -> EnvironmentAttempt:
    error = timeout_text if result.timed_out else decisive_lines(result.stderr + result.stdout)
    return EnvironmentAttempt(
        strategy=strategy, ok=False, seconds=0, error=error, python=python.version_text
    )


def _reason(build: _Build, attempts: list[EnvironmentAttempt]) -> str:
    """One message a person can act on: each attempt's first decisive line, and a hint."""
    name = build.workspace.distribution or build.workspace.path.name
    parts = [f"{a.strategy}: {_innermost(a.error)}" for a in attempts]
    hints = []
    if build.chosen is None:
        hints.append(
            f"install a Python that meets Requires-Python {build.requires_python!r} "
            "(for example with pyenv) or set METASERVER_PYTHON"
        )
    if build.settings.index.offline:
        hints.append(
            "offline mode uses only the uv cache and the wheelhouse "
            "(METASERVER_INDEX__FIND_LINKS): add the missing distributions there"
        )
    hint = f". To fix: {'; '.join(hints)}" if hints else ""
    return f"no strategy could build an environment for {name}: {'; '.join(parts)}{hint}"


def _innermost(error: str | None) -> str:
    """The line of an attempt's error nearest the cause (uv prints the cause last)."""
    lines = [line for line in (error or "").splitlines() if not line.startswith("hint:")]
    return lines[-1] if lines else "failed"


def server_packages(settings: Settings) -> list[str]:
    """What every environment holds besides the repository's own: FastMCP, the test runner."""
    runner = SELFTEST_PACKAGES if settings.run_generated_tests else []
    return [settings.fastmcp_requirement, *runner]


async def _seed(build: _Build, python: Interpreter) -> bool:
    """Link the interpreter's base layer into the new environment, where installs run as the
    sandbox uid (:mod:`metaserver.agents.environment.base_layer`); whether it was."""
    identity = sandbox_identity(build.settings.sandbox.uid, build.settings.sandbox.gid)
    if not identity.switch:
        return False
    if python.path not in build.bases:
        packages = server_packages(build.settings)
        key = base_key(python.path, python.version_text, packages, time.time())
        build.bases[python.path] = await ensure_base(
            build.settings.base_layers, key, python.path, packages,
            build.settings.shared_files, build.uv_in,
            lambda venv, workdir: name_bytecode(venv, workdir, build.sandbox, 120.0),
        )  # fmt: skip
    base = build.bases[python.path]
    if base is not None:
        linked = await asyncio.to_thread(seed_from_base, base, build.venv, identity)
        logger.debug("environment seeded with %d files of the base layer", linked)
        return True
    return False


async def _add_test_runner(build: _Build) -> None:
    """Install :data:`SELFTEST_PACKAGES` beside the repository's own.

    A separate step, so that a repository whose requirements exclude them still converts: its
    tests are then given them later, as before (``validate/selftest.py``).
    """
    args = ["pip", "install", "--quiet", "--compile-bytecode", "--link-mode=copy"]
    args += ["--python", str(build.venv / "bin" / "python"), *SELFTEST_PACKAGES]
    result = await build.uv(args, timeout=min(120.0, build.remaining()))
    if not result.ok:
        logger.info("test runner not installed with the environment: %s", result.tail(2))


async def _add_extras(build: _Build, extras: list[ChosenExtra]) -> list[InstalledExtra]:
    """Install the optional extras the guides need (extras.py), all in one install; if that
    fails, each alone, so that one unavailable extra leaves the others (and the environment
    itself, which never depends on them) in place."""
    args = ["pip", "install", "--quiet", "--compile-bytecode", "--link-mode=copy"]
    args += ["--python", str(build.venv / "bin" / "python")]
    groups = [extras] if len(extras) == 1 else [extras, *([e] for e in extras)]
    installed: list[InstalledExtra] = []
    for group in groups:
        requirements = [r for e in group for r in e.requirements]
        if not requirements:
            continue
        result = await build.uv([*args, *requirements], timeout=build.remaining())
        names = ", ".join(e.name for e in group)
        if not result.ok:
            logger.info("extra %s not installed: %s", names, result.tail(2))
            continue
        for extra in group:
            logger.info("environment: extra [%s] installed (%s): %s", extra.name,
                        ", ".join(extra.requirements), extra.reason)  # fmt: skip
        installed += [
            InstalledExtra(name=e.name, requirements=e.requirements, reason=e.reason) for e in group
        ]
        if group is extras:
            break
    return installed


async def _installed(build: _Build, name: str) -> str | None:
    return installed_version(await _freeze(build), name)


async def _freeze(build: _Build) -> str:
    python = build.venv / "bin" / "python"
    result = await build.uv(["pip", "freeze", "--python", str(python)], timeout=60)
    return result.stdout if result.ok else ""


def _python_version(venv: Path) -> str:
    for line in (venv / "pyvenv.cfg").read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("version_info", "version"):
            return value.strip()
    return "unknown"
