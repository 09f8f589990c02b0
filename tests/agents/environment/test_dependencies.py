"""Which requirements the add_dependency repair installs: names and version specifiers only."""

from __future__ import annotations

import pytest

from metaserver.agents.environment.dependencies import is_requirement


@pytest.mark.parametrize(
    "text", ["numpy", "PyYAML", "numpy>=1.26,<3", "scikit-learn==1.5.2", "pint[numpy]~=0.24"]
)
def test_names_with_specifiers_are_accepted(text: str) -> None:
    assert is_requirement(text)


@pytest.mark.parametrize(
    "text",
    [
        "evil @ https://example.invalid/x.whl",
        "--index-url http://x numpy",
        "-e .",
        "../pkg",
        "/tmp/pkg.whl",
        "numpy; os_name == 'nt'",
        "a" * 201,
        "",
    ],
)
def test_urls_paths_options_and_markers_are_refused(text: str) -> None:
    assert not is_requirement(text)
