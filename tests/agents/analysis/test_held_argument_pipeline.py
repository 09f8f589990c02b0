"""A class's own instance (``Ellipsoid.UNIT``) as an argument, through MCP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from value_fixtures import make_held_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_an_instance_the_class_holds_is_passed_by_name(tmp_path: Path) -> None:
    repo = make_held_repo(tmp_path / "heldpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}

    # polar(Ellipsoid.UNIT) -> 50.0: the docstring's argument, passed as the class's own
    # instance by name and checked against the documented value.
    polar = tools["polar"]
    assert polar.status == "passed", polar.error
    assert polar.evidence is not None
    assert polar.evidence.check == "expected-value"
    assert polar.evidence.arguments == {"shape": {"attribute": "UNIT"}}
    assert polar.evidence.result == 50.0

    # Region(earth): "an :class:`~heldpack.Ellipsoid` object" types the parameter; the
    # instance the class holds is what validation passes (guessed radii are refused).
    region = tools["Region"]
    assert region.status == "passed", region.error
    assert region.evidence is not None
    assert region.evidence.arguments["earth"] == {"attribute": "UNIT"}

    # Region.add: its receiver is built by the constructor's tool, which decodes the held
    # instance (the ``new`` codec would pass it to Region as a dict).
    add = tools["Region.add"]
    assert add.status == "passed", add.error
    assert add.evidence is not None
    assert [s.tool for s in add.evidence.session] == [region.name]
    assert add.evidence.session[0].arguments == {"earth": {"attribute": "UNIT"}}

    # Both schemas list the instance by name, beside the constructor's arguments.
    document = json.loads((Path(report.output_dir or "") / "tools.json").read_text())
    schemas = {t["target"].rpartition(":")[2]: t for t in document["tools"]}
    for target, parameter in (("polar", "shape"), ("Region", "earth")):
        text = json.dumps(schemas[target])
        assert '"attribute": {"enum": ["UNIT"]}' in text, (target, parameter)
