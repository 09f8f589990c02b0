"""Small repositories that tests build for themselves (never code from other projects).

Here: the builder every fixture module uses (``git``, ``make_package_repo``), and packages
of plain callables, each exercising one case of a stage: typed doctested functions (calc,
shared by a session through ``shared_calc``), the repairs of the validation loop, a spare
design, an undeclared import, an optional extra, a missing external program. Beside it:
``receiver_fixtures`` (methods on receivers the docs build), ``argument_fixtures`` (object
arguments), ``value_fixtures`` (arguments written as names or constructor calls),
``notebook_fixtures``, ``script_fixtures``, ``text_fixtures``, ``paper_fixtures``.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from metaserver.contracts import Source, Workspace
from metaserver.settings import Settings

CALC_MODULE = '''\
"""Small arithmetic and text helpers: a metaserver test fixture."""

from __future__ import annotations

__all__ = ["add", "clamp", "fibonacci", "mean", "slugify", "word_counts", "Counter"]


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first addend.
        b: the second addend.

    >>> add(2, 3)
    5
    """
    return a + b


def mean(values: list[float]) -> float:
    """The arithmetic mean of some numbers.

    >>> mean([1.0, 2.0, 6.0])
    3.0
    """
    return sum(values) / len(values)


def slugify(text: str, sep: str = "-") -> str:
    """Lower-case words joined by a separator.

    >>> slugify("Hello  World")
    'hello-world'
    """
    return sep.join(text.lower().split())


def fibonacci(n: int) -> list[int]:
    """The first n Fibonacci numbers.

    >>> fibonacci(7)
    [0, 1, 1, 2, 3, 5, 8]
    """
    numbers = [0, 1]
    while len(numbers) < n:
        numbers.append(numbers[-1] + numbers[-2])
    return numbers[:n]


def word_counts(text: str) -> dict[str, int]:
    """How often each word occurs.

    >>> word_counts("a b a")
    {'a': 2, 'b': 1}
    """
    counts: dict[str, int] = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts


def clamp(x: float, low: float = 0.0, high: float = 1.0) -> float:
    """Limit x to the interval [low, high].

    >>> clamp(1.5)
    1.0
    """
    return max(low, min(high, x))


def _private_helper() -> None:
    """Not part of the API."""


class Counter:
    """A class: becomes handle-based tools later, skipped for now."""

    def __init__(self) -> None:
        self.value = 0
'''

PYPROJECT = """\
[project]
name = "{name}"
version = "0.3.1"
description = "metaserver test fixture"
requires-python = ">=3.9"

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
packages = ["{package}"]
"""


def pyproject_with(name: str, package: str, dependencies: list[str]) -> str:
    """PYPROJECT for ``name`` (package ``package``) that depends on ``dependencies``."""
    listed = ", ".join(f'"{d}"' for d in dependencies)
    return PYPROJECT.format(name=name, package=package).replace(
        'requires-python = ">=3.9"', f'requires-python = ">=3.9"\ndependencies = [{listed}]'
    )


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
            "HOME": str(cwd),
            "PATH": "/usr/bin:/bin",
        },
    ).stdout.strip()


def make_package_repo(
    root: Path, name: str, package: str, module: str, files: dict[str, str] | None = None
) -> Path:
    """A git repository holding an installable package whose ``__init__`` is ``module``,
    and ``files`` (relative path: text) beside it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT.format(name=name, package=package))
    (root / package).mkdir(exist_ok=True)
    (root / package / "__init__.py").write_text(module)
    (root / "README.md").write_text(textwrap.dedent(f"# {name}\n\nA fixture.\n"))
    for relative, text in (files or {}).items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def make_calc_repo(root: Path, name: str = "calcpack", package: str = "calcpack") -> Path:
    """A git repository holding an installable package of typed, doctested functions."""
    return make_package_repo(root, name, package, CALC_MODULE)


REPAIR_MODULE = '''\
"""Functions that each need a different repair: a metaserver test fixture.

The ratio of two parts, as the README of a real project would show it:

>>> ratio("3:4")
0.75
"""

