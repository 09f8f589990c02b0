"""Files under the work directory as resources: confined reads and the result budget."""

from __future__ import annotations

import base64
import importlib
from pathlib import Path

import pytest

from metaserver.runtime.files import WorkFileError, read_work_file, work_uri, written_resources


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "work"
    (root / "run").mkdir(parents=True)
    (root / "run" / "table.csv").write_text("a,b\n1,2\n")
    (root / "run" / "blob.bin").write_bytes(bytes(range(256)))
    (tmp_path / "secret.txt").write_text("no")
    (root / "run" / "escape.txt").symlink_to(tmp_path / "secret.txt")
    monkeypatch.setattr(
        importlib.import_module("metaserver.runtime.decode"), "_WORK_DIR", [root.resolve()]
    )  # no global left set
    return root


def test_a_file_in_work_is_read_with_its_type(work: Path) -> None:
    assert read_work_file("run/table.csv") == (b"a,b\n1,2\n", "text/csv")
    assert read_work_file("run%2Ftable.csv")[0] == b"a,b\n1,2\n"


@pytest.mark.parametrize(
    "path", ["../secret.txt", "run/../../secret.txt", "/etc/passwd", "run/escape.txt", "run", ""]
)
def test_paths_outside_work_or_not_files_are_refused(work: Path, path: str) -> None:
    with pytest.raises(WorkFileError):
        read_work_file(path)


def test_written_files_are_embedded_while_the_budget_lasts(work: Path) -> None:
    files = [{"path": "run/table.csv"}, {"path": "run/blob.bin"}, {"path": "run/gone.txt"}]
    embedded = written_resources("srv", files, 10_000)
    assert embedded == [
        {"uri": "work://srv/run/table.csv", "mime_type": "text/csv", "text": "a,b\n1,2\n"},
        {
            "uri": "work://srv/run/blob.bin",
            "mime_type": "application/octet-stream",
            "blob": base64.b64encode(bytes(range(256))).decode(),
        },
    ]
    # Past the budget a file is a link, with its size, to read later.
    linked = written_resources("srv", files, 20)
    assert linked[1] == {
        "uri": "work://srv/run/blob.bin",
        "mime_type": "application/octet-stream",
        "name": "blob.bin",
        "size": 256,
    }


def test_uris_quote_what_a_uri_cannot_hold() -> None:
    assert work_uri("srv", "run/a b#.csv") == "work://srv/run/a%20b%23.csv"
