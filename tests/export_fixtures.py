"""Repositories and conversions for the tests of ``metaserver export`` (tests/export/).

``make_export_repo``: a git repository of typed, doctested functions with a pyproject that
already declares an extra and a pytest configuration of its own (what an exported change
must leave alone); ``make_sdist``: the same package as a source distribution (PKG-INFO at
its root, no git), which exports as files only. ``convert_once`` converts a source into a
home of its own, for a module-scoped fixture (a conversion takes a minute on a loaded
machine), and ``fresh_env`` builds a uv environment with a repository installed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from fixture_repos import CALC_MODULE, git, make_package_repo

from metaserver.contracts import ConversionReport
from metaserver.settings import Settings

EXPORT_PYPROJECT = """\
[project]
name = "{name}"
version = "1.2.0"
description = "metaserver export test fixture"
requires-python = ">=3.9"
dependencies = []

[project.optional-dependencies]
docs = [
    "sphinx",
]

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
packages = ["{package}"]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

OWN_TEST = """\
from {package} import add


def test_add():
    assert add(2, 3) == 5
"""


def make_export_repo(root: Path, name: str = "exportcalc", package: str = "exportcalc") -> Path:
    """A git repository whose package has typed doctested functions, a pyproject with an
    extra and a pytest configuration, and tests of its own."""
    make_package_repo(
        root, name, package, CALC_MODULE, {"tests/test_own.py": OWN_TEST.format(package=package)}
    )
    (root / "pyproject.toml").write_text(EXPORT_PYPROJECT.format(name=name, package=package))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a pyproject with an extra")
    return root


SETUP_CFG = """\
[metadata]
name = {name}
version = 0.9.0
description = metaserver export test fixture (setup.cfg, packages found by setuptools)

[options]
python_requires = >=3.9

[options.extras_require]
docs =
    sphinx
"""


def make_setup_cfg_repo(root: Path, name: str = "cfgcalc") -> Path:
    """A git repository declared in setup.cfg, whose flat layout setuptools searches for its
    packages (none named): an ``mcp/`` folder there would break its build."""
    make_package_repo(root, name, name, CALC_MODULE)
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
    )
    (root / "setup.cfg").write_text(SETUP_CFG.format(name=name))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "declared in setup.cfg")
    return root


def make_sdist(root: Path, name: str = "sdistcalc") -> Path:
    """``root/<name>-1.2.0.tar.gz``: the package as a source distribution (no git)."""
    tree = root / f"{name}-1.2.0"
    (tree / name).mkdir(parents=True)
    (tree / name / "__init__.py").write_text(CALC_MODULE)
    (tree / "pyproject.toml").write_text(EXPORT_PYPROJECT.format(name=name, package=name))
    (tree / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.2.0\n")
    (tree / "README.md").write_text(f"# {name}\n\nA fixture.\n")
    archive = root / f"{name}-1.2.0.tar.gz"
    with tarfile.open(archive, "w:gz") as bundle:
        bundle.add(tree, arcname=tree.name)
    shutil.rmtree(tree)
    return archive


def convert_once(source: str, home: Path, max_tools: int = 4) -> tuple[Settings, ConversionReport]:
    """Convert ``source`` into ``home`` (its own, not the per-test one)."""
    from metaserver.pipeline import convert

    settings = Settings(home=home)
    report = asyncio.run(convert(source, settings=settings, max_tools=max_tools))
    assert report.status == "success", report.failure
    return settings, report


def uv() -> str:
    return shutil.which("uv") or str(Path(sys.executable).with_name("uv"))


def fresh_env(repo: Path, spec: str, *extra: str) -> Path:
    """A new uv environment at ``repo/.venv`` with ``spec`` (``-e '.[mcp]'``'s path form)
    and ``extra`` installed from the index or the uv cache; its python."""
    venv = repo / ".venv"
    subprocess.run([uv(), "venv", "-q", "-p", sys.executable, str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [uv(), "pip", "install", "-q", "-p", str(python), "-e", spec, *extra],
        cwd=repo,
        check=True,
        timeout=600,
    )
    return python


def run_export_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``metaserver export ARGS`` as a user runs it, on ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    if backend := os.environ.get("METASERVER_SANDBOX__BACKEND"):
        env["METASERVER_SANDBOX__BACKEND"] = backend
    env["METASERVER_HOME"] = str(home)
    command = [str(Path(sys.executable).with_name("metaserver")), "export", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
