"""Files as arguments (runtime.file_args, codec ``file``): a work:// path, content, bytes."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

import pytest

from metaserver.runtime.decode import CodecError, decode, set_work_dir
from metaserver.runtime.file_args import MAX_UPLOAD_BYTES, file_argument
from metaserver.runtime.handles import HandleTable


def test_content_is_written_once_under_uploads_with_its_extension(tmp_path: Path) -> None:
    first = file_argument({"content": "a,b\n1,2\n", "name": "table.csv"}, tmp_path)
    again = file_argument({"content": "a,b\n1,2\n", "name": "table.csv"}, tmp_path)
    assert first == again and first.startswith("uploads/") and first.endswith("-table.csv")
    assert (tmp_path / first).read_text() == "a,b\n1,2\n"
    raw = file_argument({"base64": base64.b64encode(b"\x89PNG").decode()}, tmp_path)
    assert (tmp_path / raw).read_bytes() == b"\x89PNG"


def test_a_name_cannot_leave_uploads(tmp_path: Path) -> None:
    relative = file_argument({"content": "x", "name": "../../.bashrc"}, tmp_path)
    assert relative.startswith("uploads/") and "/" not in relative[len("uploads/") :]
    assert (tmp_path / relative).is_file()


def test_work_paths_with_or_without_the_server_name(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "run.log").write_text("ok")
    assert file_argument("work://data/run.log", tmp_path) == "data/run.log"
    assert file_argument("work://myserver/data/run.log", tmp_path) == "data/run.log"
    assert file_argument("data/run.log", tmp_path) == "data/run.log"


def test_refused_forms(tmp_path: Path) -> None:
    for value in [3, {"content": 3}, {"base64": "not base64!"}, {"other": "x"}]:
        with pytest.raises(ValueError):
            file_argument(value, tmp_path)
    with pytest.raises(ValueError, match="at most"):
        file_argument({"content": "x" * (MAX_UPLOAD_BYTES + 1)}, tmp_path)


def test_the_codec_confines_paths_to_the_work_directory(tmp_path: Path) -> None:
    set_work_dir(tmp_path)
    handles = HandleTable()
    written = decode({"content": "hello"}, "file", handles)
    assert isinstance(written, str) and Path(tmp_path, written).read_text() == "hello"
    for outside in ["/etc/passwd", "work://../../etc/passwd", "../x"]:
        with pytest.raises(CodecError, match="outside"):
            decode(outside, "file", handles)


def test_a_list_where_the_name_said_path_passes_as_it_is(tmp_path: Path) -> None:
    set_work_dir(tmp_path)
    assert decode([1, 2, 3], "file", HandleTable()) == [1, 2, 3]


def test_a_data_file_the_environment_ships_is_read_where_it_lies(tmp_path: Path) -> None:
    # What a library's own ``get_testdata_file(...)`` returns, passed on to its reader.
    set_work_dir(tmp_path)
    handles = HandleTable()
    shipped = Path(sys.modules["pytest"].__file__ or "").resolve()
    assert Path(sys.prefix).resolve() in shipped.parents  # the test runs in an environment
    assert decode(str(shipped), "file", handles) == str(shipped)
    for outside in [
        str(Path(sys.prefix).resolve()),  # the environment itself: not a file
        str(Path(sys.prefix) / "no-such-file.txt"),
        str(Path(sys.prefix) / ".." / ".." / "etc" / "passwd"),
    ]:
        with pytest.raises(CodecError, match="outside"):
            decode(outside, "file", handles)


def test_a_shipped_file_this_process_may_write_is_no_path(tmp_path: Path) -> None:
    # ...unless nothing can write it, as in the sandbox, which mounts the environment
    # read-only (tests/agents/validate/test_shipped_data_pipeline.py converts a reader of
    # its package's data so); here the environment is ours to write.
    set_work_dir(tmp_path)
    shipped = Path(sys.modules["pytest"].__file__ or "").resolve()
    assert os.access(shipped, os.W_OK)
    with pytest.raises(CodecError, match="outside"):
        decode(str(shipped), "path", HandleTable())
