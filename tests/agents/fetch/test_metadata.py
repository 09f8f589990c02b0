"""Reading a fetched tree's metadata (agents/fetch/metadata.py) without running its code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fetch_helpers import dest_for, make_settings

from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.mark.parametrize(
    ("files", "distribution", "version"),
    [
        (
            {"PKG-INFO": "Metadata-Version: 2.1\nName: from-pkg-info\nVersion: 3.0\n", "m.py": ""},
            "from-pkg-info",
            "3.0",
        ),
        (
            {"setup.py": "from setuptools import setup\nsetup(name='from-setup-py')\n"},
            "from-setup-py",
            None,
        ),
        (
            {
                "setup.py": (
                    "from setuptools import Extension, setup\n"
                    "ext = Extension(name='pkg._speedups', sources=[])\n"
                    'setup(\n    name="real-name",\n    ext_modules=[ext],\n)\n'
                )
            },
            "real-name",
            None,
        ),
        (
            # The name bound to a module-level constant first (the text search misses it).
            {
                "setup.py": (
                    "from setuptools import setup\n"
                    'NAME = "by-constant"\n'
                    'AUTHOR, EMAIL = "A", "a@example.org"\n'
                    "exec(open('pkg/version.py').read())\n"
                    "setup(name=NAME, version=__version__, author=AUTHOR)\n"
                )
            },
            "by-constant",
            None,
        ),
        ({"pyproject.toml": '[tool.poetry]\nname = "poetic"\nversion = "0.5"\n'}, "poetic", "0.5"),
        ({"pyproject.toml": '[project]\nname = "dyn"\ndynamic = ["version"]\n'}, "dyn", None),
        ({"pyproject.toml": "this is [not toml"}, None, None),
        ({"setup.cfg": "[metadata]\nname = cfg\nversion = attr: cfg.__version__\n"}, "cfg", None),
        ({"src/srcpkg/__init__.py": ""}, None, None),
        ({"script.py": "print('hi')\n"}, None, None),
    ],
)
async def test_metadata_is_read_without_running_code(
    tmp_path: Path, files: dict[str, str], distribution: str | None, version: str | None
) -> None:
    original = tmp_path / "project"
    for relative, text in files.items():
        path = original / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(str(original)), dest, make_settings(tmp_path))
    assert workspace.distribution == distribution
    assert workspace.version == version
