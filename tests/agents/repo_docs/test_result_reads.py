"""What a test reads of a result before it asserts a value (repo_docs/result_reads.py)."""

from __future__ import annotations

import ast

import pytest

from metaserver.agents.repo_docs.result_reads import peel


def _peeled(text: str) -> tuple[str, list[tuple[str, object]]]:
    inner, reads = peel(ast.parse(text, mode="eval").body)
    return ast.unparse(inner), [(r.op, r.keys or r.digits or r.via) for r in reads]


@pytest.mark.parametrize(
    ("text", "inner", "reads"),
    [
        ('round(stats.at[0, "chi2"], 3)', "stats", [("index", [0, "chi2"]), ("round", 3)]),
        ("aero[:3, :3]", "aero", [("index", [{"slice": [None, 3, None]}] * 2)]),
        ('len(sym["rotations"])', "sym", [("index", ["rotations"]), ("len", None)]),
        ("np.round(f(x), 2)", "f(x)", [("round", 2)]),
        ('pt.loc[0, "p"].round(3)', "pt", [("index", [0, "p"]), ("round", 3)]),
        ("r.shape", "r", [("shape", None)]),
        ("f(1).tolist()", "f(1)", []),
    ],
)
def test_reads_come_off_innermost_first(text: str, inner: str, reads: object) -> None:
    assert _peeled(text) == (inner, reads)


@pytest.mark.parametrize("text", ["r[i]", "round(r, n)", "r.mean()", "np.exp(r)", "f(x)"])
def test_what_is_no_read_stays(text: str) -> None:
    assert _peeled(text) == (text, [])
