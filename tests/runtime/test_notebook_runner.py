"""The runtime side of notebook tools: code cells run in a fresh process, outputs by cell."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from png_images import png, stripes

from metaserver.runtime.decode import set_work_dir, work_dir
from metaserver.runtime.notebook_runner import MAX_ITEMS, json_safe
from metaserver.runtime.notebooks import KEEP_RUNS, NotebookError, data_location, run_notebook
from metaserver.runtime.phash import png_hash

# What the runner asks of matplotlib.pyplot, and nothing more: the open figures, each saved
# as PNG, then all closed. Installed by the notebook itself (the runner runs with -I).
FAKE_PYPLOT = """\
import base64, sys, types
pyplot = types.ModuleType("matplotlib.pyplot")
opened = [1, 2]
class Figure:
    def savefig(self, path, format, bbox_inches):
        with open(path, "wb") as handle:
            handle.write(base64.b64decode({data!r}))
pyplot.get_fignums = lambda: list(opened)
pyplot.figure = lambda number: Figure()
pyplot.close = lambda which: opened.clear()
sys.modules["matplotlib.pyplot"] = pyplot
"""

NOTEBOOK = {
    "path": "tutorials/squares.ipynb",
    "parameters_cell": 0,
    "cells": [
        {"cell": 1, "source": "n = 3\nword = 'hi'"},
        {"cell": 2, "source": "squares = [i * i for i in range(n)]\nprint(word, n)\nsquares"},
        {"cell": 4, "source": "import os\nos.makedirs('out', exist_ok=True)\n"
         "with open('out/w.txt', 'w') as f:\n    f.write(word * n)\nlen(squares);"},
        {"cell": 5, "source": "class Thing:\n    pass\nThing()"},
        {"cell": 6, "source": "display(n, 'x')"},
    ],
}  # fmt: skip


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    previous = work_dir()
    set_work_dir(tmp_path / "work")
    yield tmp_path / "work"
    set_work_dir(previous)


@pytest.mark.integration
def test_cells_run_with_the_parameters_bound_after_their_cell(work: Path) -> None:
    result = run_notebook(NOTEBOOK, {"n": 4})
    cells = {c["cell"]: c for c in result["cells"]}
    assert cells[1] == {"cell": 1, "value": None, "text": None, "stdout": "", "figures": []}
    assert cells[2]["value"] == [0, 1, 4, 9] and cells[2]["text"] == "[0, 1, 4, 9]"
    assert cells[2]["stdout"] == "hi 4\n"
    assert cells[4]["value"] is None  # a trailing semicolon hides the value, as in Jupyter
    assert cells[5]["text"].startswith("<__main__.Thing object at 0x")
    assert cells[5]["value"] == cells[5]["text"]  # no JSON form: the repr
    assert cells[6]["displayed"] == ["4", "'x'"]  # IPython's display() as a builtin
    assert "displayed" not in cells[5]
    (written,) = result["files"]
    assert written["path"].startswith("notebooks/squares-") and written["bytes"] == 8
    assert written["path"].endswith("/out/w.txt")
    assert (work / written["path"]).read_text() == "hihihihi"
    assert result["notebook"] == "tutorials/squares.ipynb" and result["figures"] == []


@pytest.mark.integration
def test_a_display_hook_the_notebook_installs_gives_the_text(work: Path) -> None:
    # As sympy.init_printing() does outside IPython: a hook that prints the value its way,
    # choosing by the stream's encoding (a kernel's stream says UTF-8).
    hooked = dict(
        NOTEBOOK,
        cells=[
            {"cell": 0, "source": "import sys\nsys.stdout.encoding"},
            {"cell": 1, "source": "import sys\n"
             "sys.displayhook = lambda v: print('\u27e8' + str(v) + '\u27e9')"},
            {"cell": 2, "source": "[6 * 7]"},
            {"cell": 3, "source": "display(5)"},
            {"cell": 4, "source": "sys.displayhook = lambda v: None\n'quiet'"},
        ],
    )  # fmt: skip
    cells = {c["cell"]: c for c in run_notebook(hooked, {})["cells"]}
    assert cells[0]["text"] == "'utf-8'"  # before any hook: the repr
    assert cells[2]["value"] == [42] and cells[2]["text"] == "\u27e8[42]\u27e9"
    assert cells[3]["displayed"] == ["\u27e85\u27e9"]
    assert cells[4]["text"] == "'quiet'"  # a hook that prints nothing: the repr


@pytest.mark.integration
def test_parameters_bound_after_a_cells_leading_assignments_reach_the_rest_of_it(
    work: Path,
) -> None:
    leading = dict(
        NOTEBOOK,
        parameters_cell=0,
        parameters_after=2,
        cells=[
            {"cell": 0, "source": "n = 3\nword = 'hi'\nsquares = [i * i for i in range(n)]"},
            {"cell": 1, "source": "print(word)\nsquares"},
        ],
    )
    cells = {c["cell"]: c for c in run_notebook(leading, {"n": 5, "word": "yo"})["cells"]}
    assert cells[1]["value"] == [0, 1, 4, 9, 16] and cells[1]["stdout"] == "yo\n"
    defaults = {c["cell"]: c for c in run_notebook(leading, {})["cells"]}
    assert defaults[1]["value"] == [0, 1, 4]


@pytest.mark.integration
def test_a_failing_cell_names_itself(work: Path) -> None:
    broken = dict(NOTEBOOK, cells=[*NOTEBOOK["cells"], {"cell": 7, "source": "1 / 0"}])
    with pytest.raises(NotebookError, match="cell 7 raised ZeroDivisionError: division by zero"):
        run_notebook(broken, {})


@pytest.mark.integration
def test_timeout_ends_the_run(work: Path) -> None:
    slow = dict(NOTEBOOK, cells=[{"cell": 0, "source": "import time\ntime.sleep(30)"}])
    with pytest.raises(NotebookError, match="timed out after 1 s"):
        run_notebook(slow, {}, timeout=1)


@pytest.mark.integration
def test_old_runs_are_pruned(work: Path) -> None:
    quick = dict(NOTEBOOK, cells=[{"cell": 0, "source": "1"}])
    for _ in range(KEEP_RUNS + 2):
        run_notebook(quick, {})
    assert len([p for p in (work / "notebooks").iterdir()]) == KEEP_RUNS


@pytest.mark.integration
def test_figures_are_saved_hashed_and_closed_after_their_cell(work: Path) -> None:
    image = png(40, 30, stripes)
    source = FAKE_PYPLOT.format(data=base64.b64encode(image).decode())
    drawn = dict(NOTEBOOK, cells=[{"cell": 0, "source": source}, {"cell": 1, "source": "2"}])
    result = run_notebook(drawn, {})
    assert [f["cell"] for f in result["figures"]] == [0, 0]
    assert {f["hash"] for f in result["figures"]} == {png_hash(image)}
    assert result["cells"][0]["figures"] == ["cell0-figure1.png", "cell0-figure2.png"]
    assert result["cells"][1]["figures"] == []  # closed after the cell that drew them
    assert (work / result["figures"][0]["path"]).read_bytes() == image
    assert result["files"] == []  # figures are not among the files the notebook wrote


@pytest.mark.integration
def test_data_files_are_copied_in_read_only_and_not_reported(work: Path, tmp_path: Path) -> None:
    (tmp_path / "data" / "in").mkdir(parents=True)
    (tmp_path / "data" / "in" / "a.txt").write_text("7")
    (tmp_path / "data" / "b.txt").write_text("b")
    reader = {
        "path": "docs/reader.ipynb",
        "data": ["in/a.txt", "b.txt"],
        "cells": [
            {"cell": 0, "source": "int(open('in/a.txt').read()) * 6"},
            {"cell": 1, "source": "open('c.txt', 'w').write(open('b.txt').read())"},
        ],
    }
    result = run_notebook(reader, {}, data=tmp_path / "data")
    assert result["cells"][0]["value"] == 42
    (written,) = result["files"]
    assert written["path"].rpartition("/")[2] == "c.txt"
    run_dir = work / written["path"].rpartition("/")[0]
    assert (run_dir / "b.txt").stat().st_mode & 0o222 == 0  # the repository's file, read-only


@pytest.mark.integration
def test_data_above_the_notebook_is_found_where_it_lies(work: Path, tmp_path: Path) -> None:
    # The notebook lies in docs/tutorials/ and reads ../data/x.csv (docs/data/x.csv): its
    # server keeps that file as tutorials/../data/x.csv, i.e. data/x.csv.
    (tmp_path / "kept" / "data").mkdir(parents=True)
    (tmp_path / "kept" / "data" / "x.csv").write_text("a\n5\n")
    reader = {
        "path": "docs/tutorials/reader.ipynb",
        "data": ["../data/x.csv"],
        "workdir": "tutorials",
        "cells": [{"cell": 0, "source": "open('../data/x.csv').read().split()[-1]"}],
    }
    result = run_notebook(reader, {}, data=tmp_path / "kept")
    assert result["cells"][0]["value"] == "5"
    assert result["files"] == []


def test_data_locations_stay_inside_the_run() -> None:
    assert data_location("../data/x.csv", "tutorials") == "data/x.csv"
    assert data_location("in/a.txt", "") == "in/a.txt"
    assert data_location("../x.csv", "") is None
    assert data_location("../../x.csv", "tutorials") is None
    assert data_location("/etc/passwd", "") is None


@pytest.mark.integration
def test_large_values_give_way_but_their_text_stays(work: Path) -> None:
    big = dict(
        NOTEBOOK, cells=[{"cell": 0, "source": "list(range(3000))"}, {"cell": 1, "source": "7"}]
    )
    result = run_notebook(big, {}, max_bytes=20_000)
    first, second = result["cells"]
    shown = len(json.dumps(list(range(MAX_ITEMS)), separators=(",", ":")))  # items kept
    assert first["value"] == {"truncated": True, "bytes": shown}
    assert first["text"].startswith("[0, 1, 2") and second["value"] == 7


def test_json_safe() -> None:
    assert json_safe({"a": (1, 2.5, float("nan"))}) == {"a": [1, 2.5, "nan"]}
    assert json_safe({1: 2}) == "{1: 2}"


RUNNER = Path(__file__).resolve().parents[2] / "metaserver" / "runtime" / "notebook_runner.py"


@pytest.mark.integration
def test_pandas_shows_a_wide_table_as_a_kernel_does(science_python: Path, tmp_path: Path) -> None:
    # A kernel wraps a wide table's columns (max_columns 20); a terminal, which this process
    # looks like to pandas, elides them with "...". Stored outputs come from a kernel.
    wide = "pd.DataFrame({name * 12: [1.5] for name in 'abcdef'})"
    job = {
        "figures": str(tmp_path / "figures"),
        "output": str(tmp_path / "out.json"),
        "cells": [
            {"cell": 1, "source": f"import pandas as pd\n{wide}"},
            {"cell": 2, "source": "pd.get_option('display.max_columns')"},
            {"cell": 3, "source": f"pd.set_option('display.max_columns', 3)\n{wide}"},
        ],
    }
    (tmp_path / "job.json").write_text(json.dumps(job))
    run = subprocess.run(
        [str(science_python), "-I", str(RUNNER), str(tmp_path / "job.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    cells = {c["cell"]: c for c in json.loads((tmp_path / "out.json").read_text())["cells"]}
    assert cells[2]["value"] == 20
    assert "..." not in cells[1]["text"] and "\\" in cells[1]["text"]
    assert "ffffffffffff" in cells[1]["text"]
    assert "..." in cells[3]["text"]  # the notebook's own setting stands
