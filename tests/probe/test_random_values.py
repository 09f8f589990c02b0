"""Arrays a session draws from a seeded random stream, drawn again from the seed, while the
order of draws is known (probe/random_values.py, through ``examples.Literals``).

numpy is no metaserver dependency: the probe helper runs where it runs in production, in an
environment that has it (``science_python``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from science import PROBE, PROBE_PRELUDE, run_json

SCRIPT = (
    PROBE_PRELUDE
    + r"""
import numpy as np
from metaserver_probe.examples import Literals

def session(lines):
    namespace = {"np": np, "stats": json, "standard_normal": np.random.standard_normal}
    literals = Literals(namespace)
    for line in lines:
        literals.note(ast.parse(line).body[0])
    return {
        name: [ast.literal_eval(node), getattr(node, "codec", None)]
        for name, node in literals.nodes.items()
    }

np.random.seed(123)
x = np.random.normal(loc=7, size=3)
y = np.random.randint(0, 9, size=2)
rng = np.random.default_rng(42)
a, b = rng.multivariate_normal([0, 1], [[1, 0.5], [0.5, 1]], 4).T
np.random.seed(7)
z = np.random.standard_normal((2, 3))
out = {
    "expected": {
        "x": x.tolist(), "y": y.tolist(), "a": a.tolist(), "b": b.tolist(), "z": z.tolist()
    },
    "global": session([
        "np.random.seed(123)",
        "x = np.random.normal(loc=7, size=3)",
        "y = np.random.randint(0, 9, size=2)",
    ]),
    "named": session([
        "mean, cov = [0, 1], [[1, 0.5], [0.5, 1]]",
        "prng = rng = np.random.default_rng(42)",
        "a, b = rng.multivariate_normal(mean, cov, 4).T",
    ]),
    # a library call may read the global stream: what is drawn after it is unknown
    "after_call": session([
        "np.random.seed(123)",
        "stats.dumps(1)",
        "x = np.random.normal(size=3)",
    ]),
    # a generator handed to a call has moved on by an unknown number of draws
    "handed": session([
        "rng = np.random.default_rng(42)",
        "stats.dumps(rng)",
        "x = rng.normal(size=3)",
    ]),
    "unseeded": session(["x = np.random.normal(size=3)", "r = np.random.default_rng()"]),
    # ``from numpy.random import standard_normal``: the global stream's draw, by its name
    "by_name": session(["np.random.seed(7)", "z = standard_normal((2, 3))"]),
}
print(json.dumps(out))
"""
)


@pytest.mark.integration
def test_seeded_draws_are_drawn_again_while_their_order_is_known(
    science_python: Path, tmp_path: Path
) -> None:
    out = run_json(science_python, SCRIPT, tmp_path, str(PROBE))
    expected = out["expected"]
    assert out["global"]["x"] == [expected["x"], "numpy:float64"]
    assert out["global"]["y"] == [expected["y"], "numpy:int64"]
    assert out["named"]["a"] == [expected["a"], "numpy:float64"]
    assert out["named"]["b"] == [expected["b"], "numpy:float64"]
    assert "x" not in out["after_call"] and "x" not in out["handed"]
    assert out["unseeded"] == {}
    assert out["by_name"]["z"] == [expected["z"], "numpy:float64"]
