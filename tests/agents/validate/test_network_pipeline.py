"""A documented function that downloads its data: in the sandbox it meets no network, and
its verdict says so (``env_failure``) instead of blaming our arguments, which the repair
loop would answer with others, each failing the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_repos import make_package_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings

MODULE = '''\
"""Tables: a fixture whose loader downloads what it returns."""

from tablepack import _remote

__all__ = ["add", "table", "scale", "total"]


def table(name):
    """The named table, downloaded.

    >>> table("iris")[:5]
    'sepal'
    """
    return _remote.contents(f"https://tables.example.invalid/{name}.csv")


def add(a, b):
    """The sum.

    >>> add(1, 2)
    3
    """
    return a + b


def scale(values, by):
    """Each value times ``by``.

    >>> scale([1, 2], 3)
    [3, 6]
    """
    return [v * by for v in values]


def total(values):
    """The sum of ``values``.

    >>> total([1, 2, 3])
    6
    """
    return sum(values)
'''


REMOTE = """\
import urllib.request


def contents(address):
    with urllib.request.urlopen(address) as answer:
        return answer.read().decode()
"""


@pytest.mark.integration
async def test_a_download_is_an_environment_verdict(tmp_path: Path) -> None:
    repo = make_package_repo(
        tmp_path / "tablepack", "tablepack", "tablepack", MODULE, {"tablepack/_remote.py": REMOTE}
    )
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    fetch = tools["table"]
    assert fetch.status != "passed"
    assert fetch.failure_type == "env_failure", fetch.error
    assert fetch.error is not None and fetch.error.startswith("needs the network")
    assert fetch.repaired is None
    assert all(tools[name].status == "passed" for name in ("add", "scale", "total"))
