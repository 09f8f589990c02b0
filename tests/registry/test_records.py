"""Registry values: references, tool differences between versions, the listing shape."""

from __future__ import annotations

from metaserver.registry.records import ServerSummary, VersionSummary, split_ref, tool_changes


def test_references_split_at_the_first_at_sign() -> None:
    assert split_ref("calc@aaaa") == ("calc", "aaaa")
    assert split_ref("calc") == ("calc", None)
    assert split_ref("calc@") == ("calc", "")  # an empty version is the caller's to refuse


def test_tool_changes_compare_definition_hashes() -> None:
    changes = tool_changes(
        "v1", before={"add": "h1", "sub": "h2", "mul": "h3"}, after={"add": "h1", "mul": "h9"}
    )
    assert changes.previous_version == "v1"
    assert (changes.added, changes.removed, changes.changed) == ([], ["sub"], ["mul"])


def test_a_listing_puts_the_newest_version_first_and_on_top() -> None:
    newest = VersionSummary(version="b", commit="c2", source_version=None, created_at=2.0, tools=5)
    older = VersionSummary(version="a", commit="c1", source_version=None, created_at=1.0, tools=4)
    listing = ServerSummary(name="calc", source="file:///calc", versions=[newest, older]).listing()
    assert (listing["latest"], listing["commit"], listing["tools"]) == ("b", "c2", 5)
    assert [v["version"] for v in listing["versions"]] == ["b", "a"]
