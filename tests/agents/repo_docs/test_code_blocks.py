"""The code a page shows, read in page order."""

from __future__ import annotations

from metaserver.agents.repo_docs.code_blocks import fenced_blocks, labelled_blocks


def test_labelled_blocks_are_python_fences_and_directives_in_page_order() -> None:
    text = (
        "Text::\n\n    literal = 1\n\n"  # a reST literal block: as often an output
        ".. code-block:: python\n\n    second = 2\n\n"
        "```python\nfirst = 1\n```\n"
        "```\n[1 2 3]\n```\n"  # unlabelled: an output listing here
        "```bash\npip install x\n```\n"
    )
    found = labelled_blocks(text)
    assert found == [(6, "second = 2"), (9, "first = 1")]


def test_fenced_blocks_still_take_unlabelled_fences() -> None:
    text = "```\nx = 1\n```\n```bash\nls\n```\n```py\ny = 2\n```\n"
    assert fenced_blocks(text) == ["x = 1", "y = 2"]
