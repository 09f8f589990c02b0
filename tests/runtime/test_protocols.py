"""Protocol-based result codecs: a library's own numbers, arrays, paths, dates, records and
containers become JSON through the protocols they implement, before a handle."""

from __future__ import annotations

import collections.abc
import json
import numbers
from decimal import Decimal, localcontext
from typing import Any

import pytest

from metaserver.runtime.codecs import from_json, to_json
from metaserver.runtime.decode import decode
from metaserver.runtime.handles import HandleTable


class BigReal:
    """An arbitrary-precision real, registered with numbers.Real like gmpy2's mpfr."""

    def __init__(self, text: str) -> None:
        self.value = Decimal(text)

    def __float__(self) -> float:
        return float(self.value)

    def __eq__(self, other: object) -> bool:
        with localcontext() as context:
            context.prec = 100
            return isinstance(other, (int, float)) and self.value == Decimal(other)

    __hash__ = object.__hash__

    def __str__(self) -> str:
        return str(self.value)

    def __repr__(self) -> str:
        return f"real('{self.value}')"


numbers.Real.register(BigReal)


class BigInt:
    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


class Ratio:
    def __init__(self, numerator: int, denominator: int) -> None:
        self.numerator, self.denominator = numerator, denominator


numbers.Rational.register(Ratio)


class Phasor:
    def __complex__(self) -> complex:
        return complex(1, -2)


class Grid:
    """An array-like: __array__ and tolist, like many array libraries."""

    def __array__(self) -> Any:  # pragma: no cover - numpy is not imported here
        raise AssertionError("tolist is preferred")

    def tolist(self) -> list[list[int]]:
        return [[1, 2], [3, 4]]


class Bits:
    def tolist(self) -> list[int]:
        return [1, 0, 1]


class Where:
    def __fspath__(self) -> str:
        return "data/in.csv"


class Moment:
    def isoformat(self) -> str:
        return "2024-05-01T12:00:00+02:00"


class Row:
    def _asdict(self) -> dict[str, Any]:
        return {"id": BigInt(7), "when": Moment()}


class Model:
    def to_dict(self) -> dict[str, Any]:
        return {"weights": Bits(), "name": "m"}


class Broken:
    def to_dict(self) -> dict[str, Any]:
        raise RuntimeError("needs a session")


class Table(collections.abc.Mapping[str, int]):
    def __getitem__(self, key: str) -> int:
        return {"a": 1, "b": 2}[key]

    def __iter__(self) -> Any:
        return iter(["a", "b"])

    def __len__(self) -> int:
        return 2


class Ordered(collections.abc.Sequence[int]):
    def __getitem__(self, index: Any) -> Any:
        return [3, 1, 2][index]

    def __len__(self) -> int:
        return 3


class Members(collections.abc.Set[int]):
    def __contains__(self, item: object) -> bool:
        return item in (1, 2)

    def __iter__(self) -> Any:
        return iter([1, 2])

    def __len__(self) -> int:
        return 2


class Meters:
    """A quantity with units: no float without losing them, so it says no."""

    def __float__(self) -> float:
        raise TypeError("cannot convert a length to a float")


class Scorer:
    """A callable object is meant to be called later: a handle, even with tolist."""

    def __call__(self, x: int) -> int:
        return x

    def tolist(self) -> list[int]:
        return [1]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (BigReal("0.5"), 0.5),  # a float holds it exactly: just the number
        (
            BigReal("3.14159265358979323846264338327950288"),
            {"number": 3.141592653589793, "text": "3.14159265358979323846264338327950288"},
        ),
        (BigInt(10**30), 10**30),  # an integer stays an integer, however large
        (Ratio(1, 3), "1/3"),
        (Ratio(6, 1), 6),
        (Phasor(), {"real": 1.0, "imag": -2.0}),
        (Grid(), [[1, 2], [3, 4]]),
        (Bits(), [1, 0, 1]),
        (Where(), "data/in.csv"),
        (Moment(), "2024-05-01T12:00:00+02:00"),
        (Row(), {"id": 7, "when": "2024-05-01T12:00:00+02:00"}),
        (Model(), {"weights": [1, 0, 1], "name": "m"}),
        (Table(), {"a": 1, "b": 2}),
        (Ordered(), [3, 1, 2]),
        (Members(), [1, 2]),
    ],
)
def test_protocols_give_plain_json(value: object, expected: Any) -> None:
    out = to_json(value, HandleTable())
    assert out == expected
    json.dumps(out, allow_nan=False)
    if isinstance(expected, int):
        assert type(out) is int


@pytest.mark.parametrize("value", [Broken(), Meters(), Scorer(), BigReal, object()])
def test_objects_without_a_working_protocol_stay_handles(value: object) -> None:
    table = HandleTable()
    out = to_json(value, table)
    assert set(out) == {"handle", "type", "repr"}
    assert from_json(out, table) is value


def test_a_real_returned_exactly_decodes_back_to_its_digits() -> None:
    table = HandleTable()
    digits = "2.71828182845904523536028747135266249775724709369995"
    out = to_json(BigReal(digits), table)
    assert decode(out, "decimal", table) == Decimal(digits)
    rebuilt = decode(out, f"new:{__name__}:BigReal", table)
    assert isinstance(rebuilt, BigReal) and str(rebuilt) == digits


def test_gmpy2_numbers_if_installed() -> None:
    gmpy2 = pytest.importorskip("gmpy2")
    table = HandleTable()
    assert to_json(gmpy2.mpz(2) ** 100, table) == 2**100
    assert to_json(gmpy2.mpq(1, 3), table) == "1/3"
    assert to_json(gmpy2.mpfr("1.5"), table) == 1.5
    out = to_json(gmpy2.mpfr("3.14159265358979323846264338327950288", 200), table)
    assert out["number"] == pytest.approx(3.141592653589793)
    assert out["text"].startswith("3.14159265358979323846264338327950288")
