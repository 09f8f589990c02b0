"""Which repository file a tutorial's reading call names, and where it lies (data_names)."""

from __future__ import annotations

import ast
from pathlib import Path

from metaserver.agents.analysis.data_names import (
    folder_literals,
    read_names,
    repository_file,
    string_names,
)


def call(source: str) -> ast.Call:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
    return node.value


def test_a_loader_that_names_its_folder_reads_the_file_inside_it() -> None:
    assert read_names(call("load('freqs.npy', folder='data')")) == ["freqs.npy", "data/freqs.npy"]
    assert read_names(call("load('x.csv', 'in/put/')")) == ["x.csv", "in/put/x.csv"]
    assert read_names(call("open('a/b.txt')")) == ["a/b.txt"]
    # Not a file: no name; a mode, a file name or a sentence beside it is no folder.
    assert read_names(call("load('results')")) == []
    assert folder_literals(call("open('a.txt', 'r', encoding='utf-8')")) == ["r", "utf-8"]
    assert folder_literals(call("load('a.txt', 'b.csv', '/abs', 'two words')")) == []


def test_the_file_is_found_beside_the_tutorial_else_in_a_folder_above(tmp_path: Path) -> None:
    (tmp_path / "tutorials" / "deep").mkdir(parents=True)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "freqs.npy").write_bytes(b"top")
    here = tmp_path / "tutorials" / "deep"
    assert repository_file("data/freqs.npy", here, tmp_path) == "data/freqs.npy"
    (tmp_path / "tutorials" / "data").mkdir()
    (tmp_path / "tutorials" / "data" / "freqs.npy").write_bytes(b"nearer")
    assert repository_file("data/freqs.npy", here, tmp_path) == "tutorials/data/freqs.npy"
    (here / "freqs.npy").write_bytes(b"beside")
    assert repository_file("freqs.npy", here, tmp_path) == "tutorials/deep/freqs.npy"
    assert repository_file("missing.npy", here, tmp_path) is None
    # Never outside the repository, however far the name climbs.
    (tmp_path.parent / "outside.txt").write_text("x")
    assert repository_file("../../../outside.txt", here, tmp_path) is None


def test_a_path_built_of_literals_and_names_set_to_them_is_read() -> None:
    cells = [
        ast.parse("filename = 'files/a.s3p'\ndirectory = 'cal/'\nfolder = 'in'"),
        ast.parse("folder = make()"),  # no longer a string known here
    ]
    known = string_names(cells)
    assert known == {"filename": "files/a.s3p", "directory": "cal/"}
    assert read_names(call("Network(filename)"), known) == ["files/a.s3p"]
    assert read_names(call("Network(directory + 'dut.s4p')"), known) == ["cal/dut.s4p"]
    assert read_names(call("read(os.path.join(directory, 'x', 'y.csv'))"), known) == ["cal/x/y.csv"]
    # What is not built of known strings names nothing.
    assert read_names(call("Network(folder + 'x.s2p')"), known) == []
    assert read_names(call("Network(', '.join(['a.s2p']))"), known) == []
