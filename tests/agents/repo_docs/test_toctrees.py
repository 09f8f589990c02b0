"""A docs section's chapters, from its toctree, become guide pages when its title says so."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repo_docs.toctrees import page_title, toctree_pages
from metaserver.agents.repo_docs.usage import guide_files


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_titles_of_rest_and_markdown_pages() -> None:
    assert page_title(".. _ref:\n\nUsage examples\n==============\n\ntext\n") == "Usage examples"
    assert page_title("---\njupytext: {}\n---\n\n# DWT and IDWT\n\ntext\n") == "DWT and IDWT"
    assert page_title("just a paragraph\nof text\n") == ""


def test_rest_and_myst_toctrees_in_order(tmp_path: Path) -> None:
    root = _write(
        tmp_path,
        {
            "docs/guide/index.rst": "Tutorial\n========\n\n.. toctree::\n   :maxdepth: 1\n\n"
            "   signals\n   Filters and more <filters>\n   https://example.org/x\n   missing\n",
            "docs/guide/signals.md": "# Signals\n",
            "docs/guide/filters.rst": "Filters\n=======\n",
            "docs/other/index.md": "# Tutorial\n\n```{toctree}\n:maxdepth: 2\nfirst\n```\n",
            "docs/other/first.md": "# First\n",
        },
    )
    rest = root / "docs/guide/index.rst"
    assert toctree_pages(rest, rest.read_text(), root) == [
        root / "docs/guide/signals.md",
        root / "docs/guide/filters.rst",
    ]
    myst = root / "docs/other/index.md"
    assert toctree_pages(myst, myst.read_text(), root) == [root / "docs/other/first.md"]


def test_an_entry_that_leaves_the_tree_is_not_followed(tmp_path: Path) -> None:
    outside = _write(tmp_path / "outside", {"secret.md": "# Secret\n"})
    root = _write(
        tmp_path / "repo",
        {"docs/index.rst": "Tutorial\n========\n\n.. toctree::\n\n   ../../outside/secret\n"},
    )
    assert outside.is_dir()
    page = root / "docs/index.rst"
    assert toctree_pages(page, page.read_text(), root) == []


def test_chapters_of_a_guide_section_follow_its_index(tmp_path: Path) -> None:
    chapters = "\n".join(f"   {name}" for name in ("wavelets", "transforms"))
    root = _write(
        tmp_path,
        {
            "README.md": "# lib\n",
            "doc/source/examples/index.rst": "Usage examples\n==============\n\n"
            f".. toctree::\n\n{chapters}\n",
            "doc/source/examples/wavelets.md": "# Wavelets\n",
            "doc/source/examples/transforms.md": "# Transforms\n",
            # A section whose title is no guide (an API reference) keeps its pages out.
            "doc/source/api/index.rst": "API reference\n=============\n\n"
            ".. toctree::\n\n   calls\n",
            "doc/source/api/calls.rst": "Calls\n=====\n",
        },
    )
    found = [p.relative_to(root).as_posix() for p in guide_files(root)]
    assert found[0] == "README.md"
    index = found.index("doc/source/examples/index.rst")
    assert found[index + 1 : index + 3] == [
        "doc/source/examples/wavelets.md",
        "doc/source/examples/transforms.md",
    ]
    assert "doc/source/api/calls.rst" not in found
