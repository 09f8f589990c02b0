"""No host path of the home reaches a client: the bwrap child sees /work (issue 28, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types
import pytest
from backends import require_backend
from fake_children import fast_settings
from neutral_paths_fixtures import where_record

from metaserver.children.pool import ChildPool
from metaserver.sandbox.bwrap import NEUTRAL_WORKDIRS

pytestmark = pytest.mark.integration


def _text(result: mcp_types.CallToolResult) -> str:
    return " ".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))


async def test_results_and_errors_name_no_path_of_the_home(tmp_path: Path) -> None:
    require_backend("bwrap")
    settings = fast_settings(tmp_path / "home", sandbox={"backend": "bwrap"})
    record = where_record(settings)
    pool = ChildPool(settings)
    try:
        where = await pool.call(record, "where", {})
        written = await pool.call(record, "write", {"name": "out.txt"})
        failed = await pool.call(record, "fail", {})
    finally:
        await pool.close()
    assert not where.is_error and not written.is_error, _text(where) + _text(written)
    assert failed.is_error
    seen = where.structured_content or {}
    assert seen["cwd"] == seen["home"] == seen["tmp"] == seen["pwd"]
    assert Path(seen["cwd"]) in NEUTRAL_WORKDIRS
    assert seen["file"] == "/server/server.py"
    # The file was written into the server's work/ on the host, through the neutral path.
    assert (record.output_dir / "work" / "out.txt").read_text() == "x"
    homes = {str(settings.home), str(settings.home.resolve()), str(tmp_path)}
    for result in (where, written, failed):
        text = json.dumps(result.model_dump(mode="json"))
        for home in homes:
            assert home not in text, (home, text)
