"""The fetch stage with real components: the real git, real directories, real HTTP.

The package-index tests run against a small PEP 503/691 index served from ``tmp_path`` by a
real HTTP server on 127.0.0.1; only the tests marked ``integration`` reach pypi.org.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import logging
import os
import shutil
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fixture_repos import git

from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source
from metaserver.contracts import Source
from metaserver.exceptions import FetchError, SourceError
from metaserver.settings import IndexSettings, Settings, TimeoutSettings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

PYPROJECT = """\
[project]
name = "demo-pkg"
version = "{version}"
"""


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(home=tmp_path / "home", **overrides)


def dest_for(tmp_path: Path) -> Path:
    return tmp_path / "home" / "workspaces" / "ws"


@dataclass
class Origin:
    path: Path
    tagged: str  # first commit, tagged v0.1
    middle: str  # second commit: no tag, no branch tip
    main: str  # tip of main
    feature: str  # tip of branch "feature"

    @property
    def url(self) -> str:
        return f"file://{self.path}"


@pytest.fixture
def origin(tmp_path: Path) -> Origin:
    """A small repository: three commits on main, a tag, and a branch."""
    repo = tmp_path / "origin"
    (repo / "demo_pkg").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "pyproject.toml").write_text(PYPROJECT.format(version="0.1.0"))
    (repo / "demo_pkg" / "__init__.py").write_text("VERSION = '0.1.0'\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "first")
    git(repo, "tag", "v0.1")
    tagged = git(repo, "rev-parse", "HEAD")
    (repo / "demo_pkg" / "middle.py").write_text("X = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "second")
    middle = git(repo, "rev-parse", "HEAD")
    (repo / "pyproject.toml").write_text(PYPROJECT.format(version="0.3.0"))
    git(repo, "commit", "-q", "-am", "third")
    main = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "demo_pkg" / "feature.py").write_text("FEATURE = True\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "feature")
    feature = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    return Origin(repo, tagged, middle, main, feature)


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under root with its size and mtime (symlinks not followed)."""
    found: dict[str, tuple[int, int]] = {}
    for directory, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(directory) / name
            info = path.lstat()
            found[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return found


# ---------------------------------------------------------------------------------- git


async def test_clone_default_branch(tmp_path: Path, origin: Origin) -> None:
    before = snapshot(origin.path)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(origin.url), dest, make_settings(tmp_path))
    assert workspace.path == dest
    assert workspace.commit == origin.main
    assert workspace.distribution == "demo-pkg"
    assert workspace.version == "0.3.0"
    assert (dest / "demo_pkg" / "middle.py").is_file()
    assert not (dest / "demo_pkg" / "feature.py").exists()
    # Shallow: the clone holds one commit.
    assert git(dest, "rev-list", "--count", "HEAD") == "1"
    assert snapshot(origin.path) == before, "the original repository is untouched"
    assert git(origin.path, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("ref", "expected", "has_feature"),
    [
        ("feature", "feature", True),
        ("v0.1", "tagged", False),
        ("main", "main", False),
    ],
)
async def test_clone_branch_or_tag(
    tmp_path: Path, origin: Origin, ref: str, expected: str, has_feature: bool
) -> None:
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(origin.url, ref=ref), dest, make_settings(tmp_path))
    assert workspace.commit == getattr(origin, expected)
    assert workspace.source.ref == ref
    assert (dest / "demo_pkg" / "feature.py").exists() is has_feature


async def test_clone_full_commit_sha(tmp_path: Path, origin: Origin) -> None:
    dest = dest_for(tmp_path)
    source = parse_source(origin.url, ref=origin.middle)
    workspace = await fetch(source, dest, make_settings(tmp_path))
    assert workspace.commit == origin.middle
    assert git(dest, "rev-parse", "HEAD") == origin.middle
    assert (dest / "demo_pkg" / "middle.py").is_file()
    assert workspace.version == "0.1.0"  # pyproject at that commit


