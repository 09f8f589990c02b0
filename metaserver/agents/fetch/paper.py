"""A paper as SOURCE: its text, and the repository links in it.

``metaserver convert paper.pdf`` (or ``.md``, ``.txt``) reads the paper's text (pypdf for a
PDF), finds the repositories it links (GitHub, GitLab and Bitbucket project URLs, and git
URLs generally), and converts the first that fetches, or the one ``--repo-url`` names; the
text becomes the server's ``doc://<server>/paper`` resource. Links are read from untrusted
text, so only network URLs are taken from it: a ``file://`` link or a local path in a paper
is never followed (a local repository is named with ``--repo-url``), and every link still
passes :func:`~metaserver.agents.fetch.source.parse_source` before anything fetches it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from metaserver.exceptions import SourceError

__all__ = ["MAX_LINKS", "PAPER_SUFFIXES", "Paper", "is_paper", "read_paper", "repository_links"]

logger = logging.getLogger(__name__)

PAPER_SUFFIXES = (".pdf", ".md", ".markdown", ".txt")
MAX_PAPER_BYTES = 50_000_000
MAX_TEXT_CHARS = 2_000_000
MAX_LINKS = 5
"""Repository links tried, in the order the paper gives them."""

# A forge project: host/owner/repo, whatever follows (/tree/main, /issues, .git) dropped.
_FORGE = re.compile(
    r"(?:https?://)?(?:www\.)?(?P<host>github\.com|gitlab\.com|bitbucket\.org)/"
    r"(?P<owner>[A-Za-z0-9][A-Za-z0-9_.-]*)/(?P<repo>[A-Za-z0-9_.-]+)",
    re.IGNORECASE,
)
# Any other git URL: one that ends in .git (https, http, ssh, or scp-like user@host:path).
_GIT_URL = re.compile(
    r"(?:(?:https?|ssh)://[A-Za-z0-9._~%@:/+-]+?\.git|"
    r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[A-Za-z0-9._~/+-]+?\.git)(?![A-Za-z0-9_-])"
)
# Forge paths that are not projects.
_NOT_PROJECTS = {"orgs", "topics", "features", "sponsors", "marketplace", "about", "settings"}


@dataclass(frozen=True)
class Paper:
    """A paper's text and the repository links found in it, in order of appearance."""

    path: Path
    text: str
    links: list[str]


def is_paper(text: str) -> bool:
    """Whether SOURCE ``text`` names a paper: an existing file with a paper's suffix."""
    path = Path(text.strip()).expanduser()
    return path.suffix.lower() in PAPER_SUFFIXES and path.is_file()


def read_paper(path: Path) -> Paper:
    """Read the paper at ``path`` and find its repository links.

    Raises:
        SourceError: the file is too large, not readable as a PDF or as UTF-8 text, or holds
            no text.
    """
    try:
        size = path.stat().st_size
        if size > MAX_PAPER_BYTES:
            raise SourceError(f"paper {path.name} is {size} bytes, over {MAX_PAPER_BYTES}")
        text = _pdf_text(path) if path.suffix.lower() == ".pdf" else _plain_text(path)
    except OSError as exc:
        raise SourceError(f"paper {path.name} cannot be read: {exc.strerror}") from None
    text = text[:MAX_TEXT_CHARS]
    if not text.strip():
        raise SourceError(f"paper {path.name} holds no text (a scanned PDF needs OCR first)")
    return Paper(path=path, text=text, links=repository_links(text))


def repository_links(text: str) -> list[str]:
    """The repositories ``text`` links, as clone URLs, first mention first, at most
    :data:`MAX_LINKS`. ``file://`` links and local paths are never taken from a paper."""
    # PDF text often breaks a long URL at a line end: join "…/\n" and "-\n" continuations.
    joined = re.sub(r"(?<=[/_-])\n(?=\S)", "", text)  # not after ".": a sentence ends
    found: list[tuple[int, str]] = []
    for match in _FORGE.finditer(joined):
        owner, repo = match.group("owner"), match.group("repo")
        repo = re.sub(r"\.git$", "", repo.rstrip("."), flags=re.IGNORECASE)
        if owner.lower() in _NOT_PROJECTS or not repo or repo in (".", ".."):
            continue
        found.append((match.start(), f"https://{match.group('host').lower()}/{owner}/{repo}"))
    forge_spans = [m.span() for m in _FORGE.finditer(joined)]
    for match in _GIT_URL.finditer(joined):
        if any(start <= match.start() < end for start, end in forge_spans):
            continue  # a forge URL ending in .git, already taken above
        found.append((match.start(), match.group(0)))
    links: list[str] = []
    for _, link in sorted(found):
        if link.lower() not in (seen.lower() for seen in links):
            links.append(link)
    return links[:MAX_LINKS]


def _pdf_text(path: Path) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(path)
        pages = []
        for page in reader.pages:
            pages.append(page.extract_text() or "")
            links = _annotation_links(page)
            if links:
                pages.append("\n".join(links))
        return "\n".join(pages)
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise SourceError(f"paper {path.name} is not a readable PDF: {exc}") from None


def _annotation_links(page: object) -> list[str]:
    """The URI targets of a page's link annotations: a link's text may differ from it."""
    links = []
    try:
        annotations = page.get("/Annots") or []  # type: ignore[attr-defined]
        for reference in annotations:
            action = reference.get_object().get("/A") or {}
            uri = action.get("/URI")
            if isinstance(uri, str | bytes):
                links.append(uri.decode("latin-1") if isinstance(uri, bytes) else uri)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        logger.debug("link annotations unreadable: %s", exc)
    return links


def _plain_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SourceError(f"paper {path.name} is not UTF-8 text") from None
