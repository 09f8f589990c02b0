"""A paper's text and the repository links in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from paper_fixtures import make_pdf

from metaserver.agents.fetch.paper import MAX_LINKS, is_paper, read_paper, repository_links
from metaserver.exceptions import SourceError


def test_forge_projects_are_found_first_mention_first_once() -> None:
    text = (
        "Code: https://github.com/Lab/Tool/tree/main/src (mirror gitlab.com/lab/tool.git).\n"
        "See also github.com/lab/tool, https://github.com/orgs/lab, bitbucket.org/x/y.\n"
        "Older: git@example.org:group/old.git and https://git.example.org/a/b.git;\n"
        "never file:///home/user/repo nor /srv/repo."
    )
    assert repository_links(text) == [
        "https://github.com/Lab/Tool",
        "https://gitlab.com/lab/tool",
        "https://bitbucket.org/x/y",
        "git@example.org:group/old.git",
        "https://git.example.org/a/b.git",
    ]


def test_a_link_broken_across_lines_is_joined_and_links_are_bounded() -> None:
    assert repository_links("at https://github.com/\nowner/project.") == [
        "https://github.com/owner/project"
    ]
    many = " ".join(f"github.com/o/r{i}" for i in range(MAX_LINKS + 3))
    assert len(repository_links(many)) == MAX_LINKS


def test_a_pdf_gives_its_text_and_its_link_annotations(tmp_path: Path) -> None:
    pdf = make_pdf(
        tmp_path / "paper.pdf",
        ["Fast Squares (a study)", "Our code is at github.com/lab/squares."],
        link="https://gitlab.com/lab/hidden",
    )
    assert is_paper(str(pdf)) and not is_paper(str(tmp_path / "missing.pdf"))
    paper = read_paper(pdf)
    assert "Fast Squares (a study)" in paper.text
    assert paper.links == ["https://github.com/lab/squares", "https://gitlab.com/lab/hidden"]


def test_markdown_and_text_papers_are_read_as_they_are(tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("# Paper\n\n[code](https://github.com/a/b)\n")
    assert read_paper(tmp_path / "p.md").links == ["https://github.com/a/b"]
    (tmp_path / "p.txt").write_text("no links at all\n")
    assert read_paper(tmp_path / "p.txt").links == []


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.pdf", b"%PDF-1.4\nnot really", "not a readable PDF"),
        ("empty.md", b"  \n", "holds no text"),
        ("latin.txt", b"caf\xe9", "not UTF-8"),
    ],
)
def test_unreadable_papers_are_source_errors(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    (tmp_path / name).write_bytes(content)
    with pytest.raises(SourceError, match=message):
        read_paper(tmp_path / name)
