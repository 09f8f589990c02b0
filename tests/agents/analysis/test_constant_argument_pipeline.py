"""Module-level constants of the package as arguments, through MCP: an instance a module
holds (``EUR``) by name, plain data (``PLANS['slow']``) as its value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from value_fixtures import make_constant_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_module_constants_are_documented_arguments(tmp_path: Path) -> None:
    repo = make_constant_repo(tmp_path / "constpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}

    # worth(2, EUR) -> 400: EUR passed by name, decoded into the module's own Coin.
    worth = tools["worth"]
    assert worth.status == "passed", worth.error
    assert worth.evidence is not None
    assert worth.evidence.check == "expected-value"
    assert worth.evidence.arguments == {"amount": 2, "coin": {"attribute": "EUR"}}
    assert worth.evidence.result == 400

    # p = Purse(3, EUR); p.total() -> 600: the receiver's constructor takes EUR by name
    # (``coin: str | Coin | None``: the held codec beside the plain text arm).
    total = tools["Purse.total"]
    assert total.status == "passed", total.error
    assert total.evidence is not None
    assert total.evidence.check == "expected-value"
    assert total.evidence.result == 600
    assert total.evidence.session[0].arguments == {"amount": 3, "coin": {"attribute": "EUR"}}

    # fee(PLANS['slow']) -> 5: the constant's value, written into the call.
    fee = tools["fee"]
    assert fee.status == "passed", fee.error
    assert fee.evidence is not None
    assert fee.evidence.check == "expected-value"
    assert fee.evidence.arguments == {"plan": {"fee": 1, "days": 5}}

    document = json.loads((Path(report.output_dir or "") / "tools.json").read_text())
    schemas = {t["target"].rpartition(":")[2]: t for t in document["tools"]}
    for target in ("worth", "Purse"):
        assert '"attribute": {"enum": ["EUR", "USD"]}' in json.dumps(schemas[target]), target
