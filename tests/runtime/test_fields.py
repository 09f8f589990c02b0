"""with_fields(): the attributes of a handle's object that its tool's documentation reads."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from metaserver.runtime import HandleTable, invoke
from metaserver.runtime.fields import with_fields


class Fit:
    """A fitted result: attributes, a property that refuses, a method."""

    def __init__(self, data: list[float]) -> None:
        self.nobs = len(data)
        self.params = [min(data), max(data)]
        self.model = object()
        self._cache: dict[str, float] = {}

    @property
    def pvalue(self) -> float:
        raise ValueError("not computed")

    def summary(self) -> str:
        return "fit"


def test_a_kept_result_carries_the_attributes_its_docs_read() -> None:
    handles = HandleTable()
    result = invoke(
        Fit, ["data"], {"data": [1.0, 4.0, 2.0]}, handles, keep=True, shows=["nobs", "params"]
    )
    assert result["fields"] == {"nobs": 3, "params": [1.0, 4.0]}
    assert isinstance(handles.get(result["handle"]), Fit)
    json.dumps(result, allow_nan=False)


def test_only_public_readable_values_are_shown() -> None:
    handles = HandleTable()
    kept = handles.put(Fit([1.0]))
    shown = with_fields(
        kept, ["pvalue", "summary", "_cache", "absent", "model", "nobs"], handles, 1_000
    )
    # a property that raises, a method, a private name and a missing one are left out; an
    # attribute with no JSON form is a handle of its own
    assert list(shown["fields"]) == ["model", "nobs"]
    assert shown["fields"]["model"]["type"] == "builtins.object"
    # no names, or a result that is no handle: unchanged
    assert with_fields(kept, [], handles, 1_000) == kept
    assert with_fields([1, 2], ["nobs"], handles, 1_000) == [1, 2]


def test_a_field_too_large_comes_back_as_a_notice() -> None:
    handles = HandleTable()
    kept = handles.put(Fit(list(range(10))))
    kept_obj = handles.get(kept["handle"])
    kept_obj.params = list(range(200_000))  # type: ignore[attr-defined]
    shown = with_fields(kept, ["params", "nobs"], handles, 10_000_000)
    assert shown["fields"]["params"]["truncated"] is True
    assert shown["fields"]["nobs"] == 10


class Record(Mapping[int, str]):
    """A mapping of raw elements by number whose documentation reads named attributes."""

    def __init__(self, name: str) -> None:
        self._elements = {0x100010: name}

    def __getitem__(self, key: int) -> str:
        return self._elements[key]

    def __iter__(self) -> Iterator[int]:
        return iter(self._elements)

    def __len__(self) -> int:
        return len(self._elements)

    def __contains__(self, key: object) -> bool:  # a name finds its element, as a tag
        return key == "PatientName" or key in self._elements

    @property
    def PatientName(self) -> str:  # named as the library names it
        return self._elements[0x100010]


def load(name: str) -> Record:
    return Record(name)


class Bunch(dict[str, list[int]]):
    """A dict whose keys are also read as attributes (``data.target``)."""

    def __getattr__(self, name: str) -> list[int]:
        return self[name]


def dataset() -> Bunch:
    return Bunch(target=[1, 2])


def test_a_mapping_its_docs_read_attributes_of_is_kept_as_an_object() -> None:
    """``ds = dcmread(path)`` then ``ds.PatientName``: a mapping of raw elements answered as
    its items has no such value; kept as a handle, its fields carry it."""
    handles = HandleTable()
    read = invoke(load, ["name"], {"name": "Doe^John"}, handles, shows=["PatientName"])
    assert read["fields"] == {"PatientName": "Doe^John"}
    assert isinstance(handles.get(read["handle"]), Record)
    # Read for no attribute, or for a method: its items, as before.
    assert invoke(load, ["name"], {"name": "Doe"}, handles) == {"1048592": "Doe"}
    assert invoke(load, ["name"], {"name": "Doe"}, handles, shows=["keys"]) == {"1048592": "Doe"}
    # A key read as an attribute is still an item of the answer (compare.attribute_of).
    assert invoke(dataset, [], {}, handles, shows=["target"]) == {"target": [1, 2]}


class Elements:
    """No ``Mapping``, but keys and items as one has (pydicom's ``Dataset``), answered as
    its items through ``to_dict``."""

    def __init__(self, name: str) -> None:
        self._elements = {"(0010,0010)": name}
        self.PatientName = name

    def keys(self) -> list[str]:
        return list(self._elements)

    def items(self) -> list[tuple[str, str]]:
        return list(self._elements.items())

    def to_dict(self) -> dict[str, str]:
        return dict(self._elements)


def elements(name: str) -> Elements:
    return Elements(name)


def test_an_object_with_keys_and_items_its_docs_read_attributes_of_is_kept_as_an_object() -> None:
    handles = HandleTable()
    read = invoke(elements, ["name"], {"name": "Doe"}, handles, shows=["PatientName"])
    assert read["fields"] == {"PatientName": "Doe"}
    assert invoke(elements, ["name"], {"name": "Doe"}, handles) == {"(0010,0010)": "Doe"}