async def test_commit_sha_falls_back_to_full_clone_when_server_refuses(
    tmp_path: Path,
    origin: Origin,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Protocol v0 upload-pack refuses wants that are not ref tips (no allowReachableSHA1InWant).
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "protocol.version")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "0")
    dest = dest_for(tmp_path)
    with caplog.at_level(logging.INFO, logger="metaserver.agents.fetch"):
        workspace = await fetch(
            parse_source(origin.url, ref=origin.middle), dest, make_settings(tmp_path)
        )
    assert workspace.commit == origin.middle
    assert "cloning in full" in caplog.text


async def test_clone_abbreviated_commit(tmp_path: Path, origin: Origin) -> None:
    dest = dest_for(tmp_path)
    source = parse_source(origin.url, ref=origin.middle[:10])
    workspace = await fetch(source, dest, make_settings(tmp_path))
    assert workspace.commit == origin.middle


@pytest.mark.parametrize("ref", ["no-such-branch", "0" * 40, "abcdef1234"])
async def test_missing_ref_is_a_source_error(tmp_path: Path, origin: Origin, ref: str) -> None:
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="no branch, tag or commit"):
        await fetch(parse_source(origin.url, ref=ref), dest, make_settings(tmp_path))
    assert not dest.exists()
    assert not os.path.lexists(dest)


async def test_not_a_repository_is_a_fetch_error(tmp_path: Path) -> None:
    empty = tmp_path / "not-a-repo"
    empty.mkdir()
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError, match="does not appear to be a git repository") as caught:
        await fetch(parse_source(f"file://{empty}"), dest, make_settings(tmp_path))
    assert "\n" not in str(caught.value)
    assert "Traceback" not in str(caught.value)
    assert not dest.exists()


async def test_git_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An "ssh" that never answers stands in for a server that hangs.
    hang = tmp_path / "hanging-ssh"
    hang.write_text("#!/bin/sh\nexec sleep 60\n")
    hang.chmod(0o755)
    monkeypatch.setenv("GIT_SSH", str(hang))
    monkeypatch.delenv("GIT_SSH_COMMAND", raising=False)
    dest = dest_for(tmp_path)
    settings = make_settings(tmp_path, timeouts=TimeoutSettings(fetch=0.5))
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"timed out after 0\.5 s") as caught:
        await fetch(parse_source("ssh://git@example.invalid/repo.git"), dest, settings)
    assert time.monotonic() - started < 20
    assert caught.value.failure_type == "timeout"
    assert not dest.exists()


async def test_cancellation_waits_for_git_and_removes_dest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hang = tmp_path / "hanging-ssh"
    hang.write_text("#!/bin/sh\nexec sleep 60\n")
    hang.chmod(0o755)
    monkeypatch.setenv("GIT_SSH", str(hang))
    dest = dest_for(tmp_path)
    settings = make_settings(tmp_path, timeouts=TimeoutSettings(fetch=1.0))
    task = asyncio.ensure_future(
        fetch(parse_source("ssh://git@example.invalid/repo.git"), dest, settings)
    )
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not dest.exists()


async def test_credentials_never_reach_the_message(tmp_path: Path) -> None:
    # Port 9 (discard) on loopback: connection refused at once, no network needed.
    url = "https://user:s3cret-token@127.0.0.1:9/owner/repo.git"
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError) as caught:
        await fetch(parse_source(url), dest, make_settings(tmp_path))
    assert "s3cret-token" not in str(caught.value)
    assert "127.0.0.1" in str(caught.value)
    assert not dest.exists()


async def test_remote_helper_refused_even_without_parse_source(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    source = Source(kind="git", location=f"ext::sh -c touch% {marker}", original="x")
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="unsafe git URL"):
        await fetch(source, dest, make_settings(tmp_path))
    assert not marker.exists()
    assert not dest.exists()


async def test_repository_without_python_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "docs-only"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# nothing here\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "docs")
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="no Python package found in"):
        await fetch(parse_source(f"file://{repo}"), dest, make_settings(tmp_path))
    assert not dest.exists()


