"""build_environment with the real uv: source installs, plain trees, and broken builds."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import uv
from fixture_repos import make_calc_repo, make_extra_repo

from metaserver.agents.environment.build import build_environment
from metaserver.agents.environment.strategies import installed_version
from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source
from metaserver.contracts import Environment, Source, Workspace
from metaserver.exceptions import EnvironmentBuildError, SourceError
from metaserver.sandbox import get_sandbox
from metaserver.settings import IndexSettings, Settings

pytestmark = pytest.mark.integration


def workspace(path: Path, distribution: str | None = None, kind: str = "local") -> Workspace:
    """A workspace for ``path``; kind "pypi" stands for a tree the index itself named."""
    original = f"pypi:{distribution}" if kind == "pypi" else str(path)
    source = Source.model_validate({"kind": kind, "location": str(path), "original": original})
    return Workspace(source=source, path=path, distribution=distribution)


def python_says(environment: Environment, code: str) -> str:
    completed = subprocess.run(
        [str(environment.python_path), "-I", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


@pytest.fixture(scope="module")
def calc_environment(tmp_path_factory: pytest.TempPathFactory) -> Environment:
    """The fixture repository installed from source, built once for the module."""
    root = tmp_path_factory.mktemp("environment")
    repo = make_calc_repo(root / "calcpack")
    settings = Settings(home=root / "home")
    sandbox = get_sandbox(settings.sandbox)
    venv = settings.environments_dir / "calcpack"
    return asyncio.run(build_environment(workspace(repo, "calcpack"), venv, settings, sandbox))


def test_install_from_the_repository(calc_environment: Environment) -> None:
    assert calc_environment.ok
    assert calc_environment.strategy == "source"
    assert calc_environment.python_path == calc_environment.venv / "bin" / "python"
    assert calc_environment.python_path.exists()
    assert calc_environment.python.count(".") >= 1
    assert calc_environment.seconds > 0
    assert [a.strategy for a in calc_environment.attempts] == ["source"]
    assert calc_environment.attempts[0].ok


def test_the_package_and_fastmcp_import(calc_environment: Environment) -> None:
    said = python_says(
        calc_environment,
        "import calcpack, fastmcp; print(calcpack.add(2, 3), calcpack.__file__)",
    )
    total, location = said.split(" ", 1)
    assert total == "5"
    # Installed into the environment (a copy), not imported from the repository tree.
    assert location.startswith(str(calc_environment.venv))


def test_lock_lists_the_package(calc_environment: Environment) -> None:
    assert "calcpack" in calc_environment.lock
    assert "fastmcp==" in calc_environment.lock


def test_the_generated_tests_runner_comes_with_the_environment(
    calc_environment: Environment,
) -> None:
    # Installed before the environment is frozen: replaying a server's tests adds nothing.
    assert installed_version(calc_environment.lock, "pytest") is not None
    assert installed_version(calc_environment.lock, "no-such-distribution") is None
    assert "pytest==" in calc_environment.lock
    assert python_says(calc_environment, "import pytest; print(pytest.__name__)") == "pytest"


def test_build_leaves_no_scratch_directory(calc_environment: Environment) -> None:
    assert not (calc_environment.venv.parent / f".{calc_environment.venv.name}.build").exists()


async def test_requirements_and_path(tmp_path: Path, settings: Settings) -> None:
    tree = tmp_path / "plain"
    tree.mkdir()
    (tree / "requirements.txt").write_text("# nothing beyond the standard library\n")
    (tree / "plainmod.py").write_text("def double(x: int) -> int:\n    return 2 * x\n")
    venv = settings.environments_dir / "plain"
    environment = await build_environment(
        workspace(tree), venv, settings, get_sandbox(settings.sandbox)
    )
    assert environment.ok
    assert environment.strategy == "requirements+path"
    said = python_says(environment, "import plainmod, fastmcp; print(plainmod.double(21))")
    assert said == "42"


async def test_a_broken_build_raises_and_removes_the_venv(
    tmp_path: Path, settings: Settings
) -> None:
    tree = tmp_path / "broken"
    tree.mkdir()
    # Every rung fails: the build backend, the published wheel (no such distribution) and
    # the requirements (no such dependency). As a pypi source, all three rungs are tried.
    (tree / "pyproject.toml").write_text(
        '[project]\nname = "metaserver-no-such-dist-xyz"\nversion = "0.1"\n'
        'dependencies = ["metaserver-no-such-dependency-xyz"]\n\n'
        '[build-system]\nrequires = ["no-such-backend-xyz"]\n'
        'build-backend = "no_such_backend_xyz"\n'
    )
    (tree / "brokenpkg.py").write_text("X = 1\n")
    venv = settings.environments_dir / "broken"
    with pytest.raises(EnvironmentBuildError) as raised:
        await build_environment(
            workspace(tree, "metaserver-no-such-dist-xyz", kind="pypi"),
            venv,
            settings,
            get_sandbox(settings.sandbox),
        )
    assert raised.value.failure_type == "env_failure"
    # The message names the cause (uv resolves the missing dependency before the build).
    assert "metaserver-no-such-dependency-xyz" in str(raised.value)
    attempts = raised.value.attempts
    assert [(a.strategy, a.ok) for a in attempts] == [
        ("source", False),
        ("published-wheel", False),
        ("requirements+path", False),
    ]
    assert all(a.error for a in attempts)
    assert not venv.exists()


# ------------------------------------------------------------- the ladder, with real PyPI

MORE_ITERTOOLS = ("more-itertools", "11.2.1")


def posing_as_more_itertools(root: Path, pyproject_tail: str) -> Path:
    """A tree that claims to be more-itertools 11.2.1 but cannot be built from source."""
    root.mkdir(parents=True)
    name, version = MORE_ITERTOOLS
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "{name}"\nversion = "{version}"\n{pyproject_tail}'
    )
    (root / "more_itertools").mkdir()
    (root / "more_itertools" / "__init__.py").write_text("raise ImportError('the tree')\n")
    return root


@pytest.mark.parametrize(
    ("tail", "decisive"),
    [
        # A build backend that cannot be had (as a compiler or a system library that is
        # missing would fail it).
        (
            '[build-system]\nrequires = ["metaserver-no-such-backend-xyz"]\n'
            'build-backend = "nope"\n',
            "metaserver-no-such-backend-xyz",
        ),
        # A Requires-Python no interpreter on this machine meets.
        ('requires-python = ">=3.99"\n', "excludes every interpreter"),
    ],
    ids=["build-fails", "requires-python"],
)
async def test_falls_back_to_the_published_wheel(
    tmp_path: Path, settings: Settings, tail: str, decisive: str
) -> None:
    tree = posing_as_more_itertools(tmp_path / "tree", tail)
    ws = workspace(tree, MORE_ITERTOOLS[0], kind="pypi").model_copy(
        update={"version": MORE_ITERTOOLS[1]}
    )
    venv = settings.environments_dir / "wheel"
    environment = await build_environment(ws, venv, settings, get_sandbox(settings.sandbox))
    assert environment.strategy == "published-wheel"
    assert [(a.strategy, a.ok) for a in environment.attempts] == [
        ("source", False),
        ("published-wheel", True),
    ]
    assert decisive in (environment.attempts[0].error or "")
    assert environment.requested_version == environment.installed_version == "11.2.1"
    assert "more-itertools==11.2.1" in environment.lock
    # The analysis runs against what was installed, not the tree.
    said = python_says(environment, "import more_itertools; print(more_itertools.__file__)")
    assert said.startswith(str(venv))


async def test_a_tree_that_compiles_takes_the_same_version_wheel_first(
    tmp_path: Path, settings: Settings
) -> None:
    # An extension module in the package: compiling it is what the published wheel saves.
    # The source build would fail (its backend cannot be had), so reaching it would show.
    tree = posing_as_more_itertools(
        tmp_path / "tree", '[build-system]\nrequires = ["metaserver-no-such-backend-xyz"]\n'
    )
    (tree / "more_itertools" / "_speedups.c").write_text("int answer(void) { return 42; }\n")
    ws = workspace(tree, MORE_ITERTOOLS[0], kind="pypi").model_copy(
        update={"version": MORE_ITERTOOLS[1]}
    )
    environment = await build_environment(
        ws, settings.environments_dir / "first", settings, get_sandbox(settings.sandbox)
    )
    assert [(a.strategy, a.ok) for a in environment.attempts] == [("published-wheel", True)]
    assert environment.installed_version == "11.2.1"


async def test_a_local_tree_never_falls_back_to_a_same_named_index_package(
    tmp_path: Path, settings: Settings
) -> None:
    # A git or local tree may share its name with an unrelated project on the index.
    tree = posing_as_more_itertools(
        tmp_path / "tree", '[build-system]\nrequires = ["metaserver-no-such-backend-xyz"]\n'
    )
    environment = await build_environment(
        workspace(tree, MORE_ITERTOOLS[0]),
        settings.environments_dir / "local",
        settings,
        get_sandbox(settings.sandbox),
    )
    # The tree itself goes on the path; nothing named more-itertools comes from the index.
    assert [a.strategy for a in environment.attempts] == ["source", "requirements+path"]
    assert "more-itertools" not in environment.lock


async def test_script_repository_gets_requirements_and_path(
    tmp_path: Path, settings: Settings
) -> None:
    tree = tmp_path / "scripts"
    tree.mkdir()
    (tree / "requirements.txt").write_text("-e .\nmore-itertools==11.2.1  # pinned\n")
    (tree / "chunker.py").write_text(
        "import more_itertools\n\ndef pairs(xs):\n    return list(more_itertools.chunked(xs, 2))\n"
    )
    (tree / "analysis.ipynb").write_text("{}")
    environment = await build_environment(
        workspace(tree), settings.environments_dir / "scripts", settings,
        get_sandbox(settings.sandbox),
    )  # fmt: skip
    assert environment.strategy == "requirements+path"
    assert [a.strategy for a in environment.attempts] == ["requirements+path"]
    assert python_says(environment, "import chunker; print(chunker.pairs([1, 2, 3]))") == (
        "[[1, 2], [3]]"
    )


async def test_warm_rebuild_then_offline_with_the_network_cut(tmp_path: Path) -> None:

    online = Settings(home=tmp_path / "home")
    sandbox = get_sandbox(online.sandbox)
    source = parse_source("pypi:more-itertools==11.2.1")

    async def convert(settings: Settings, name: str) -> Environment:
        ws = await fetch(source, settings.workspaces_dir / name, settings)
        return await build_environment(ws, settings.environments_dir / name, settings, sandbox)

    cold = await convert(online, "cold")
    assert cold.strategy == "source" and not cold.cached
    # Two warm conversions at once: separate environments, no collision.
    warm_a, warm_b = await asyncio.gather(convert(online, "a"), convert(online, "b"))
    assert warm_a.cached and warm_b.cached and warm_a.venv != warm_b.venv
    assert warm_a.seconds < 5
    assert warm_a.lock == cold.lock
    # The network "cut": a dead index address, and offline mode.
    dead = IndexSettings(url="http://127.0.0.1:9/simple", offline=True)
    offline = Settings(home=online.home, index=dead)
    again = await convert(offline, "offline")
    assert again.cached and again.strategy == "source"
    assert python_says(again, "import more_itertools; print(more_itertools.first([7]))") == "7"
    # Read-only files protect the shared (hard-linked) cache; removal still works.
    init = next(again.venv.glob("lib/python*/site-packages/more_itertools/__init__.py"))
    assert not init.stat().st_mode & 0o222
    # Frozen after the last sandboxed step: no entry is left to the sandbox user.
    for environment in (cold, again):
        assert environment.venv.stat().st_uid == os.geteuid()
        assert init.parent.stat().st_uid == os.geteuid()
    shutil.rmtree(again.venv)
    assert not again.venv.exists()


async def test_offline_wheelhouse_fallback(tmp_path: Path) -> None:
    """Air-gapped: the source build fails, the wheel comes from a wheelhouse, no index."""

    good = make_calc_repo(tmp_path / "good")
    wheelhouse = tmp_path / "wheelhouse"
    subprocess.run(
        [uv.find_uv_bin(), "build", "--wheel", "--out-dir", str(wheelhouse), str(good)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    # Warm the uv cache with FastMCP (the server's own requirement) while online.
    online = Settings(home=tmp_path / "home")
    await build_environment(
        workspace(good, "calcpack"), online.environments_dir / "warm", online,
        get_sandbox(online.sandbox),
    )  # fmt: skip
    broken = tmp_path / "broken"
    shutil.copytree(good, broken, ignore=shutil.ignore_patterns(".git"))
    pyproject = (broken / "pyproject.toml").read_text()
    (broken / "pyproject.toml").write_text(pyproject.replace('"setuptools>=61"', '"nope-xyz"'))

    offline = Settings(
        home=online.home, index=IndexSettings(offline=True, find_links=str(wheelhouse))
    )
    # As a pypi source (the sdist of a release whose build needs what this site lacks).
    ws = workspace(broken, "calcpack", kind="pypi").model_copy(update={"version": "0.3.1"})
    environment = await build_environment(
        ws, offline.environments_dir / "air", offline, get_sandbox(offline.sandbox)
    )
    assert [(a.strategy, a.ok) for a in environment.attempts] == [
        ("source", False),
        ("published-wheel", True),
    ]
    assert environment.installed_version == "0.3.1"
    assert python_says(environment, "import calcpack; print(calcpack.add(1, 2))") == "3"


async def test_unknown_pypi_name_fails_fast(tmp_path: Path, settings: Settings) -> None:

    started = time.monotonic()
    with pytest.raises(SourceError, match="unknown package on the index: metaserver-no-such"):
        await fetch(parse_source("pypi:metaserver-no-such-package-xyz"), tmp_path / "ws", settings)
    assert time.monotonic() - started < 10


async def test_the_documented_extra_only_with_the_setting_on(tmp_path: Path) -> None:
    """The README needs the extra "chunks": installed, listed, part of the stored key; with
    the setting off, the plain install alone (and no stored copy of the other is reused)."""
    repo = make_extra_repo(tmp_path / "chunkpack")
    on = Settings(home=tmp_path / "home")
    off = on.model_copy(update={"install_documented_extras": False})
    check = "import chunkpack.chunking as c; print(c.pairs([1, 2, 3]))"
    sandbox = get_sandbox(on.sandbox)
    tree = workspace(repo).model_copy(update={"fingerprint": "fixture-extra"})

    with_extra = await build_environment(tree, on.environments_dir / "on", on, sandbox)
    assert [(e.name, e.requirements) for e in with_extra.extras] == [
        ("chunks", ["more-itertools==11.2.1"])
    ]
    assert installed_version(with_extra.lock, "more-itertools") == "11.2.1"
    assert python_says(with_extra, check) == "[[1, 2], [3]]"

    plain = await build_environment(tree, off.environments_dir / "off", off, sandbox)
    assert not plain.cached and plain.extras == []
    assert installed_version(plain.lock, "more-itertools") is None


async def test_a_tree_versioned_by_its_git_tags_builds_without_git(
    tmp_path: Path, settings: Settings
) -> None:
    # A private copy holds no .git: setuptools-scm could not find a version and the build
    # failed, leaving the tree on the path without its declared dependencies.
    tree = tmp_path / "tagged"
    (tree / "tagged").mkdir(parents=True)
    (tree / "tagged" / "__init__.py").write_text("VALUE = 3\n")
    (tree / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\n'
        'build-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "tagged"\ndynamic = ["version"]\n\n[tool.setuptools_scm]\n'
    )
    environment = await build_environment(
        workspace(tree, "tagged"),
        settings.environments_dir / "tagged",
        settings,
        get_sandbox(settings.sandbox),
    )
    assert [a.strategy for a in environment.attempts] == ["source"], environment.attempts
    said = python_says(environment, "import importlib.metadata as m; print(m.version('tagged'))")
    assert said == "0.0.0"


def test_only_a_tree_versioned_by_git_gets_a_pretended_version(tmp_path: Path) -> None:
    from metaserver.agents.environment.build import vcs_version

    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "pyproject.toml").write_text('[project]\nname = "plain"\nversion = "1.0"\n')
    assert vcs_version(workspace(plain, "plain")) == {}  # versioned in its pyproject
    tagged = tmp_path / "tagged"
    tagged.mkdir()
    (tagged / "pyproject.toml").write_text('[build-system]\nrequires = ["hatch-vcs"]\n')
    found = workspace(tagged, "tagged").model_copy(update={"version": "1.2"})
    assert vcs_version(found) == {"SETUPTOOLS_SCM_PRETEND_VERSION": "1.2"}
    (tagged / ".git").mkdir()  # a clone with its history: its tags say
    assert vcs_version(found) == {}
