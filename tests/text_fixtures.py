"""A package whose README shows results as text (``str(...)``, ``print(...)``): a fixture
that tests build for themselves."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

TAG_MODULE = '''\
"""Release tags: an object whose text (``2.0``) is not its repr (``Tag(major=2, minor=0)``)
and which has a JSON form of its own (``to_dict``) that leaves its text out."""

from __future__ import annotations

__all__ = ["Tag", "label"]


class Tag:
    """A release tag: major and minor."""

    def __init__(self, major: int, minor: int = 0) -> None:
        self.major, self.minor = major, minor

    @classmethod
    def parse(cls, text: str) -> Tag:
        """Read a tag from its text."""
        major, _, minor = text.partition(".")
        return cls(int(major), int(minor or 0))

    def bump(self) -> Tag:
        """The next major tag."""
        return Tag(self.major + 1, 0)

    def to_dict(self) -> dict[str, int]:
        """The tag's fields."""
        return {"major": self.major, "minor": self.minor}

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    def __repr__(self) -> str:
        return f"Tag(major={self.major}, minor={self.minor})"


def label(major: int, minor: int = 0) -> str:
    """A tag's text."""
    return f"{major}.{minor}"
'''

TAG_README = """\
# tagpack

>>> from tagpack import Tag, label
>>> t = Tag.parse("1.4")
>>> str(t.bump())
'2.0'
>>> print(label(3, 1))
3.1
"""


def make_tag_repo(root: Path) -> Path:
    """A method whose README shows its result through ``str(...)``, on a receiver a class
    method builds, and a function whose result ``print`` shows."""
    return make_package_repo(root, "tagpack", "tagpack", TAG_MODULE, {"README.md": TAG_README})