async def test_existing_destination_is_left_alone(tmp_path: Path, origin: Origin) -> None:
    dest = dest_for(tmp_path)
    dest.mkdir(parents=True)
    (dest / "keep").write_text("mine")
    with pytest.raises(FileExistsError):
        await fetch(parse_source(origin.url), dest, make_settings(tmp_path))
    assert (dest / "keep").read_text() == "mine"


# -------------------------------------------------------------------------------- local


def build_local_tree(root: Path, outside: Path) -> None:
    (root / "pkg" / "build").mkdir(parents=True)  # a subpackage called build: kept
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "build" / "__init__.py").write_text("")
    (root / "pkg" / "data.txt").write_text("data")
    (root / "setup.cfg").write_text("[metadata]\nname = local-demo\nversion = 1.2\n")
    for skipped in (".venv", "venv", "__pycache__", "node_modules", ".tox", ".mypy_cache"):
        (root / skipped).mkdir()
        (root / skipped / "junk.py").write_text("")
    for skipped in ("build", "dist"):
        (root / skipped).mkdir()
        (root / skipped / "artifact.py").write_text("")
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "x.pyc").write_bytes(b"")
    (root / "otherenv").mkdir()
    (root / "otherenv" / "pyvenv.cfg").write_text("home = /usr\n")
    outside.write_text("secret")
    (root / "pkg" / "inside-link.txt").symlink_to("data.txt")
    (root / "pkg" / "outside-link.txt").symlink_to(outside)
    (root / "pkg" / "relative-escape").symlink_to("../../outside.txt")
    (root / "pkg" / "dir-escape").symlink_to(outside.parent)


async def test_local_copy_skips_junk_and_escaping_links(tmp_path: Path) -> None:
    original = tmp_path / "src-tree"
    original.mkdir()
    build_local_tree(original, tmp_path / "outside.txt")
    before = snapshot(original)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(str(original)), dest, make_settings(tmp_path))

    assert workspace.commit is None
    assert workspace.distribution == "local-demo"
    assert workspace.version == "1.2"
    assert (dest / "pkg" / "__init__.py").is_file()
    assert (dest / "pkg" / "build" / "__init__.py").is_file()
    assert (dest / "setup.cfg").is_file()
    for skipped in (".venv", "venv", "__pycache__", "node_modules", ".tox", ".mypy_cache"):
        assert not (dest / skipped).exists(), skipped
    assert not (dest / "build").exists()
    assert not (dest / "dist").exists()
    assert not (dest / "otherenv").exists()
    assert not (dest / "pkg" / "__pycache__").exists()
    assert (dest / "pkg" / "inside-link.txt").is_symlink()
    assert (dest / "pkg" / "inside-link.txt").read_text() == "data"
    assert not os.path.lexists(dest / "pkg" / "outside-link.txt")
    assert not os.path.lexists(dest / "pkg" / "relative-escape")
    assert not os.path.lexists(dest / "pkg" / "dir-escape")  # never followed out of the tree
    assert snapshot(original) == before, "the original directory is untouched"


async def test_local_git_checkout_records_head(tmp_path: Path, origin: Origin) -> None:
    before = snapshot(origin.path)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source(str(origin.path)), dest, make_settings(tmp_path))
    assert workspace.source.kind == "local"
    assert workspace.commit == origin.main
    assert not (dest / ".git").exists()
    assert (dest / "demo_pkg" / "__init__.py").is_file()
    assert snapshot(origin.path) == before


async def test_local_destination_inside_the_source(tmp_path: Path) -> None:
    original = tmp_path / "project"
    original.mkdir()
    (original / "tool.py").write_text("def f(): ...\n")
    dest = original / "state" / "ws"
    workspace = await fetch(parse_source(str(original)), dest, make_settings(tmp_path))
    assert (workspace.path / "tool.py").is_file()
    assert not (workspace.path / "state" / "ws").exists()


