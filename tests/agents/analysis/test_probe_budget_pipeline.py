"""A library whose walk takes longer than the probe's limit: the probe stops at its own
budget, and the conversion succeeds with the entry points the README documents, its report
naming what the probe left unread (before, the probe ran into its limit and the conversion
failed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_package_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings

INIT = '''\
"""Small arithmetic: a metaserver test fixture whose modules are slow to import."""

from slowwalk.core import add, double, negate

__all__ = ["add", "double", "negate"]
'''

CORE = '''\
def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(2, 3)
    5
    """
    return a + b


def double(x: int) -> int:
    """Twice x.

    >>> double(4)
    8
    """
    return 2 * x


def negate(x: int) -> int:
    """The negative of x.

    >>> negate(5)
    -5
    """
    return -x
'''

SLOW = '''\
import time

time.sleep(0.5)  # a heavy import, as a large library's submodules can be


def slow_{n}(a: int) -> int:
    """Met only by walking the package."""
    return a
'''

README = """\
# slowwalk

```python
>>> from slowwalk import add, double, negate
>>> add(2, 3)
5
>>> double(4)
8
>>> negate(5)
-5
```
"""

MODULES = 40  # 20 s of imports, against a probe limit of 12 s


@pytest.mark.integration
async def test_a_walk_past_the_probe_limit_yields_the_documented_tools(tmp_path: Path) -> None:
    files = {"README.md": README, "slowwalk/core.py": CORE}
    files |= {f"slowwalk/m{n:02d}_slow.py": SLOW.format(n=n) for n in range(MODULES)}
    repo = make_package_repo(tmp_path / "slowwalk", "slowwalk", "slowwalk", INIT, files=files)
    settings = Settings(home=tmp_path / "home", timeouts={"probe": 12})

    report = await convert(str(repo), settings=settings)

    assert report.status == "success", report.failure
    assert sorted(report.coverage.covered) == ["add", "double", "negate"]
    assert {t.target for t in report.tools if t.status == "passed"} >= {
        "slowwalk:add",
        "slowwalk:double",
        "slowwalk:negate",
    }
    [walk, *_] = report.analysis_unread
    assert walk.target == "slowwalk"
    assert walk.reason.startswith("modules from slowwalk.m")
    assert "not walked" in walk.reason and "9 s budget was spent" in walk.reason
