"""Package constants as arguments: JSON values written in (constants), instances a
module holds passed by name (held, the codec ``held``, runtime/decode)."""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from metaserver.probe.built_arguments import value_examples
from metaserver.probe.examples import examples_for
from metaserver.probe.schemas import parameter_schema
from metaserver.probe.sessions import method_examples
from metaserver.runtime.decode import CodecError, decode
from metaserver.runtime.handles import HandleTable

CLASSES = '''
RATES = {"fast": {"fee": 2, "days": 1}, "slow": {"fee": 1, "days": 5}}
rates = {"fast": {"fee": 9}}


class Coin:
    def __init__(self, code="XXX", cents=100):
        self.code, self.cents = code, cents


class Purse:
    """A purse.

    >>> from cashfx import Purse, EUR, RATES
    >>> p = Purse(3, EUR)
    >>> p.total()
    600
    >>> p.fee(RATES['fast'])
    2
    >>> p.fee(rates['fast'])
    9
    >>> RATES = {"fast": {"fee": 7}}
    >>> p.fee(RATES['fast'])
    7
    """

    def __init__(self, amount=0, coin: "str | Coin | None" = None):
        self.amount, self.coin = amount, coin

    def total(self):
        return self.amount * self.coin.cents

    def fee(self, plan):
        return plan["fee"]


def worth(amount, coin):
    """Worth.

    >>> from cashfx import EUR
    >>> worth(2, EUR)
    400
    >>> worth(2, Coin("ABC", 1))
    2
    """
    return amount * coin.cents
'''

COINS = """
from .classes import Coin

EUR = Coin("EUR", 200)
USD = Coin("USD", 100)
"""


@pytest.fixture
def cashfx(tmp_path: Path) -> Iterator[ModuleType]:
    package = tmp_path / "cashfx"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from .classes import Coin, Purse, worth, RATES\nfrom .coins import EUR, USD\n"
    )
    (package / "classes.py").write_text(CLASSES)
    (package / "coins.py").write_text(COINS)
    sys.path.insert(0, str(tmp_path))
    try:
        import cashfx as loaded

        yield loaded
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.partition(".")[0] == "cashfx"]:
            del sys.modules[name]


def _method(cls: type, name: str) -> tuple[inspect.Signature, set[str]]:
    signature = inspect.signature(getattr(cls, name))
    parameters = list(signature.parameters.values())[1:]
    return signature.replace(parameters=parameters), {p.name for p in parameters}


def test_a_json_constant_path_of_the_package_is_written_into_the_line(cashfx: ModuleType) -> None:
    signature, exposed = _method(cashfx.Purse, "fee")
    doc = cashfx.Purse.__doc__
    found = method_examples(cashfx.Purse, "cashfx.classes:Purse", "fee", doc, signature, exposed)
    # RATES['fast'] is the package's constant; ``rates`` (not a constant's spelling) and
    # the RATES the session rebinds are not (the module's value would show 7 wrongly)
    plans = [(e["arguments"], e["expected"]) for e in found if e["has_expected"]]
    assert plans == [({"plan": {"fee": 2, "days": 1}}, 2)]
    literal = examples_for(
        cashfx.worth,
        {"worth"},
        '>>> worth(RATES["slow"]["days"], 3)\n15\n>>> worth(rates["fast"], 3)\n1\n',
        inspect.signature(cashfx.worth),
        {"amount", "coin"},
    )
    assert [(e["arguments"], e["expected"]) for e in literal] == [({"amount": 5, "coin": 3}, 15)]


def test_a_module_held_instance_builds_the_receiver_by_name(cashfx: ModuleType) -> None:
    signature, exposed = _method(cashfx.Purse, "total")
    doc = cashfx.Purse.__doc__
    (found,) = method_examples(
        cashfx.Purse, "cashfx.classes:Purse", "total", doc, signature, exposed, True
    )
    assert found["expected"] == 600
    assert found["session"][0]["arguments"] == {"amount": 3, "coin": {"attribute": "EUR"}}


def test_a_module_held_instance_is_a_functions_argument(cashfx: ModuleType) -> None:
    func = cashfx.worth
    module = sys.modules["cashfx.classes"]
    found = value_examples(
        func, module, func.__doc__, inspect.signature(func), {"amount", "coin"}, "cashfx"
    )
    held = [e for e in found if not e["session"]]
    assert [(e["arguments"], e["expected"]) for e in held] == [
        ({"amount": 2, "coin": {"attribute": "EUR"}}, 400)
    ]
    assert held[0]["_held"] == {"coin": cashfx.Coin}


def test_a_plain_union_offers_the_held_names_and_decodes_them(cashfx: ModuleType) -> None:
    annotation = typing.get_type_hints(cashfx.Purse.__init__)["coin"]
    schema, codec = parameter_schema(annotation)
    assert codec == "held:cashfx.classes:Coin"
    arm = schema["anyOf"][-1]
    assert arm["properties"]["attribute"]["enum"] == ["EUR", "USD"]
    assert {"type": "string"} in schema["anyOf"]
    handles = HandleTable()
    assert decode({"attribute": "USD"}, codec, handles) is cashfx.USD
    assert decode("USD", codec, handles) == "USD"  # the plain arm passes as it is
    with pytest.raises(CodecError):
        decode({"attribute": "Purse"}, codec, handles)  # a class, not an instance
    # The class's own codec (no plain arm) takes the module-held names as well
    schema, codec = parameter_schema(cashfx.Coin, lambda cls: {"type": "object"})
    assert codec == "new:cashfx.classes:Coin"
    assert schema["anyOf"][-1]["properties"]["attribute"]["enum"] == ["EUR", "USD"]
    assert decode({"attribute": "EUR"}, codec, handles) is cashfx.EUR


def test_a_parameter_typed_object_keeps_its_place_despite_its_default(tmp_path: Path) -> None:
    from metaserver.probe.members import describe_callable

    source = (
        "from decimal import Decimal\n\n\n"
        "def pay(amount: object = Decimal('0.0'), note=Decimal('1')):\n    return amount\n"
    )
    (tmp_path / "objfx.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        import objfx

        candidate, _, _ = describe_callable(objfx.pay, "pay", objfx, True)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("objfx", None)
    # ``object`` says anything goes (Money's ``amount``): the tool takes it, and left out,
    # the callable's own default applies; an untyped one with such a default says nothing
    parameters = {p["name"]: p for p in candidate["parameters"]}
    assert set(parameters) == {"amount"}
    assert parameters["amount"].get("unset_default") is True