async def test_local_directory_without_python_is_refused(tmp_path: Path) -> None:
    original = tmp_path / "notes"
    (original / "docs").mkdir(parents=True)
    (original / "README.md").write_text("# notes\n")
    (original / "docs" / "index.md").write_text("hi\n")
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="no Python package found in"):
        await fetch(parse_source(str(original)), dest, make_settings(tmp_path))
    assert not dest.exists()
    assert (original / "README.md").is_file()


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


# --------------------------------------------------------------------- a local package index


def sdist_bytes(name: str, version: str, members: dict[str, str] | None = None) -> bytes:
    """A .tar.gz with one top-level directory, as setuptools and hatch make them."""
    top = f"{name.replace('-', '_')}-{version}"
    module = name.replace("-", "_")
    members = members or {
        f"{top}/PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{top}/pyproject.toml": f'[project]\nname = "{name}"\nversion = "{version}"\n',
        f"{top}/{module}/__init__.py": f"__version__ = '{version}'\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def zip_bytes(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for member, text in members.items():
            zipped.writestr(member, text)
    return buffer.getvalue()


class Index:
    """A PEP 503 (HTML) / PEP 691 (JSON) index for one project, served from a directory."""

    def __init__(self, root: Path, base_url: str) -> None:
        self.root = root
        self.base_url = base_url
        self.files: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"{self.base_url}/simple"

    def add(
        self,
        filename: str,
        data: bytes,
        *,
        yanked: bool = False,
        requires_python: str | None = None,
        sha256: str | None = None,
    ) -> None:
        (self.root / "files").mkdir(parents=True, exist_ok=True)
        (self.root / "files" / filename).write_bytes(data)
        digest = sha256 or hashlib.sha256(data).hexdigest()
        self.files.append(
            {
                "filename": filename,
                "url": f"../../files/{filename}",
                "hashes": {"sha256": digest},
                "yanked": yanked,
                "requires-python": requires_python,
            }
        )

    def publish(self, project: str, *, json_too: bool) -> None:
        page = self.root / "simple" / project
        page.mkdir(parents=True, exist_ok=True)
        anchors = []
        for file in self.files:
            attrs = f'href="{file["url"]}#sha256={file["hashes"]["sha256"]}"'
            if file["yanked"]:
                attrs += ' data-yanked=""'
            if file["requires-python"]:
                attrs += f' data-requires-python="{file["requires-python"]}"'
            anchors.append(f"<a {attrs}>{file['filename']}</a><br/>")
        html = "<!DOCTYPE html><html><body>" + "\n".join(anchors) + "</body></html>"
        (page / "index.html").write_text(html)
        if json_too:
            body = {"meta": {"api-version": "1.0"}, "name": project, "files": self.files}
            (page / "index.json").write_text(json.dumps(body))


class IndexHandler(SimpleHTTPRequestHandler):
    """Serves index.json to clients that ask for PEP 691 JSON, index.html otherwise."""

    def send_head(self) -> Any:
        accept = self.headers.get("Accept", "")
        local = Path(self.translate_path(self.path))
        if self.path.endswith("/") and "json" in accept and (local / "index.json").is_file():
            data = (local / "index.json").read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return io.BytesIO(data)
        return super().send_head()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    root = tmp_path / "index"
    root.mkdir()

    def handler(*args: Any, **kwargs: Any) -> IndexHandler:
        return IndexHandler(*args, directory=str(root), **kwargs)

    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield Index(root, f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()


def index_settings(tmp_path: Path, index: Index) -> Settings:
    return make_settings(tmp_path, index=IndexSettings(url=index.url))


@pytest.mark.parametrize("json_too", [False, True], ids=["html", "json"])
async def test_index_newest_sdist_ignoring_yanked_prereleases_and_requires_python(
    tmp_path: Path, index: Index, json_too: bool
) -> None:
    index.add("demo_pkg-1.0.tar.gz", sdist_bytes("demo-pkg", "1.0"))
    index.add("demo-pkg-1.1.tar.gz", sdist_bytes("demo-pkg", "1.1"), requires_python=">=9")
    index.add("demo_pkg-1.2-py3-none-any.whl", b"wheel only")
    index.add("demo_pkg-2.0.tar.gz", sdist_bytes("demo-pkg", "2.0"), yanked=True)
    index.add("demo_pkg-3.0rc1.tar.gz", sdist_bytes("demo-pkg", "3.0rc1"))
    index.publish("demo-pkg", json_too=json_too)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source("pypi:Demo_Pkg"), dest, index_settings(tmp_path, index))
    assert workspace.version == "1.1"
    assert workspace.distribution == "demo-pkg"
    assert workspace.commit is None
    assert (dest / "demo_pkg" / "__init__.py").read_text() == "__version__ = '1.1'\n"
    assert (dest / "PKG-INFO").is_file(), "the single top-level directory is stripped"


async def test_index_pins(tmp_path: Path, index: Index, caplog: pytest.LogCaptureFixture) -> None:
    index.add("demo_pkg-1.0.tar.gz", sdist_bytes("demo-pkg", "1.0"))
    index.add("demo_pkg-1.2-py3-none-any.whl", b"wheel only")
    index.add("demo_pkg-2.0.tar.gz", sdist_bytes("demo-pkg", "2.0"), yanked=True)
    index.publish("demo-pkg", json_too=False)
    settings = index_settings(tmp_path, index)

    workspace = await fetch(parse_source("pypi:demo-pkg==1.0.0"), tmp_path / "a", settings)
    assert workspace.version == "1.0"

    with caplog.at_level(logging.WARNING, logger="metaserver.agents.fetch"):
        workspace = await fetch(parse_source("pypi:demo-pkg==2.0"), tmp_path / "b", settings)
    assert workspace.version == "2.0"
    assert "yanked" in caplog.text

    # 1.2 has only a wheel, so that is taken (and this one is not a zip file).
    with pytest.raises(FetchError, match=r"could not unpack demo_pkg-1\.2-py3-none-any\.whl"):
        await fetch(parse_source("pypi:demo-pkg==1.2"), tmp_path / "c", settings)
    with pytest.raises(SourceError, match=r"has no version 9\.9"):
        await fetch(parse_source("pypi:demo-pkg==9.9"), tmp_path / "d", settings)
    assert not (tmp_path / "c").exists()
    assert not (tmp_path / "d").exists()


async def test_index_only_wheels_gives_the_wheel_tree(tmp_path: Path, index: Index) -> None:
    # A release published only as wheels: the wheel holds the package's source too.
    wheel = io.BytesIO()
    with zipfile.ZipFile(wheel, "w") as zipped:
        zipped.writestr("demo_pkg/__init__.py", "X = 1\n")
        zipped.writestr("demo_pkg-1.2.dist-info/METADATA", "Name: demo-pkg\nVersion: 1.2\n")
    index.add("demo_pkg-1.2-py3-none-any.whl", wheel.getvalue())
    index.publish("demo-pkg", json_too=True)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source("pypi:demo-pkg"), dest, index_settings(tmp_path, index))
    assert (workspace.distribution, workspace.version) == ("demo-pkg", "1.2")
    assert (dest / "demo_pkg" / "__init__.py").is_file()


