"""with_fields(): the attributes of a handle's object that its tool's documentation reads."""

from __future__ import annotations

import json

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
