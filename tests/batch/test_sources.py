"""Reading a batch file, and knowing which sources the registry already holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from metaserver.batch.local import default_concurrency
from metaserver.batch.sources import read_sources
from metaserver.exceptions import UserError


def test_comments_blank_lines_and_repeats_are_ignored(tmp_path: Path) -> None:
    listing = tmp_path / "sources.txt"
    listing.write_text(
        "# the corpus\n\npypi:textdistance==4.6.3  # pinned\n  ./local/dir \n"
        "pypi:textdistance==4.6.3\n#pypi:skipped\n"
    )
    assert read_sources(listing) == ["pypi:textdistance==4.6.3", "./local/dir"]


@pytest.mark.parametrize("content", [None, "", "# only a comment\n\n", b"\xff\xfe\x00bad"])
def test_a_missing_empty_or_binary_file_is_a_usage_error(
    tmp_path: Path, content: str | bytes | None
) -> None:
    listing = tmp_path / "sources.txt"
    if isinstance(content, bytes):
        listing.write_bytes(content)
    elif content is not None:
        listing.write_text(content)
    with pytest.raises(UserError, match="batch file"):
        read_sources(listing)


def test_the_default_pool_fits_the_machine() -> None:
    assert 1 <= default_concurrency() <= 4096