async def test_index_unknown_package(tmp_path: Path, index: Index) -> None:
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="unknown package on the index: nothing-here"):
        await fetch(parse_source("pypi:nothing-here"), dest, index_settings(tmp_path, index))
    assert not dest.exists()


async def test_index_hash_mismatch(tmp_path: Path, index: Index) -> None:
    index.add("demo_pkg-1.0.tar.gz", sdist_bytes("demo-pkg", "1.0"), sha256="0" * 64)
    index.publish("demo-pkg", json_too=True)
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError, match="does not match the index"):
        await fetch(parse_source("pypi:demo-pkg"), dest, index_settings(tmp_path, index))
    assert not dest.exists()
    assert list(dest.parent.iterdir()) == [], "no download left behind"


async def test_index_tar_with_path_traversal(tmp_path: Path, index: Index) -> None:
    evil = sdist_bytes(
        "demo-pkg",
        "1.0",
        {"demo_pkg-1.0/setup.py": "", "demo_pkg-1.0/../../../evil.py": "boom"},
    )
    index.add("demo_pkg-1.0.tar.gz", evil)
    index.publish("demo-pkg", json_too=False)
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError, match="unsafe member"):
        await fetch(parse_source("pypi:demo-pkg"), dest, index_settings(tmp_path, index))
    assert not dest.exists()
    assert not list(tmp_path.rglob("evil.py"))


