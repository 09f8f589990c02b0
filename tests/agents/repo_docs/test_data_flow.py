"""Calls a guide gives data read from a file, an address or the network: listed with the
names that read files out of the coverage ratio (``needs_data``), only when every call of the
name is one and no passed tool covers it; design still ranks them as documented."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from metaserver.agents.repo_docs.coverage import readme_coverage
from metaserver.agents.repo_docs.data_flow import DataFlow, reaching_names
from metaserver.agents.repo_docs.usage import mine_usage
from metaserver.contracts import Candidate, ToolSpec

README = """\
# solar

```python
import solar
weather = solar.fetch_weather(32.2, -110.9)[0]
site = solar.Site(32.2, -110.9)
chain = solar.Chain(site)
chain.run(weather)
tmy = solar.read_tmy(os.path.join(solar.DATA, "703165TY.csv"))
table = []
for location, frame in zip([(1, 2)], [weather]):
    table.append(frame)
    solar.Site(*location)
solar.summarise(table)
solar.save_plot(site, os.path.join("out", "figure.png"))
solar.shade(0.5)
```

```python
weather = [1, 2, 3]
solar.shade(weather)
```
"""


def _statement_calls(source: str, flow: DataFlow) -> list[str]:
    """The callees of the calls ``flow`` finds given data, in source order."""
    tree = ast.parse(textwrap.dedent(source))
    derived = flow.read(tree)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n) in derived]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    return [ast.unparse(n.func) for n in calls]


def test_data_read_from_outside_follows_assignments_loops_and_mutations() -> None:
    flow = DataFlow(reaching={"fetch"})
    found = _statement_calls(
        """
        rows = []
        for place, raw in zip(places, fetch("http://x")):
            rows.append(raw)
            locate(place)
        table = {}
        table["raw"] = rows
        summary(table)
        for i, item in enumerate(rows):
            show(i, item)
        path = join(here, "data.csv")
        load(path)
        rows = [1, 2]
        clean(rows)
        """,
        flow,
    )
    # the zip's first iterable is plain: ``locate(place)`` takes no data; ``clean`` gets
    # a list of literals after ``rows`` was bound anew.
    assert found == ["zip", "rows.append", "summary", "enumerate", "show", "load"]
    assert "table" in flow.holding and "rows" not in flow.holding


def test_the_next_piece_of_a_text_sees_what_the_last_one_read() -> None:
    flow = DataFlow(files={})
    assert _statement_calls("frame = read_csv('site.csv')", flow) == []
    assert _statement_calls("model.fit(frame)", flow) == ["model.fit"]
    with_receiver = _statement_calls("fitted = Model(frame)\nfitted.predict(3)", flow)
    assert with_receiver == ["Model", "fitted.predict"]


def test_a_name_every_call_of_which_takes_read_data_joins_the_names_that_read_files(
    tmp_path: Path,
) -> None:
    (tmp_path / "README.md").write_text(README)
    order = ["fetch_weather", "Site", "Chain", "run", "read_tmy", "summarise", "save_plot", "shade"]
    wanted = set(order)
    usage = mine_usage(
        tmp_path, wanted, methods={"run"}, packages={"solar"}, reaching={"fetch_weather"}
    )
    assert usage.documented == order
    # ``Chain(site)`` takes a plain object; ``run(weather)`` the fetched data; read_tmy a
    # path built from a file's name; ``summarise`` a list data was appended to. ``save_plot``
    # writes its file (an output), and ``shade`` is called once with plain values too.
    assert usage.takes_data == ["run", "read_tmy", "summarise"]
    assert usage.reads_files == []  # none reads a file named on its own line
    # Without the network name, the fetched value is plain data.
    plain = mine_usage(tmp_path, wanted, methods={"run"}, packages={"solar"})
    assert plain.takes_data == ["read_tmy"]


def test_coverage_leaves_out_names_that_only_take_read_data(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(README)
    candidates = [
        Candidate(
            name="fetch_weather",
            target="solar:fetch_weather",
            signature="(lat, lon)",
            parameters=[],
            dangerous="reaches the network",
        ),
        Candidate(
            name="Site",
            target="solar:Site",
            signature="(lat, lon)",
            parameters=[],
            kind="constructor",
        ),
    ]
    assert reaching_names(candidates) == {"fetch_weather"}
    usage = mine_usage(
        tmp_path,
        {"fetch_weather", "Site", "run", "shade"},
        methods={"run"},
        packages={"solar"},
        reaching=reaching_names(candidates),
    )
    site = ToolSpec(
        name="site_new", description="", target="solar:Site", parameters=[], kind="constructor"
    )
    coverage = readme_coverage(usage, [site], candidates)
    assert coverage.reads_files == ["fetch_weather"]
    assert coverage.needs_data == ["run"]
    assert coverage.ratio == 0.5  # Site, of Site and shade
    # A passed tool bound to such a name covers it, and it counts again.
    run = ToolSpec(name="chain_run", description="", target="solar:Chain.run", parameters=[])
    coverage = readme_coverage(usage, [site, run], candidates)
    assert coverage.needs_data == []
    assert coverage.ratio == round(2 / 3, 3)
