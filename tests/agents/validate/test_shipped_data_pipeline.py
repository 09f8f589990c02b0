"""A reader proven on the data file its package ships, through MCP: the README's
``path = get_data_file("sample.csv")`` hands a path inside the environment to the reader,
which the sandbox mounts read-only, so the path codec lets it through."""

from __future__ import annotations

from pathlib import Path

import fixture_repos
import pytest
from fixture_repos import make_package_repo

from metaserver.pipeline import convert
from metaserver.settings import Settings

MODULE = '''\
"""Tables read from files: a fixture that ships its own data."""

import os
from pathlib import Path

__all__ = ["get_data_file", "header_of", "read_table", "width_of"]


def get_data_file(name):
    """The full path of a data file this package ships.

    Parameters
    ----------
    name : str
        The file name (without path).
    """
    return str(Path(__file__).parent / "data" / name)


def header_of(rows: list) -> list:
    """The first row.

    >>> header_of([["a", "b"], ["1", "2"]])
    ['a', 'b']
    """
    return rows[0]


def width_of(rows: list) -> int:
    """The number of columns.

    >>> width_of([["a", "b"], ["1", "2"]])
    2
    """
    return len(rows[0])


def read_table(path: os.PathLike) -> list:
    """The rows of the CSV table in the file at ``path``."""
    with open(path) as stream:
        return [line.strip().split(",") for line in stream if line.strip()]
'''

README = """\
# tablepack

```python
>>> from tablepack import get_data_file, read_table
>>> path = get_data_file("sample.csv")
>>> read_table(path)
[['a', 'b'], ['1', '2']]
```
"""

# the fixture's own pyproject, with its data files shipped in the package
PYPROJECT = fixture_repos.PYPROJECT.format(name="tablepack", package="tablepack") + (
    '\n[tool.setuptools.package-data]\ntablepack = ["data/*.csv"]\n'
)


@pytest.mark.integration
async def test_a_reader_is_proven_on_the_file_its_package_ships(tmp_path: Path) -> None:
    files = {
        "README.md": README,
        "pyproject.toml": PYPROJECT,
        "tablepack/data/sample.csv": "a,b\n1,2\n",
    }
    repo = make_package_repo(tmp_path / "tablepack", "tablepack", "tablepack", MODULE, files)

    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))

    assert report.status == "success", report.failure
    tools = {t.target.rpartition(":")[2]: t for t in report.tools}
    read = tools["read_table"]
    assert read.status == "passed", read.error
    assert read.evidence is not None and read.evidence.check == "expected-value"
    assert read.evidence.result == [["a", "b"], ["1", "2"]]
    [step] = read.evidence.session
    assert (step.tool, step.into) == ("get_data_file", "path")
    given = read.evidence.arguments["path"]
    assert isinstance(given, str) and given.endswith("/tablepack/data/sample.csv")
    assert str(tmp_path) not in given  # the sandbox's own path of the environment
