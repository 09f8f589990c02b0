"""A test's reads applied to a tool's JSON answer (validate/result_reads.py)."""

from __future__ import annotations

from metaserver.agents.validate.result_reads import read_result
from metaserver.contracts import JSON, ResultRead

RECORDS: JSON = [{"F": 6.7912, "p": 0.004}, {"F": None, "p": None}]
LABELLED: JSON = {"columns": ["T", "dof"], "index": ["T_test"], "data": [[5.175494, 5.0]]}


def _index(*keys: JSON, via: str | None = None) -> ResultRead:
    return ResultRead.model_validate({"op": "index", "keys": list(keys), "via": via})


def test_a_frames_cell_by_label_then_rounded() -> None:
    rounded = ResultRead(op="round", digits=3)
    assert read_result(RECORDS, [_index(0, "F", via="loc"), rounded]) == (True, 6.791)
    assert read_result(LABELLED, [_index("T_test", "T", via="loc")]) == (True, 5.175494)
    assert read_result(LABELLED, [_index(0, 1, via="iloc")]) == (True, 5.0)
    assert read_result(RECORDS, [_index("p")]) == (True, [0.004, None])


def test_arrays_are_sliced_per_dimension() -> None:
    grid: JSON = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    part = {"slice": [None, 2, None]}
    assert read_result(grid, [_index(part, part)]) == (True, [[1, 2], [4, 5]])
    assert read_result(grid, [ResultRead(op="shape")]) == (True, [3, 3])
    assert read_result(grid, [ResultRead(op="len")]) == (True, 3)
    # An array too large to answer whole: its truncation notice still gives its shape.
    notice: JSON = {"truncated": True, "bytes": 3414813, "preview": "[[[0.0", "shape": [128, 96]}
    assert read_result(notice, [ResultRead(op="shape")]) == (True, [128, 96])
    assert read_result({**notice, "shape": None}, [ResultRead(op="shape")]) == (False, None)


def test_an_index_of_an_array_too_large_to_answer_is_read_from_its_notices_head() -> None:
    image = [[row * 1000 + column for column in range(512)] for row in range(512)]
    notice: JSON = {"truncated": True, "bytes": 10**6, "preview": "[[0,", "shape": [512, 512]}
    notice["head"] = [row[:16] for row in image[:16]]
    corner = {"slice": [None, 3, None]}
    assert read_result(notice, [_index(corner, corner)]) == (True, [r[:3] for r in image[:3]])
    assert read_result(notice, [_index(2, 15)]) == (True, 2015)
    every_other = {"slice": [0, 8, 2]}
    assert read_result(notice, [_index(every_other, 1)]) == (True, [1, 2001, 4001, 6001])
    # What lies past the block is not read: a later row, the last one, a whole row.
    assert read_result(notice, [_index(16, 0)]) == (False, None)
    assert read_result(notice, [_index(-1, 0)]) == (False, None)
    assert read_result(notice, [_index(0)]) == (False, None)
    assert read_result(notice, [_index({"slice": [None, None, None]}, 0)]) == (False, None)
    assert read_result({**notice, "head": None}, [_index(0, 0)]) == (False, None)
    # A vector the block holds whole along its one axis: an item from either end.
    short: JSON = {"truncated": True, "bytes": 9000, "preview": "", "shape": [3, 600]}
    short["head"] = [[1, 2], [3, 4], [5, 6]]
    assert read_result(short, [_index(-1, 1)]) == (True, 6)


def test_a_byte_strings_length_is_its_bytes_told_whole_or_by_its_notice() -> None:
    length = [ResultRead(op="len")]
    assert read_result({"base64": "AAECAwQ="}, length) == (True, 5)
    assert read_result({"base64": ""}, length) == (True, 0)
    notice: JSON = {"truncated": True, "bytes": 43694, "preview": '{"base64":', "length": 32768}
    assert read_result(notice, length) == (True, 32768)
    assert read_result({**notice, "length": None}, length) == (False, None)


def test_an_answer_without_that_value_was_not_read() -> None:
    handle: JSON = {"handle": "h1", "type": "X", "repr": "X()"}
    assert read_result(handle, [_index(0)]) == (False, None)
    assert read_result(RECORDS, [_index(5, "F", via="loc")]) == (False, None)
    assert read_result([[1], [2, 3]], [ResultRead(op="shape")]) == (False, None)
