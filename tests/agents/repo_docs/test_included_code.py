"""included_code: a docs page's plot and literalinclude directives show a file's code."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repo_docs.guides import guide_sessions
from metaserver.agents.repo_docs.included_code import page_text
from metaserver.agents.repo_docs.usage import documented_names

INDEX = """\
Wave
====

Install it, then:

.. code-block:: python

  import wave
  cA, cD = wave.dwt([1, 2, 3, 4], 'db1')

An image:

.. plot:: pyplots/image.py
   :include-source: true

A fit, from the examples:

.. literalinclude:: /../../examples/fit.py

Only its last part:

.. literalinclude:: /../../examples/smooth.py
   :lines: 3-

Outside the repository:

.. plot:: ../../../outside.py
"""


def _docs(root: Path) -> Path:
    source = root / "doc" / "source"
    (source / "pyplots").mkdir(parents=True)
    (source / "conf.py").write_text("project = 'wave'\n")
    (source / "pyplots" / "image.py").write_text(
        "import wave\n\noriginal = wave.camera()\ncoeffs = wave.dwt2(original, 'haar')\n"
    )
    (root / "examples").mkdir()
    (root / "examples" / "fit.py").write_text("import wave\nmodel = wave.fit([1.0, 2.0])\n")
    (root / "examples" / "smooth.py").write_text("import wave\n\nwave.smooth([1.0])\n")
    (root.parent / "outside.py").write_text("import wave\nwave.leaked()\n")
    page = source / "index.rst"
    page.write_text(INDEX)
    return page


def test_a_plot_or_literalinclude_directive_shows_its_files_code_on_the_page(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    page = _docs(root)
    text = page_text(page, root)
    # relative to the page's folder; ``/`` from the folder that holds conf.py
    assert "coeffs = wave.dwt2(original, 'haar')" in text
    assert "model = wave.fit([1.0, 2.0])" in text
    # a part of a file (``:lines:``) is not the whole file; nothing outside the repository
    assert "wave.smooth" not in text and "leaked" not in text
    assert ".. literalinclude:: /../../examples/smooth.py" in text


def test_the_calls_of_an_included_script_are_documented_in_page_order(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _docs(root)
    wanted = {"dwt", "dwt2", "camera", "fit", "smooth", "leaked"}
    assert documented_names(root, wanted) == ["dwt", "camera", "dwt2", "fit"]
    sessions = guide_sessions(root)
    assert any(">>> coeffs = wave.dwt2(original, 'haar')" in s for s in sessions)


def test_a_linked_file_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "doc").mkdir(parents=True)
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 'x'\n")
    (root / "doc" / "shown.py").symlink_to(secret)
    page = root / "doc" / "index.rst"
    page.write_text(".. plot:: shown.py\n")
    assert page_text(page, root) == ".. plot:: shown.py\n"
