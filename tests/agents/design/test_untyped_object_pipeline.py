"""Object parameters that nothing annotates, through MCP: ``perimeter(shape)`` whose
docstring says "a polygon", and ``corners(P)`` whose only clue is the README's
``P = regular(3)``. Each is typed as the package's Polygon, which only a handle gives, and
validation builds it with the documented factory call before calling the tool."""

from __future__ import annotations

from pathlib import Path

import pytest
from argument_fixtures import make_shape_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings


@pytest.mark.integration
async def test_untyped_object_parameters_get_a_built_object(tmp_path: Path) -> None:
    repo = make_shape_repo(tmp_path / "shapepack")
    settings = Settings(home=tmp_path / "home")

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    regular = tools["regular"]
    assert regular.status == "passed", regular.error
    for name, parameter, result in (("perimeter", "shape", 3.0), ("corners", "P", [0.0, 1.0, 2.0])):
        tool = tools[name]
        assert tool.status == "passed", tool.error
        assert tool.evidence is not None
        assert tool.evidence.result == result  # the triangle the README built
        [step] = tool.evidence.session
        assert (step.into, step.tool, step.typed) == (parameter, regular.name, True)
        assert step.arguments == {"sides": 3}
