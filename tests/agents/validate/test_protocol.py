"""What the specification demands of resource, template and prompt listings."""

from __future__ import annotations

import mcp_types

from metaserver.agents.validate.protocol import documents_problems

MANIFEST = {
    "resources": [{"uri": "doc://s/readme"}, {"uri": "doc://s/tutorials/a"}],
    "prompts": [{"name": "tutorial-a"}],
    "work_template": "work://s/{path*}",
}


def resource(uri: str, name: str = "n", mime: str | None = "text/markdown") -> mcp_types.Resource:
    return mcp_types.Resource(uri=uri, name=name, mime_type=mime)


TEMPLATE = mcp_types.ResourceTemplate(uri_template="work://s/{path*}", name="work-file")
PROMPT = mcp_types.Prompt(name="tutorial-a")


def test_a_listing_that_matches_its_manifest_is_clean() -> None:
    resources = [resource("doc://s/readme"), resource("doc://s/tutorials/a")]
    assert documents_problems(resources, [TEMPLATE], [PROMPT], MANIFEST) == []


def test_every_problem_is_named() -> None:
    resources = [
        resource("doc://s/readme", name=""),
        resource("doc://s/readme", mime=None),
        resource("relative/path"),
    ]
    prompts = [
        PROMPT,
        PROMPT,
        mcp_types.Prompt(name="x", arguments=[mcp_types.PromptArgument(name="")]),
    ]
    problems = documents_problems(resources, [], prompts, MANIFEST)
    assert "resource URI 'relative/path' is not absolute" in problems
    assert "resource 'doc://s/readme' has no name" in problems
    assert "resource 'doc://s/readme' has no MIME type" in problems
    assert "duplicate resource URI 'doc://s/readme'" in problems
    assert "duplicate prompt name 'tutorial-a'" in problems
    assert "prompt 'x' has an argument without a name" in problems
    assert any(p.startswith("lists resources") for p in problems)
    assert any(p.startswith("lists prompts") for p in problems)
    assert "no resource template 'work://s/{path*}' for work files" in problems