@pytest.mark.parametrize("member", ["../evil.py", "/abs/evil.py", "a\\..\\..\\evil.py"])
async def test_index_zip_with_unsafe_member(tmp_path: Path, index: Index, member: str) -> None:
    index.add("demo_pkg-1.0.zip", zip_bytes({"demo_pkg-1.0/setup.py": "", member: "boom"}))
    index.publish("demo-pkg", json_too=False)
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError, match="unsafe member"):
        await fetch(parse_source("pypi:demo-pkg"), dest, index_settings(tmp_path, index))
    assert not dest.exists()


async def test_index_zip_sdist(tmp_path: Path, index: Index) -> None:
    members = {
        "demo_pkg-1.0/setup.py": "from setuptools import setup\nsetup(name='demo-pkg')\n",
        "demo_pkg-1.0/demo_pkg/__init__.py": "",
    }
    index.add("demo_pkg-1.0.zip", zip_bytes(members))
    index.publish("demo-pkg", json_too=True)
    dest = dest_for(tmp_path)
    workspace = await fetch(parse_source("pypi:demo-pkg"), dest, index_settings(tmp_path, index))
    assert workspace.version == "1.0"
    assert workspace.distribution == "demo-pkg"
    assert (dest / "demo_pkg" / "__init__.py").is_file()


async def test_index_sdist_without_python(tmp_path: Path, index: Index) -> None:
    index.add("demo_pkg-1.0.tar.gz", sdist_bytes("demo-pkg", "1.0", {"demo_pkg-1.0/README": ""}))
    index.publish("demo-pkg", json_too=True)
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="no Python package found in pypi:demo-pkg"):
        await fetch(parse_source("pypi:demo-pkg"), dest, index_settings(tmp_path, index))
    assert not dest.exists()


async def test_index_unreachable(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, index=IndexSettings(url="http://127.0.0.1:9/simple"))
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError, match="could not download demo-pkg"):
        await fetch(parse_source("pypi:demo-pkg"), dest, settings)
    assert not dest.exists()


async def test_offline_mode_refuses_pypi(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, index=IndexSettings(offline=True))
    dest = dest_for(tmp_path)
    with pytest.raises(FetchError, match=r"^offline mode: "):
        await fetch(parse_source("pypi:more-itertools"), dest, settings)
    assert not dest.exists()


# ------------------------------------------------------------------------------- pypi.org


@pytest.mark.integration
async def test_pypi_more_itertools(tmp_path: Path) -> None:
    dest = dest_for(tmp_path)
    workspace = await fetch(
        parse_source("pypi:more-itertools==11.2.1"), dest, make_settings(tmp_path)
    )
    assert workspace.version == "11.2.1"
    assert workspace.distribution == "more-itertools"
    assert workspace.commit is None
    assert (dest / "more_itertools" / "__init__.py").is_file()


@pytest.mark.integration
async def test_pypi_unknown_package(tmp_path: Path) -> None:
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="unknown package on the index"):
        await fetch(
            parse_source("pypi:metaserver-no-such-package-xyz"), dest, make_settings(tmp_path)
        )
    assert not dest.exists()
