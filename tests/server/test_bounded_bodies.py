"""The meta-server's HTTP transport holds request bodies to the same bounds as stdio and the
command line (metaserver/server/bounded_bodies.py): refused with the JSON-RPC error, while a
normal request still gets its answer."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from fake_children import fast_settings
from serving import ACCEPT, INITIALIZE, serving_http

pytestmark = pytest.mark.integration


async def test_bodies_past_the_bounds_are_refused_and_others_served(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    headers = {**ACCEPT, "Content-Type": "application/json"}
    async with serving_http(settings) as url, httpx.AsyncClient(timeout=60) as http:
        refused = {
            "NaN": (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": NaN}}',
                    400, -32700, "NaN"),
            "deep": (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": '
                     + b"[" * 500 + b"]" * 500 + b"}}", 400, -32700, "nested too deeply"),
            "object id": (b'{"jsonrpc": "2.0", "id": {}, "method": "ping"}',
                          400, -32600, "id must"),
            "too large": (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "'
                          + b"x" * (9 * 1024 * 1024) + b'"}}', 413, -32700, "larger than 8 MiB"),
        }  # fmt: skip
        for what, (body, status, code, says) in refused.items():
            answer = await http.post(url, content=body, headers=headers)
            assert answer.status_code == status, (what, answer.text[:300])
            error = answer.json()
            assert error["id"] is None and error["error"]["code"] == code, what
            assert says in error["error"]["message"], what
        served = await http.post(url, content=json.dumps(INITIALIZE), headers=headers)
        assert served.status_code == 200 and "metaserver" in served.text