import time

__all__ = ["add", "shout", "ratio", "wait_forever", "double", "make_box", "negate", "square"]


def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(1, 2)
    3
    """
    return a + b


def negate(x: int) -> int:
    """The negative of x.

    >>> negate(5)
    -5
    """
    return -x


def square(x: float) -> float:
    """x squared.

    >>> square(1.5)
    2.25
    """
    return x * x


def shout(text: str) -> str:
    """Upper-case text with an exclamation mark, using a dependency it never declared.

    >>> shout("hi")
    'HI!'
    """
    import six  # undeclared: the environment lacks it until a repair installs it

    return six.ensure_str(text).upper() + "!"


def ratio(text: str) -> float:
    """The ratio written as "a:b"."""
    left, right = text.split(":")
    return int(left) / int(right)


def wait_forever(seconds: int) -> int:
    """Never returns.

    >>> wait_forever(1)
    1
    """
    while True:
        time.sleep(seconds)


def double(x: int) -> int:
    """Twice x (its code disagrees with its documentation).

    >>> double(2)
    4
    """
    return x * 3


class Box:
    """An object with no JSON form."""

    def __init__(self, content: str) -> None:
        self.content = content


def make_box(content: str) -> Box:
    """Put content in a box.

    >>> make_box("x").content
    'x'
    """
    return Box(content)
'''


def make_repair_repo(root: Path) -> Path:
    """A git repository whose functions exercise each repair of the validation loop."""
    return make_package_repo(root, "fixerpack", "fixerpack", REPAIR_MODULE)


SPARE_MODULE = '''\
"""Three documented functions, one of them broken, and an undocumented spare: a fixture."""

__all__ = ["add", "broken", "double", "reverse"]


def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(1, 2)
    3
    """
    return a + b


def broken(x: int) -> int:
    """Fails whatever it is given.

    >>> broken(1)
    2
    """
    raise RuntimeError("broken beyond repair")


def double(x: int) -> int:
    """Twice x.

    >>> double(2)
    4
    """
    return 2 * x


def reverse(text: str) -> str:
    """The text reversed."""
    return text[::-1]
'''


def make_spare_repo(root: Path) -> Path:
    """A git repository with a broken top-ranked function and a lower-ranked one that works."""
    return make_package_repo(root, "sparepack", "sparepack", SPARE_MODULE)


def shared_calc(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, Settings]:
    """The calc fixture repository and a home shared by this session's integration modules.

    The workspace has a fingerprint, so the environment built for it is kept in the home's
    environment cache and the next module restores it (a hard-linked copy) instead of
    building it again.
    """
    root = tmp_path_factory.getbasetemp() / "calcpack-shared"
    repo = root / "calcpack"
    if not repo.exists():
        make_calc_repo(repo)
    commit = git(repo, "rev-parse", "HEAD")
    source = Source(kind="local", location=str(repo), original=str(repo))
    space = Workspace(
        source=source,
        path=repo,
        commit=commit,
        distribution="calcpack",
        fingerprint=f"git:{repo}@{commit}",
    )
    return space, Settings(home=root / "home")


UNDECLARED_MODULE = '''\
"""Text helpers that import a distribution their pyproject never declares: a fixture."""

from __future__ import annotations

import six  # undeclared: the first import probe fails until the repair installs it

__all__ = ["shout", "whisper", "joined"]


def shout(text: str) -> str:
    """Upper case, with a bang.

    >>> shout("hi")
    'HI!'
    """
    return six.ensure_str(text).upper() + "!"


def whisper(text: str) -> str:
    """Lower case.

    >>> whisper("HI")
    'hi'
    """
    return six.ensure_str(text).lower()


def joined(words: list[str]) -> str:
    """Words joined by spaces.

    >>> joined(["a", "b"])
    'a b'
    """
    return " ".join(six.ensure_str(w) for w in words)
