"""text_signature: a C extension's class and methods, whose only signature is the call their
docstring's first line writes, become candidates, and README lines that call them sessions."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from metaserver.probe import members
from metaserver.probe.members import describe_class
from metaserver.probe.signatures import text_signature

# A stand-in for a compiled type: its class and its methods refuse inspect.signature (as
# ``bitarray`` and its ``method_descriptor``s do), and their docstrings open with the call.
SOURCE = '''
class NativeMethod:
    """A method of a compiled type: a method descriptor without a signature."""

    __signature__ = "unreadable"  # inspect.signature raises, as for a C method

    def __init__(self, function, doc):
        self.function, self.__doc__, self.__name__ = function, doc, doc.partition("(")[0]

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return lambda *args: self.function(instance, *args)

    def __call__(self, *args):
        return self.function(*args)


class _Meta(type):
    __signature__ = property(lambda cls: "unreadable")


def _push(self, bit):
    self.bits.append(bit)


def _ones(self, start=0, stop=None):
    return sum(self.bits[start:stop])


class Bits(metaclass=_Meta):
    """Bits(initial=(), /, order='big') -> Bits

    Bits in a row.
    """

    def __init__(self, initial=(), order="big"):
        self.bits = list(initial)

    push = NativeMethod(_push, "push(bit, /)\\n\\nAdd a bit.")
    ones = NativeMethod(_ones, "ones(start=0, stop=<end>, /) -> int\\n\\nCount ones.")
'''

README = """\
>>> from nativefx import Bits
>>> b = Bits()
>>> b.push(1)
>>> b[0:1]
[1]
>>> b.push(1)
>>> b.ones()
2
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[ModuleType]:
    path = tmp_path / "nativefx.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("nativefx", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["nativefx"] = loaded
    spec.loader.exec_module(loaded)
    yield loaded
    del sys.modules["nativefx"]


class _Doc:
    def __init__(self, doc: str) -> None:
        self.__doc__ = doc


@pytest.mark.parametrize(
    ("doc", "name", "method", "expected"),
    [
        ("append(item, /)\n\nAppend.", "append", True, "(self, item, /)"),
        # a default no literal writes ends the signature; the kept ones stay positional-only
        ("count(value=1, start=0, stop=<end>, step=1, /) -> int", "count", True,
         "(self, value=1, start=0, /) -> 'int'"),
        ("bits(initializer=0, /, endian='big', buffer=None) -> bits", "bits", False,
         "(initializer=0, /, endian='big', buffer=None) -> 'bits'"),
        # no ``/`` written: an older C function that parses a tuple, called by position
        ("info(key, *, verbose=False) -> int", "info", False,
         "(key, /, *, verbose=False) -> 'int'"),
        # Argument Clinic's bound first parameter is never passed
        ("trunc($module, x, /)", "trunc", False, "(x, /)"),
        # a parameter the call needs, after a default no literal writes: no signature
        ("cut(a, b=<end>, c, /)", "cut", False, None),
        # Cython's classes open a sentence with the call
        ("Wave(name, bank=None) object describe properties of a wave", "Wave", False,
         "(name, bank=None, /)"),
        ("Wave(name)(x) applied", "Wave", False, None),
        ("Return the info.", "info", False, None),
        ("other(key)", "info", False, None),
    ],
)  # fmt: skip
def test_the_first_line_of_the_docstring_is_the_signature(
    doc: str, name: str, method: bool, expected: str | None
) -> None:
    signature = text_signature(_Doc(doc), name, method=method)
    assert (str(signature) if signature is not None else None) == expected


def by_target(module: ModuleType) -> dict[str, Any]:
    described = describe_class(module.Bits, "Bits", module, True, "nativefx")
    return {target: candidate for candidate, _, target in described}


def test_a_compiled_class_and_its_methods_are_candidates(module: ModuleType) -> None:
    with pytest.raises((TypeError, ValueError)):
        inspect.signature(module.Bits)  # what the probe met before
    found = by_target(module)
    assert found["nativefx:Bits"]["signature"] == "Bits(initial=(), /, order='big') -> 'Bits'"
    assert found["nativefx:Bits.push"]["signature"] == "Bits.push(bit, /)"
    assert found["nativefx:Bits.ones"]["signature"] == "Bits.ones(start=0, /) -> 'int'"
    push = found["nativefx:Bits.push"]
    assert [p["name"] for p in push["parameters"]] == ["handle", "bit"]
    assert push["positional"] == ["handle", "bit"]


def test_a_readme_session_calls_the_compiled_methods(module: ModuleType) -> None:
    members.set_guides([README])
    try:
        found = by_target(module)
    finally:
        members.set_guides([])
    (proof,) = [e for e in found["nativefx:Bits.ones"]["examples"] if e["has_expected"]]
    assert proof["expected"] == 2
    # the slice read in between changes nothing; both pushes are setup calls
    assert [(s["line"], s["member"], s["arguments"]) for s in proof["session"]] == [
        ("b = Bits()", None, {}),
        ("b.push(1)", "push", {"bit": 1}),
        ("b.push(1)", "push", {"bit": 1}),
    ]
    (first,) = found["nativefx:Bits.push"]["examples"][:1]
    assert first["session"] == [
        {"line": "b = Bits()", "target": "nativefx:Bits", "member": None, "arguments": {}}
    ]


def test_a_cached_function_is_a_public_member(tmp_path: Path) -> None:
    source = "import functools\n\n@functools.lru_cache\ndef camera():\n    return [1]\n"
    (tmp_path / "cachedfx.py").write_text(source)
    spec = importlib.util.spec_from_file_location("cachedfx", tmp_path / "cachedfx.py")
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["cachedfx"] = loaded
    try:
        spec.loader.exec_module(loaded)
        assert not inspect.isfunction(loaded.camera)  # what the probe skipped before
        assert [name for name, _, _ in members.public_members(loaded, "cachedfx")] == ["camera"]
    finally:
        del sys.modules["cachedfx"]
