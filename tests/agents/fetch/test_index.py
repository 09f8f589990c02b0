"""Package-index sources (agents/fetch/index.py, archives.py): a small PEP 503/691 index served
from ``tmp_path`` by a real HTTP server on 127.0.0.1; only the tests marked ``integration``
reach pypi.org."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import shutil
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fetch_helpers import dest_for, make_settings

from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source
from metaserver.exceptions import FetchError, SourceError
from metaserver.settings import IndexSettings, Settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


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
    with pytest.raises(SourceError, match="unsafe member"):
        await fetch(parse_source("pypi:demo-pkg"), dest, index_settings(tmp_path, index))
    assert not dest.exists()
    assert not list(tmp_path.rglob("evil.py"))


@pytest.mark.parametrize("member", ["../evil.py", "/abs/evil.py", "a\\..\\..\\evil.py"])
async def test_index_zip_with_unsafe_member(tmp_path: Path, index: Index, member: str) -> None:
    index.add("demo_pkg-1.0.zip", zip_bytes({"demo_pkg-1.0/setup.py": "", member: "boom"}))
    index.publish("demo-pkg", json_too=False)
    dest = dest_for(tmp_path)
    with pytest.raises(SourceError, match="unsafe member"):
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
