"""guide_sessions: a README's code as doctest sessions, one text per file."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.analysis.guides import guide_sessions

README = """\
# demo

```python
from demo import Dot
disc = Dot(1.0, 2.0).grow(
    3.0,
)
```

```bash
pip install demo
```

>>> Dot(3.0, 4.0).norm()
5.0
"""


def test_blocks_become_prompted_lines_and_sessions_keep_their_output(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "reference.md").write_text("```python\nnot_a_guide()\n```\n")
    (tmp_path / "docs" / "quickstart.md").write_text("```python\nx = Dot(0.0, 0.0)\n```\n")

    texts = guide_sessions(tmp_path)

    assert len(texts) == 2  # the README, then the quickstart; the reference page is no guide
    lines = texts[0].splitlines()
    assert ">>> Dot(3.0, 4.0).norm()" in lines
    assert lines[lines.index(">>> Dot(3.0, 4.0).norm()") + 1] == "5.0"
    assert ">>> from demo import Dot" in lines
    start = lines.index(">>> disc = Dot(1.0, 2.0).grow(")
    assert lines[start + 1 : start + 3] == ["...     3.0,", "... )"]
    assert "pip install demo" not in texts[0]
    assert texts[1] == ">>> x = Dot(0.0, 0.0)"
