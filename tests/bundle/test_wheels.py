"""Pins and requirement closures for bundles (metaserver/bundle/wheels.py)."""

from __future__ import annotations

from packaging.tags import Tag

from metaserver.agents.fetch.index import IndexFile
from metaserver.bundle.wheels import choose, pins, requirement_closure, target_tags


def test_pins_keep_exact_versions_and_drop_paths_and_urls() -> None:
    lines = ["Six==1.17.0", "fastmcp==4.1.6  # via x", "pkg @ file:///tmp/pkg", "-e .", ""]
    assert pins(lines) == {"six": "1.17.0", "fastmcp": "4.1.6"}


def test_metaserver_needs_what_it_imports() -> None:
    closure = requirement_closure("metaserver")
    assert {"fastmcp", "pydantic", "httpx", "uv", "packaging"} <= set(closure)


def test_the_wheel_for_the_target_python_is_chosen_else_the_sdist() -> None:
    def file(name: str) -> IndexFile:
        return IndexFile(
            filename=name, url=f"https://files.invalid/{name}", hashes={}, yanked=False
        )

    files = [
        file("demo-1.0.tar.gz"),
        file("demo-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"),
        file("demo-1.0-cp312-cp312-manylinux_2_17_x86_64.whl"),
        file("demo-0.9-py3-none-any.whl"),
    ]
    cp311 = [Tag("cp311", "cp311", "manylinux_2_17_x86_64"), Tag("py3", "none", "any")]
    chosen = choose("demo", "1.0", files, cp311)
    assert (
        chosen is not None and chosen.filename == "demo-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
    )
    other = [Tag("cp313", "cp313", "manylinux_2_17_x86_64")]
    fallback = choose("demo", "1.0", files, other)
    assert fallback is not None and fallback.filename == "demo-1.0.tar.gz"
    assert choose("demo", "2.0", files, cp311) is None
    assert Tag("py3", "none", "any") in target_tags("3.11")
