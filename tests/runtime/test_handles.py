"""HandleTable: descriptors, lookup errors, LRU eviction, unguessable ids, thread safety."""

from __future__ import annotations

import threading
from collections import OrderedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metaserver.runtime.handles import HandleTable, safe_repr, safe_str, type_name


class Widget:
    def __repr__(self) -> str:
        return "Widget()"


class BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("boom")


class HugeRepr:
    def __repr__(self) -> str:
        return "x" * 10_000


def test_put_returns_descriptor_and_get_returns_same_object() -> None:
    table = HandleTable()
    obj = Widget()
    desc = table.put(obj)
    assert set(desc) == {"handle", "type", "repr"}
    assert desc["handle"].startswith("h_")
    assert desc["type"] == f"{__name__}.Widget"
    assert desc["repr"] == "Widget()"
    assert table.get(desc["handle"]) is obj
    assert len(table) == 1


def test_a_handle_carries_its_text_when_str_is_not_its_repr() -> None:
    class Version:
        def __str__(self) -> str:
            return "1.4"

        def __repr__(self) -> str:
            return "Version(1, 4)"

    class BadStr:
        def __str__(self) -> str:
            raise RuntimeError("no")

    table = HandleTable()
    desc = table.put(Version())
    assert (desc["repr"], desc["text"]) == ("Version(1, 4)", "1.4")
    assert "text" not in table.put(Widget())  # str is its repr: nothing more to say
    assert "text" not in table.put(BadStr())
    assert safe_str("a" * 500) == "a" * 197 + "..."


def test_type_name_uses_qualname() -> None:
    class Inner:
        pass

    assert type_name(Inner()).endswith("test_type_name_uses_qualname.<locals>.Inner")
    assert type_name(3) == "builtins.int"


def test_unknown_handle_raises_clear_key_error() -> None:
    table = HandleTable()
    with pytest.raises(KeyError, match="unknown or expired handle 'h_nope'"):
        table.get("h_nope")


def test_unhashable_handle_id_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="unknown or expired handle"):
        HandleTable().get(["not", "hashable"])  # type: ignore[arg-type]


def test_repr_is_capped_and_never_raises() -> None:
    table = HandleTable()
    assert len(table.put(HugeRepr())["repr"]) == 200
    desc = table.put(BadRepr())
    assert "repr failed: RuntimeError" in desc["repr"]
    assert safe_repr("a" * 50, limit=10) == repr("a" * 50)[:7] + "..."


def test_lru_evicts_least_recently_used() -> None:
    table = HandleTable(capacity=3)
    ha = table.put("a")["handle"]
    hb = table.put("b")["handle"]
    hc = table.put("c")["handle"]
    assert table.get(ha) == "a"  # a becomes most recently used
    hd = table.put("d")["handle"]
    assert len(table) == 3
    assert hb not in table
    assert all(h in table for h in (ha, hc, hd))
    with pytest.raises(KeyError, match="expired"):
        table.get(hb)


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError):
        HandleTable(capacity=0)


def test_ids_are_unique_and_unguessable() -> None:
    table = HandleTable(capacity=5000)
    ids = [table.put(i)["handle"] for i in range(5000)]
    assert len(set(ids)) == len(ids)
    # token_urlsafe(12): 96 random bits, 16 url-safe characters after the prefix
    assert all(len(h) == len("h_") + 16 for h in ids)
    assert len({h[2:6] for h in ids}) > 1000  # not sequential


def test_same_object_twice_gets_two_handles() -> None:
    table = HandleTable()
    obj = Widget()
    first, second = table.put(obj)["handle"], table.put(obj)["handle"]
    assert first != second
    assert table.get(first) is table.get(second) is obj


def test_concurrent_puts_and_gets_keep_the_bound() -> None:
    table = HandleTable(capacity=64)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for i in range(500):
                handle = table.put(i)["handle"]
                try:
                    table.get(handle)
                except KeyError:
                    pass  # evicted by another thread in between: allowed
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(table) == 64


@given(
    capacity=st.integers(min_value=1, max_value=6),
    ops=st.lists(st.one_of(st.just("put"), st.integers(min_value=0, max_value=30)), max_size=60),
)
def test_lru_matches_reference_model(capacity: int, ops: list[str | int]) -> None:
    """Against an OrderedDict model: `put` appends, `get` of a live handle moves it to the end."""
    table = HandleTable(capacity=capacity)
    model: OrderedDict[str, int] = OrderedDict()
    issued: list[str] = []
    for step, op in enumerate(ops):
        if op == "put":
            handle = table.put(step)["handle"]
            issued.append(handle)
            model[handle] = step
            while len(model) > capacity:
                model.popitem(last=False)
        elif issued:
            handle = issued[int(op) % len(issued)]
            if handle in model:
                assert table.get(handle) == model[handle]
                model.move_to_end(handle)
            else:
                with pytest.raises(KeyError):
                    table.get(handle)
        assert len(table) == len(model)
    assert all(h in table for h in model)


def test_holds_id() -> None:
    handles = HandleTable()
    handle_id = handles.put(object())["handle"]
    assert handles.holds_id(handle_id)
    assert not handles.holds_id("h_other")
    assert not handles.holds_id({"handle": handle_id})
    assert not handles.holds_id(handle_id[2:])
