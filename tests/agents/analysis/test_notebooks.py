"""Executed notebooks found and read statically: parameters, stored outputs, skip reasons."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from notebook_fixtures import DRIFT, FETCH, GROWTH, TIMING, code, notebook, stdout, value
from png_images import png, stripes

from metaserver.agents.analysis.notebooks import add_notebooks, find_notebooks, notebook_candidate
from metaserver.contracts import Candidate, CodeReport
from metaserver.runtime.phash import png_hash

PACKAGES = {"nbcalc"}


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_tagged_parameters_and_stored_outputs(tmp_path: Path) -> None:
    write(tmp_path, "tutorials/data/start.txt", "100.0\n")
    path = write(tmp_path, "tutorials/growth.ipynb", GROWTH)
    candidate = notebook_candidate(path, tmp_path, PACKAGES)
    assert isinstance(candidate, Candidate), candidate
    assert candidate.kind == "notebook" and candidate.name == "growth"
    assert candidate.target == "tutorials/growth.ipynb"
    assert candidate.summary == "Compound growth"
    schemas = {p.name: (p.json_schema, p.default, p.required) for p in candidate.parameters}
    assert schemas == {
        "rate": ({"type": "number", "default": 0.05}, 0.05, False),
        "years": ({"type": "integer", "default": 3}, 3, False),
        "label": ({"type": "string", "default": "savings"}, "savings", False),
    }
    assert candidate.notebook is not None
    assert [c.cell for c in candidate.notebook.cells] == [1, 2, 3]
    assert candidate.notebook.parameters_cell == 0
    assert candidate.notebook.data == ["data/start.txt"]
    assert "%matplotlib" not in candidate.notebook.cells[1].source  # a harmless magic, dropped
    (example,) = candidate.examples
    assert example.has_expected and example.wrapper == "notebook"
    assert example.arguments == {"rate": 0.05, "years": 3, "label": "savings"}
    assert example.expected == [
        {"cell": 2, "stdout": "savings 4\n", "text": "115.7625"},
        {"cell": 3, "text": "{'first': 100.0,\n 'last': 115.7625,\n 'n': 4}"},
    ]


def test_first_literal_cell_is_the_parameters_without_a_tag(tmp_path: Path) -> None:
    text = notebook(
        code("import nbcalc"),
        code("n = 3\nnames = ['a', 'b']\nflag = True"),
        code("x = n * 2\ny = 1"),
        code("print(nbcalc.total([n]))", stdout("3\n")),
    )
    candidate = notebook_candidate(write(tmp_path, "a.ipynb", text), tmp_path, PACKAGES)
    assert isinstance(candidate, Candidate), candidate
    assert candidate.notebook is not None and candidate.notebook.parameters_cell == 1
    assert {p.name: p.json_schema for p in candidate.parameters} == {
        "n": {"type": "integer", "default": 3},
        "names": {"type": "array", "items": {"type": "string"}, "default": ["a", "b"]},
        "flag": {"type": "boolean", "default": True},
    }


def test_a_cell_that_begins_with_literal_assignments_gives_them_without_a_literal_cell(
    tmp_path: Path,
) -> None:
    text = notebook(
        code("import nbcalc\ndef twice(v):\n    return 2 * v"),
        code('"""The settings."""\nn = 3\nrate = 0.5  # per year\nvalues = [rate] * n\nk = 2'),
        code("print(nbcalc.total(values))", stdout("1.5\n")),
    )
    candidate = notebook_candidate(write(tmp_path, "a.ipynb", text), tmp_path, PACKAGES)
    assert isinstance(candidate, Candidate), candidate
    assert candidate.notebook is not None
    # Bound after the docstring and the two leading assignments, before `values` uses them;
    # `k`, a literal after other code, is no parameter.
    assert (candidate.notebook.parameters_cell, candidate.notebook.parameters_after) == (1, 3)
    assert [p.name for p in candidate.parameters] == ["n", "rate"]
    # A cell of literals alone still wins, bound after the whole cell.
    text = notebook(
        code("import nbcalc\nn = 1\nm = n + 1"),
        code("size = 4"),
        code("print(nbcalc.total([size]))", stdout("4\n")),
    )
    candidate = notebook_candidate(write(tmp_path, "b.ipynb", text), tmp_path, PACKAGES)
    assert isinstance(candidate, Candidate) and candidate.notebook is not None
    assert (candidate.notebook.parameters_cell, candidate.notebook.parameters_after) == (1, None)
    assert [p.name for p in candidate.parameters] == ["size"]


def test_names_set_together_from_literals_are_parameters(tmp_path: Path) -> None:
    text = notebook(
        code("import nbcalc\n\nndim, nsamples = 2, 100\n[low, high] = [0.5, 'x']\nn = ndim * 2"),
        code("print(nbcalc.total([ndim, nsamples]))", stdout("102\n")),
    )
    candidate = notebook_candidate(write(tmp_path, "a.ipynb", text), tmp_path, PACKAGES)
    assert isinstance(candidate, Candidate), candidate
    assert candidate.notebook is not None
    # Both statements are leading literal assignments: bound after the second statement.
    assert (candidate.notebook.parameters_cell, candidate.notebook.parameters_after) == (0, 3)
    assert {p.name: p.default for p in candidate.parameters} == {
        "ndim": 2,
        "nsamples": 100,
        "low": 0.5,
        "high": "x",
    }
    # Names set from anything but literals, or unpacked from one value, are none.
    for line in (
        "a, b = 1, len('x')",
        "a, b = [1, 2][0], 3",
        "a, b = 'xy'",
        "a, (b, d) = 1, (2, 3)",
    ):
        text = notebook(code(f"import nbcalc\n{line}\nc = a"), code("nbcalc.total([c])"))
        candidate = notebook_candidate(write(tmp_path, "b.ipynb", text), tmp_path, PACKAGES)
        assert isinstance(candidate, Candidate), candidate
        assert candidate.parameters == [], line


def test_skip_reasons(tmp_path: Path) -> None:
    cases = {
        "fetch.ipynb": (FETCH, "needs the network (imports requests)"),
        "timing.ipynb": (TIMING, "cell magic %%time cannot be run"),
        "pip.ipynb": (notebook(code("%pip install nbcalc"), code("1", value("1"))), "installs"),
        "shell.ipynb": (notebook(code("!ls\nimport nbcalc", stdout("x"))), "shell command"),
        "url.ipynb": (
            notebook(
                code('import nbcalc, pandas\npandas.read_csv("http://x.org/a.csv")', value("1"))
            ),
            "needs the network (reads http://x.org/a.csv)",
        ),
        "data.ipynb": (
            notebook(code('import nbcalc\nopen("data/in.csv").read()', value("'x'"))),
            "reads 'data/in.csv', a data file the repository does not hold",
        ),
        "other.ipynb": (notebook(code("import math\nmath.pi", value("3.14"))), "does not use"),
        "error.ipynb": (
            notebook(
                code("import nbcalc", {"output_type": "error", "ename": "KeyError", "evalue": ""})
            ),
            "stored output is an error (KeyError)",
        ),
        # A name an IPython profile would have imported at start: no cell binds it.
        "unbound.ipynb": (
            notebook(code("import nbcalc\nx = nbcalc.total([1])"), code("plt.plot(x)\nnp.ones(2)")),
            "reads names no earlier cell binds (cell 1: np, plt)",
        ),
    }
    for name, (text, reason) in cases.items():
        made = notebook_candidate(write(tmp_path, name, text), tmp_path, PACKAGES)
        assert isinstance(made, str) and reason in made, (name, made)


def test_a_notebook_saved_without_outputs_is_run_to_make_its_reference(tmp_path: Path) -> None:
    text = notebook(code("n = 3"), code("import nbcalc\nnbcalc.total([1.0] * n)"))
    made = notebook_candidate(write(tmp_path, "bare.ipynb", text), tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    (example,) = made.examples
    # Nothing stored: no expected value, so validation makes it (notebook-run).
    assert example.wrapper == "notebook" and not example.has_expected
    assert example.expected is None and example.arguments == {"n": 3}


def test_written_then_read_files_are_not_data_files(tmp_path: Path) -> None:
    text = notebook(
        code(
            'import nbcalc\nwith open("out.txt", "w") as f:\n    f.write("1")\n'
            'open("out.txt").read()',
            value("'1'"),
        )
    )
    made = notebook_candidate(write(tmp_path, "w.ipynb", text), tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made


def test_preferred_folders_first_and_checkpoints_ignored(tmp_path: Path) -> None:
    for relative in ("zz.ipynb", "tutorials/b.ipynb", "docs/a.ipynb", ".ipynb_checkpoints/c.ipynb"):
        write(tmp_path, relative, DRIFT)
    found = [p.relative_to(tmp_path).as_posix() for p in find_notebooks(tmp_path)]
    assert found == ["docs/a.ipynb", "tutorials/b.ipynb", "zz.ipynb"]


def test_add_notebooks_reports_the_skipped(tmp_path: Path) -> None:
    write(tmp_path, "tutorials/growth.ipynb", GROWTH)
    write(tmp_path, "tutorials/data/start.txt", "100.0\n")
    write(tmp_path, "examples/fetch.ipynb", FETCH)
    report = add_notebooks(CodeReport(packages=["nbcalc"], candidates=[]), tmp_path)
    assert [c.target for c in report.candidates] == ["tutorials/growth.ipynb"]
    assert [(s.target, s.reason) for s in report.skipped] == [
        ("examples/fetch.ipynb", "needs the network (imports requests)")
    ]


def test_stored_figures_are_kept_as_perceptual_hashes(tmp_path: Path) -> None:
    image = png(40, 30, stripes)
    figure = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": base64.encodebytes(image).decode(), "text/plain": "<Figure>"},
    }
    broken = dict(figure, data={"image/png": "bm90IGEgcG5n"})
    text = notebook(code("import nbcalc\nnbcalc.plot()", figure, broken))
    made = notebook_candidate(write(tmp_path, "plot.ipynb", text), tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.examples[0].expected == [{"cell": 0, "images": [png_hash(image), None]}]


def test_repository_data_files_travel_with_the_notebook(tmp_path: Path) -> None:
    write(tmp_path, "docs/data/in.csv", "a,b\n1,2\n")
    write(tmp_path, "docs/other.txt", "x")
    reads = code('import nbcalc\nopen("data/in.csv").read()', value("'a,b\\n1,2\\n'"))
    made = notebook_candidate(write(tmp_path, "docs/r.ipynb", notebook(reads)), tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.notebook is not None and made.notebook.data == ["data/in.csv"]
    # ../ within the repository: the run's folder is laid out as the repository's around it.
    write(tmp_path, "data/top.csv", "t\n")
    climbs = code('import nbcalc\nopen("../../data/top.csv").read()', value("'t\\n'"))
    made = notebook_candidate(
        write(tmp_path, "docs/deep/c.ipynb", notebook(climbs)), tmp_path, PACKAGES
    )
    assert isinstance(made, Candidate), made
    assert made.notebook is not None and made.notebook.data == ["../../data/top.csv"]
    assert made.notebook.workdir == "docs/deep"
    outside = code('import nbcalc\nopen("../../x.txt").read()', value("'x'"))
    made = notebook_candidate(
        write(tmp_path, "docs/o.ipynb", notebook(outside)), tmp_path, PACKAGES
    )
    assert made == "reads '../../x.txt', outside the repository"


def test_reloading_an_extension_is_harmless(tmp_path: Path) -> None:
    # Tutorials often start with `%reload_ext autoreload` (a real package's nine notebooks
    # were all skipped for it): it only changes how modules reload in a live kernel.
    cells = [
        {"cell_type": "code", "source": "%reload_ext autoreload\n%autoreload 2", "outputs": []},
        {
            "cell_type": "code",
            "source": "import nbcalc\nnbcalc.double(2)",
            "outputs": [{"output_type": "execute_result", "data": {"text/plain": "4"}}],
        },
    ]
    path = tmp_path / "demo.ipynb"
    path.write_text(json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5}))

    candidate = notebook_candidate(path, tmp_path, {"nbcalc"})

    assert not isinstance(candidate, str), candidate
    assert candidate.notebook is not None
    assert all("%" not in cell.source for cell in candidate.notebook.cells)


def test_a_loader_reads_the_repository_file_a_docs_build_from_the_root_finds(
    tmp_path: Path,
) -> None:
    # ``load("freqs.npy", folder="data")`` reads data/freqs.npy where the tutorial runs
    # (downloading it when absent); the repository ships it in its top data/ folder.
    write(tmp_path, "data/freqs.npy", "1 2 3")
    loads = code('import nbcalc\nnbcalc.load_data("freqs.npy", folder="data")')
    made = notebook_candidate(
        write(tmp_path, "tutorials/sim/l.ipynb", notebook(loads)), tmp_path, PACKAGES
    )
    assert isinstance(made, Candidate), made
    assert made.notebook is not None and made.notebook.data == ["data/freqs.npy"]
    assert made.notebook.data_from == {"data/freqs.npy": "data/freqs.npy"}
    assert made.notebook.workdir == ""
    # Beside the notebook it is read where it is, with nothing to map.
    write(tmp_path, "tutorials/sim/data/freqs.npy", "4 5 6")
    made = notebook_candidate(tmp_path / "tutorials/sim/l.ipynb", tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.notebook is not None and made.notebook.data_from == {}


def test_a_file_the_repository_holds_is_data_whatever_call_reads_it(tmp_path: Path) -> None:
    # A constructor that reads its file (``Network("line.s2p")``) is named as no reader is;
    # the repository holding a file by that name says it is one.
    write(tmp_path, "docs/line.s2p", "! touchstone\n")
    cells = code(
        'import nbcalc\nline = nbcalc.Network("line.s2p")\n'
        'nbcalc.Plot("title.png")\nnbcalc.Network("/abs/x.s2p")'
    )
    made = notebook_candidate(write(tmp_path, "docs/n.ipynb", notebook(cells)), tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    # A name the repository holds no file of is something else (a label, an output).
    assert made.notebook is not None and made.notebook.data == ["line.s2p"]


def test_a_folder_a_call_reads_brings_its_files(tmp_path: Path) -> None:
    # ``read_all("cal_data/")`` reads every file in the folder; they all travel.
    write(tmp_path, "docs/cal_data/thru.s2p", "t")
    write(tmp_path, "docs/cal_data/sub/line.s2p", "l")
    write(tmp_path, "docs/cal_data/.hidden", "h")
    cells = code('import nbcalc\nnbcalc.read_all("cal_data/")\nopen("cal_data/thru.s2p")')
    made = notebook_candidate(write(tmp_path, "docs/f.ipynb", notebook(cells)), tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.notebook is not None
    assert made.notebook.data == ["cal_data/sub/line.s2p", "cal_data/thru.s2p"]


def test_a_path_set_to_a_name_first_is_data_where_the_name_is_read(tmp_path: Path) -> None:
    # ``filename = "files/a.s3p"`` (a parameter) then ``Network(filename)``; or a folder
    # name joined to each file's.
    write(tmp_path, "docs/files/a.s3p", "a")
    write(tmp_path, "docs/files/b.s2p", "b")
    cells = [
        code('import nbcalc\nfilename = "files/a.s3p"\ndirectory = "files/"'),
        code("nbcalc.Network(filename)\nnbcalc.Network(directory + 'b.s2p')"),
    ]
    made = notebook_candidate(write(tmp_path, "docs/p.ipynb", notebook(*cells)), tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.notebook is not None
    assert made.notebook.data == ["files/a.s3p", "files/b.s2p"]


def test_an_f_string_path_brings_the_files_of_the_folder_it_starts_with(tmp_path: Path) -> None:
    # ``Network(f"./runs/dut_{i}.s2p")`` in a loop reads files of runs/ one by one.
    write(tmp_path, "docs/runs/dut_1.s2p", "1")
    write(tmp_path, "docs/runs/dut_2.s2p", "2")
    cells = code(
        'import nbcalc\nfor i in (1, 2):\n    nbcalc.Network(f"./runs/dut_{i}.s2p")\n'
        'nbcalc.Network(f"./nowhere/x_{i}.s2p")\nnbcalc.save(f"./runs/out_{i}.s2p")'
    )
    made = notebook_candidate(write(tmp_path, "docs/g.ipynb", notebook(cells)), tmp_path, PACKAGES)
    assert isinstance(made, Candidate), made
    assert made.notebook is not None
    assert made.notebook.data == ["runs/dut_1.s2p", "runs/dut_2.s2p"]
