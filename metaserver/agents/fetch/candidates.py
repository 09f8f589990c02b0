"""The repositories a SOURCE names, and fetching the first of them that fetches.

Most SOURCEs name one repository; a paper names those it links, or the one ``--repo-url``
gives (:mod:`.paper`). ``metaserver convert``, the ``convert_repo`` meta-tool and
``metaserver bundle`` all resolve a SOURCE here, so each accepts and refuses the same ones.
"""

from __future__ import annotations

import logging
from pathlib import Path

from metaserver.agents.fetch.paper import PAPER_SUFFIXES, Paper, is_paper, read_paper
from metaserver.agents.fetch.source import parse_source
from metaserver.agents.fetch.staging import staging_lease
from metaserver.agents.fetch.tree import fetch
from metaserver.contracts import Source, Workspace
from metaserver.exceptions import FetchError, MetaServerError, SourceError, UserError
from metaserver.settings import Settings

__all__ = ["check_repo_url", "fetch_first", "source_candidates"]

logger = logging.getLogger(__name__)


def check_repo_url(source: str, ref: str | None, repo_url: str | None) -> None:
    """Refuse a ``repo_url`` the conversion of ``source`` would refuse, without reading the
    paper: one given for a SOURCE that is not a paper, or one that is no valid SOURCE.

    Raises:
        UserError: as :func:`source_candidates` would for ``repo_url``.
    """
    if repo_url is None:
        return
    if not is_paper(source):
        if Path(source.strip()).suffix.lower() in PAPER_SUFFIXES:
            raise UserError(f"paper {source.strip()!r} is not a file")
        raise UserError("--repo-url (repo_url) applies only to a paper SOURCE (.pdf, .md, .txt)")
    try:
        parse_source(repo_url, ref)
    except SourceError as exc:
        raise SourceError(f"--repo-url (repo_url): {exc}") from None


def source_candidates(
    source: str, ref: str | None, repo_url: str | None
) -> tuple[Paper | None, list[Source]]:
    """The paper (when ``source`` is one) and the sources to try, in order.

    Raises:
        UserError: a bad source, an unreadable or link-less paper, or ``repo_url`` without one.
    """
    check_repo_url(source, ref, repo_url)
    if not is_paper(source):
        return None, [parse_source(source, ref)]
    paper = read_paper(Path(source.strip()).expanduser().resolve())
    if repo_url is not None:
        return paper, [parse_source(repo_url, ref)]
    candidates = []
    for link in paper.links:
        try:
            candidates.append(parse_source(link, ref))
        except UserError as exc:
            logger.info("paper link %s skipped: %s", link, exc)
    if not candidates:
        raise UserError(
            f"paper {paper.path.name} links no repository (a GitHub, GitLab or Bitbucket "
            "project, or a git URL); name one with --repo-url"
        )
    return paper, candidates


async def fetch_first(
    candidates: list[Source], settings: Settings, token: str
) -> tuple[Source, Workspace] | MetaServerError:
    """Fetch the first candidate that fetches (a paper may link several), each into
    ``settings.staging_dir / fetch-<token>[-<index>]``.

    One candidate fails as any source does (a user error raised, any other returned); of
    several, the failures are gathered into one :class:`FetchError`.
    """
    failures: list[str] = []
    for index, parsed in enumerate(candidates):
        staged = settings.staging_dir / (f"fetch-{token}" + (f"-{index}" if index else ""))
        # The lease lets a later run clean what a killed one left in staging.
        with staging_lease(staged):
            try:
                return parsed, await fetch(parsed, staged, settings)
            except MetaServerError as exc:
                if len(candidates) > 1:
                    failures.append(f"{parsed.original}: {exc}")
                elif isinstance(exc, UserError):
                    raise
                else:
                    return exc
        logger.info("could not fetch %s", failures[-1])
    return FetchError("no repository the paper links could be fetched: " + "; ".join(failures))
