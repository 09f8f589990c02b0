"""parse_source: what SOURCE and --ref forms are accepted, and what is refused (and how)."""

from __future__ import annotations

from pathlib import Path

import pytest

from metaserver.agents.fetch.source import parse_source, validate_ref
from metaserver.contracts import Source
from metaserver.exceptions import SourceError, UserError

GOOD_GIT = [
    "https://github.com/sympy/sympy",
    "https://github.com/sympy/sympy.git",
    "http://git.example.org/team/repo.git",
    "https://user@git.example.org:8443/team/repo.git",
    "ssh://git@github.com/owner/repo.git",
    "ssh://git@github.com:2222/owner/repo.git",
    "ssh://git@[::1]/owner/repo.git",
    "git@github.com:owner/repo.git",
    "git@gitlab.example.com:group/sub/repo",
]


@pytest.mark.parametrize("text", GOOD_GIT)
def test_git_urls_are_accepted_unchanged(text: str) -> None:
    source = parse_source(text)
    assert source == Source(kind="git", location=text, original=text)


@pytest.mark.parametrize(
    ("text", "name", "version"),
    [
        ("pypi:numpy", "numpy", None),
        ("pypi:more-itertools==11.2.1", "more-itertools", "11.2.1"),
        ("PyPI:Zope.Interface==5.0", "Zope.Interface", "5.0"),
        ("pypi:a", "a", None),
        ("pypi:pkg_name==1!2.0rc1.post3.dev4+local.7", "pkg_name", "1!2.0rc1.post3.dev4+local.7"),
    ],
)
def test_pypi_sources(text: str, name: str, version: str | None) -> None:
    source = parse_source(text)
    assert (source.kind, source.location, source.version, source.ref) == (
        "pypi",
        name,
        version,
        None,
    )
    assert source.original == text


def test_local_directory_resolves_to_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(tmp_path)
    source = parse_source("project")
    assert source.kind == "local"
    assert source.location == str(project.resolve())
    assert source.original == "project"


def test_local_directory_through_a_symlink_is_resolved(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert parse_source(str(tmp_path / "link")).location == str(real.resolve())


def test_file_url_to_an_existing_path(tmp_path: Path) -> None:
    url = f"file://{tmp_path}"
    assert parse_source(url).kind == "git"
    assert parse_source(url, ref="main").ref == "main"


def test_surrounding_whitespace_is_ignored_but_original_is_kept() -> None:
    source = parse_source("  https://github.com/o/r  ")
    assert source.location == "https://github.com/o/r"
    assert source.original == "  https://github.com/o/r  "
    assert parse_source("https://github.com/o/r\n").location == "https://github.com/o/r"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("--upload-pack=x", "'-'"),
        ("-x", "'-'"),
        ("--", "'-'"),
        ("ext::sh -c id", "remote helpers"),
        ("fd::17", "remote helpers"),
        ("ext::ssh -oProxyCommand=id", "remote helpers"),
        ("; rm -rf /", "not a git URL"),
        ("$(id)", "not a git URL"),
        ("ftp://example.com/repo.git", "unsupported URL scheme"),
        ("git://example.com/repo.git", "unsupported URL scheme"),
        ("ext://sh -c id", "unsupported URL scheme"),
        ("javascript:alert(1)", "unsupported SOURCE"),
        ("data:text/plain,hello", "unsupported SOURCE"),
        ("https://github.com/o/r with space", "characters"),
        ("https://github.com/o/r`id`", "characters"),
        ("https://github.com/o/\nr", "control characters"),
        ("https://github.com/o/r\x00", "control characters"),
        ("https://github.com/o/\u202er", "control characters"),
        ("https://", "no host"),
        ("https://github.com", "no repository path"),
        ("https://github.com/", "no repository path"),
        ("https://github.com:notaport/o/r", "malformed URL"),
        ("https://github.com/o/r#readme", "fragment"),
        ("ssh://-oProxyCommand=id/x", "'-'"),
        ("ssh://-oProxyCommand=id@host/x", "'-'"),
        ("git@host:-x", "'-'"),
        ("git@host:/", "no repository path"),
        ("file://remotehost/srv/repo", "must be local"),
        ("file:///definitely/not/here/repo.git", "does not exist"),
        ("file://", "absolute path"),
        ("pypi:", "package name"),
        ("pypi:-x", "valid package name"),
        ("pypi:foo>=1", "valid package name"),
        ("pypi:foo[bar]", "valid package name"),
        ("pypi:foo bar", "valid package name"),
        ("pypi:foo==", "valid version"),
        ("pypi:foo==1 2", "valid version"),
        ("pypi:foo==1;id", "valid version"),
        ("pypi:foo===1", "valid version"),
        ("pypi:foo==../../x", "valid version"),
        ("/definitely/not/here", "not a git URL"),
    ],
)
def test_bad_sources_are_refused(text: str, fragment: str) -> None:
    with pytest.raises(SourceError) as caught:
        parse_source(text)
    message = str(caught.value)
    assert fragment in message
    assert "\n" not in message, "messages are one line"
    assert isinstance(caught.value, UserError)


def test_missing_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="not a git URL, pypi:NAME, or an existing local"):
        parse_source(str(tmp_path / "missing"))


def test_file_instead_of_directory_is_refused(tmp_path: Path) -> None:
    a_file = tmp_path / "setup.py"
    a_file.write_text("")
    with pytest.raises(SourceError, match="not a directory"):
        parse_source(str(a_file))


@pytest.mark.parametrize(
    "ref",
    [
        "main",
        "v1.2.3",
        "feature/new-thing",
        "release-2024_01",
        "deadbeef",
        "0123456789abcdef0123456789abcdef01234567",
        "refs/tags/v1",
    ],
)
def test_good_refs(ref: str) -> None:
    assert parse_source("https://github.com/o/r", ref=ref).ref == ref
    assert validate_ref(ref) == ref


@pytest.mark.parametrize(
    ("ref", "fragment"),
    [
        ("--upload-pack=x", "'-'"),
        ("-b", "'-'"),
        ("a b", "whitespace"),
        ("a\tb", "whitespace"),
        ("x\x00", "whitespace or control"),
        ("a..b", "character sequence"),
        ("../../etc", "character sequence"),
        ("@{-1}", "character sequence"),
        ("HEAD~1", "character sequence"),
        ("a:b", "character sequence"),
        ("a//b", "character sequence"),
        ("refs/heads/", "not a valid git ref"),
        ("foo.lock", "not a valid git ref"),
        ("/abs", "not a valid git ref"),
        ("@", "'@'"),
        ("x" * 300, "longer than"),
    ],
)
def test_bad_refs_are_refused(ref: str, fragment: str) -> None:
    with pytest.raises(SourceError) as caught:
        parse_source("https://github.com/o/r", ref=ref)
    assert fragment in str(caught.value)
    assert "\n" not in str(caught.value)


def test_empty_ref_means_no_ref() -> None:
    assert parse_source("https://github.com/o/r", ref="").ref is None


def test_ref_is_refused_for_pypi_and_local(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="only to git sources, not to a pypi"):
        parse_source("pypi:numpy", ref="main")
    with pytest.raises(SourceError, match="only to git sources, not to a local"):
        parse_source(str(tmp_path), ref="main")
