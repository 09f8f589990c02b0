"""A result the README shows as text (``str(t.bump())`` -> ``'2.0'``) through MCP: the
method's tool keeps its object as a handle that carries its text, though the class has a
JSON form of its own, and the documented text is checked as its expected value."""

from __future__ import annotations

from pathlib import Path

import pytest
from text_fixtures import make_tag_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_a_methods_documented_text_is_its_expected_value(tmp_path: Path) -> None:
    repo = make_tag_repo(tmp_path / "tagpack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    bump = tools["Tag.bump"]
    assert bump.status == "passed", bump.error
    assert bump.evidence is not None
    assert bump.evidence.check == "expected-value"
    assert bump.evidence.expected == "2.0"
    # a handle (the fields would lose the text), whose text is what the README shows
    result = bump.evidence.result
    assert isinstance(result, dict)
    assert (result["repr"], result["text"]) == ("Tag(major=2, minor=0)", "2.0")
    [step] = bump.evidence.session
    assert (step.line, step.tool) == ('t = Tag.parse("1.4")', tools["Tag.parse"].name)
    # a function's printed text: a plain result, compared without quotes
    label = tools["label"]
    assert label.status == "passed", label.error
    assert label.evidence is not None
    assert (label.evidence.check, label.evidence.result) == ("expected-value", "3.1")
