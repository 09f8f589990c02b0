"""Which registered versions can be exported, and what a version without a commit says."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_children import fake_record

from metaserver.exceptions import NotFoundError, UserError
from metaserver.export.origin import load_origin, require_commit
from metaserver.registry.records import Endpoint
from metaserver.registry.store import Registry
from metaserver.settings import Settings


def _register(settings: Settings, name: str, **changes: object) -> None:
    record = fake_record(settings, name, "v1").model_copy(update=changes)
    Registry(settings.registry_path).register(record)


def test_a_converted_version_with_its_files_is_loaded(settings: Settings, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    _register(settings, "calc", workspace=tree)
    (settings.servers_dir / "calc-v1" / "tools.json").write_text('{"tools": []}')
    origin = load_origin(settings, "calc@v1")
    assert (origin.tree, origin.commit, origin.specs) == (tree, "0" * 40, [])
    assert require_commit(origin, "a patch") == "0" * 40


def test_what_cannot_be_exported_says_why(settings: Settings, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        load_origin(settings, "nobody")
    _register(settings, "added", kind="added", endpoint=Endpoint(transport="stdio"))
    with pytest.raises(UserError, match="an added server: metaserver generated nothing"):
        load_origin(settings, "added")
    _register(settings, "gone", workspace=tmp_path / "deleted")
    with pytest.raises(UserError, match="source tree it was converted from is gone"):
        load_origin(settings, "gone")
    tree = tmp_path / "tree"
    tree.mkdir()
    _register(settings, "nofiles", workspace=tree)  # no tools.json beside its server.py
    with pytest.raises(UserError, match="generated server's files are gone"):
        load_origin(settings, "nofiles")
    _register(settings, "sdist", workspace=tree, commit=None, source="pypi:sdist==1.0")
    (settings.servers_dir / "sdist-v1" / "tools.json").write_text('{"tools": []}')
    with pytest.raises(UserError, match=r"'pypi:sdist==1.0', which is not a git repository.*--dir"):
        require_commit(load_origin(settings, "sdist"), "a patch")