'''


def make_undeclared_repo(root: Path) -> Path:
    """A package whose top-level import needs ``six``, which it does not declare."""
    return make_package_repo(root, "loudpack", "loudpack", UNDECLARED_MODULE)


EXTRA_MODULE = '''\
"""Small sums, and pairs in chunking.py (which needs the optional extra): a metaserver test
fixture."""

__all__ = ["add", "negate", "square"]


def add(a: int, b: int) -> int:
    """Add two integers.

    >>> add(1, 2)
    3
    """
    return a + b


def negate(x: int) -> int:
    """The negative of x.

    >>> negate(5)
    -5
    """
    return -x


def square(x: float) -> float:
    """x squared.

    >>> square(1.5)
    2.25
    """
    return x * x
'''

EXTRA_CHUNKING = '''\
"""Pairs of values: needs more-itertools, the package's optional extra "chunks"."""

import more_itertools

__all__ = ["pairs"]


def pairs(values: list[int]) -> list[list[int]]:
    """The values two by two."""
    return [list(chunk) for chunk in more_itertools.chunked(values, 2)]
'''

EXTRA_README = """\
# chunkpack

Install with `pip install chunkpack[chunks]` for pairs:

>>> from chunkpack.chunking import pairs
>>> pairs([1, 2, 3])
[[1, 2], [3]]
"""

EXTRA_PYPROJECT_TAIL = """
[project.optional-dependencies]
chunks = ["more-itertools==11.2.1"]
test = ["pytest"]
all = ["chunkpack[chunks,test]"]
"""


def make_extra_repo(root: Path) -> Path:
    """A package whose README uses a submodule that needs a declared optional extra."""
    repo = make_package_repo(
        root,
        "chunkpack",
        "chunkpack",
        EXTRA_MODULE,
        files={"chunkpack/chunking.py": EXTRA_CHUNKING, "README.md": EXTRA_README},
    )
    pyproject = repo / "pyproject.toml"
    # [project.optional-dependencies] must follow [project]'s keys, before [build-system].
    text = pyproject.read_text().replace(
        "\n[build-system]", EXTRA_PYPROJECT_TAIL + "\n[build-system]"
    )
    pyproject.write_text(text)
    git(repo, "commit", "-q", "-am", "extras")
    return repo


SOLVER_MODULE = '''\
"""A solver that runs an external program (never installed): a fixture whose documented
energy can only fail for want of that program, beside plain functions that pass."""

from __future__ import annotations

from ._runner import run_program

__all__ = ["Solver", "add", "double", "halve"]


class Solver:
    """Runs ``fixture-solver-absent`` on its input."""

    def __init__(self, label: str = "water") -> None:
        self.label = label

    def energy(self) -> float:
        """The energy the external program computes."""
        return float(run_program("fixture-solver-absent", self.label))


def add(a: int, b: int) -> int:
    """Sum.

    >>> add(2, 3)
    5
    """
    return a + b


def double(x: int) -> int:
    """Twice.

    >>> double(4)
    8
    """
    return 2 * x


def halve(x: float) -> float:
    """Half.

    >>> halve(3.0)
    1.5
    """
    return x / 2
'''

SOLVER_RUNNER = """\
import subprocess


def run_program(program: str, label: str) -> str:
    return subprocess.run([program, label], capture_output=True, text=True, check=True).stdout
"""

SOLVER_README = """\
# solverpack

```python
>>> from solverpack import Solver, add
>>> s = Solver("water")
>>> s.energy()
-76.4
>>> add(2, 3)
5

```
"""


def make_solver_repo(root: Path) -> Path:
    """A method that shells out to a program no environment has, and functions that pass."""
    files = {"README.md": SOLVER_README, "solverpack/_runner.py": SOLVER_RUNNER}
    return make_package_repo(root, "solverpack", "solverpack", SOLVER_MODULE, files=files)
