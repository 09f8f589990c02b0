"""README coverage: the entry points README and guides call, and which became passed tools."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import metaserver.agents.repo_docs.usage as usage_module
from metaserver.agents.repo_docs.coverage import readme_coverage, short_name
from metaserver.agents.repo_docs.usage import Usage, documented_names, mine_usage
from metaserver.contracts import ToolSpec

README = """\
# geo

```python
import geo
g = geo.Grid("A1")
print(g.code(), helper(2))
geo.distance(1, 2)
```
"""

QUICKSTART_RST = """\
Quickstart
==========

.. code-block:: python

    import geo
    geo.bearing(0, 90)
    geo.distance(3, 4)

More prose.
"""

REFERENCE_RST = """\
.. code-block:: python

    geo.internal_table()
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_documented_names_follow_reading_order_readme_first(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "docs/quickstart.rst": QUICKSTART_RST,
            "docs/api_reference.rst": REFERENCE_RST,  # a reference page, not a guide
            "README.md": README,
            "tests/test_geo.py": "import geo\ngeo.secret(1)\n",  # tests are not documentation
        },
    )
    wanted = {"Grid", "code", "distance", "bearing", "internal_table", "secret"}
    assert documented_names(tmp_path, wanted) == ["Grid", "code", "distance", "bearing"]
    # mine_usage carries the same list, and rst code blocks now count as usage too
    usage = mine_usage(tmp_path, wanted)
    assert usage.documented == ["Grid", "code", "distance", "bearing"]
    assert usage.counts["bearing"] == 1
    assert [c.args for c in usage.calls["bearing"]] == [[0, 90]]


def test_doctest_lines_count_even_when_their_output_is_not_python(tmp_path: Path) -> None:
    write(tmp_path, {"README.rst": ">>> mpfr('1.5')\nmpfr('1.5')\n>>> sqrt(2)\n<object at 0x1>\n"})
    assert documented_names(tmp_path, {"mpfr", "sqrt"}) == ["mpfr", "sqrt"]


def spec(target: str, kind: str = "function") -> ToolSpec:
    return ToolSpec(
        name=target.replace(":", "_"), description="", target=target, parameters=[], kind=kind
    )  # type: ignore[arg-type]


def test_coverage_counts_functions_methods_and_constructors() -> None:
    usage = Usage(documented=["Grid", "code", "distance", "bearing"])
    passed = [
        spec("geo:Grid", "constructor"),
        spec("geo.core:Grid.code", "method"),
        spec("geo.core:distance"),
        spec("geo.core:unrelated"),
    ]
    coverage = readme_coverage(usage, passed)
    assert coverage.documented == ["Grid", "code", "distance", "bearing"]
    assert coverage.covered == ["Grid", "code", "distance"]
    assert coverage.ratio == 0.75


def test_coverage_without_documentation_has_no_ratio() -> None:
    assert readme_coverage(Usage(), [spec("geo:distance")]).ratio is None
    assert readme_coverage(None, []).documented == []


def test_short_name() -> None:
    assert short_name("pkg.mod:Class.method") == "method"
    assert short_name("pkg:Class") == "Class"
    assert short_name("pkg.mod.func") == "func"


def test_fences_pair_line_by_line_and_other_languages_are_not_python(tmp_path: Path) -> None:
    readme = (
        "```bash\npip install geo\n```\n\n"
        "Prose that calls nothing(1) between fences.\n\n"
        "```python\nimport geo\ngeo.distance(1, 2)\n```\n\n"
        "~~~\ngeo.bearing(0, 1)\n~~~\n"
        "```console\n$ geo-cli helper(3)\n```\n"
    )
    write(tmp_path, {"README.md": readme})
    wanted = {"nothing", "distance", "bearing", "helper", "install"}
    assert documented_names(tmp_path, wanted) == ["distance", "bearing"]


def test_guides_are_found_after_a_large_test_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"a_tests/test_{i}.py": "import geo\n" for i in range(5)}
    files["docs/tutorial.rst"] = QUICKSTART_RST
    write(tmp_path, files)
    # the usage walk stops after MAX_FILES; the guides' walk is separate
    monkeypatch.setattr(usage_module, "MAX_FILES", 3)
    assert documented_names(tmp_path, {"bearing", "distance"}) == ["bearing", "distance"]


def test_a_bare_call_is_never_a_method_and_file_readers_are_listed_apart(tmp_path: Path) -> None:
    readme = (
        "```python\n"
        "for i in range(3):\n"  # the builtin: range is only a method of the package
        "    grid.range(i)\n"  # ...called on an object here
        "image = geo.read_image('tile.png')\n"
        "table = geo.load('https://example.org/t')\n"
        "table = geo.load([1, 2])\n"  # one call without a file: load stays counted
        "geo.distance(1, 2)\n"
        "```\n"
    )
    write(tmp_path, {"README.md": readme})
    wanted = {"range", "read_image", "load", "distance"}
    usage = mine_usage(tmp_path, wanted, methods={"range"})
    assert usage.documented == ["range", "read_image", "load", "distance"]
    assert usage.reads_files == ["read_image"]
    assert documented_names(tmp_path, wanted - {"range"}, methods={"range"}) == [
        "read_image",
        "load",
        "distance",
    ]
    bare = "```python\nrange(3)\n```\n"
    write(tmp_path, {"README.md": bare})
    assert mine_usage(tmp_path, wanted, methods={"range"}).documented == []

    coverage = readme_coverage(usage, [spec("geo:distance"), spec("geo:read_image")])
    # read_image is listed and covered, but the ratio counts what a sandboxed tool can run
    assert coverage.covered == ["read_image", "distance"]
    assert coverage.reads_files == ["read_image"]
    assert coverage.ratio == round(1 / 3, 3)


def test_a_name_that_only_reaches_the_network_is_listed_apart() -> None:
    from metaserver.contracts import Candidate

    def found(target: str, dangerous: str | None) -> Candidate:
        name = target.partition(":")[2]
        return Candidate(
            target=target, name=name, signature=f"{name}()", parameters=[], dangerous=dangerous
        )

    usage = Usage(documented=["fetch_tmy", "distance"])
    candidates = [found("geo.io:fetch_tmy", "calls requests.get"), found("geo:distance", None)]
    coverage = readme_coverage(usage, [spec("geo:distance")], candidates)
    assert coverage.reads_files == ["fetch_tmy"]
    assert coverage.ratio == 1.0


def test_a_method_called_on_a_literal_is_the_builtin_types(tmp_path: Path) -> None:
    readme = (
        ">>> x = geo.point(1, 2)\n"
        ">>> print('{:.2f}'.format(x))\n"  # str.format, not the package's format
        ">>> print(', '.join([x.label()]))\n"
        ">>> print(f'{x}'.upper(), [1].count(1))\n"
        ">>> print(x.format('short'))\n"  # the package's method, on its object
    )
    write(tmp_path, {"README.md": readme})
    wanted = {"point", "format", "join", "label", "upper", "count"}
    assert mine_usage(tmp_path, wanted).documented == ["point", "label", "format"]
    write(tmp_path, {"README.md": ">>> print('{:.2f}'.format(geo.point(1, 2)))\n"})
    assert mine_usage(tmp_path, wanted).documented == ["point"]


def test_every_documented_name_out_of_reach_leaves_no_ratio() -> None:
    from metaserver.contracts import Candidate

    usage = Usage(documented=["get_tmy", "read_sam"], reads_files=["read_sam"])
    fetcher = Candidate(
        target="geo.io:get_tmy", name="get_tmy", signature="get_tmy()", parameters=[],
        dangerous="calls requests.get",
    )  # fmt: skip
    coverage = readme_coverage(usage, [spec("geo:distance")], [fetcher])
    assert coverage.reads_files == ["read_sam", "get_tmy"]
    assert coverage.covered == []
    assert coverage.ratio is None  # not 0.0: nothing a sandboxed tool could run is documented


def test_a_documented_name_resolves_through_the_guides_own_imports(tmp_path: Path) -> None:
    from metaserver.contracts import Candidate

    readme = (
        ">>> import numpy as np\n"
        ">>> import geo.units as u\n"
        ">>> import geo\n"
        ">>> from geo.io import write as save\n"
        ">>> shape = geo.shapes.Square(2)\n"  # a module attribute: geo.shapes.Square
        ">>> save('out.xyz', shape)\n"  # the alias of geo.io.write
        ">>> u.convert(1)\n"
        ">>> np.array([1, 2])\n"  # numpy's array, not the package's
        ">>> shape.area()\n"  # a method of what an imported class built
        ">>> np.zeros(2).sum()\n"  # another library's object: no path
    )
    write(tmp_path, {"README.md": readme})
    wanted = {"Square", "write", "save", "convert", "array", "area", "sum"}
    usage = mine_usage(tmp_path, wanted, packages={"geo"})
    assert usage.documented == ["Square", "write", "convert", "area", "sum"]
    assert usage.paths == {
        "Square": ["geo.shapes.Square"],
        "write": ["geo.io.write"],
        "convert": ["geo.units.convert"],
        "area": ["geo.shapes.Square.area"],
    }
    # without the package's name, numpy's call still counts (as before), by its path
    assert mine_usage(tmp_path, wanted).paths["array"] == ["numpy.array"]

    def found(target: str, aliases: tuple[str, ...] = ()) -> Candidate:
        name = target.partition(":")[2]
        return Candidate(
            target=target, name=name, signature=f"{name}()", parameters=[], aliases=list(aliases)
        )

    other = found("geo.calc.aims:write")  # another function of the same short name
    documented = found("geo.io.formats:write", ("geo.io:write",))  # listed deeper, alias
    square = found("geo.shapes:Square")
    circle = found("geo.round:Circle.area")  # another class's area
    candidates = [other, documented, square, found("geo.shapes:Square.area"), circle]
    passed = [spec(other.target), spec(square.target), spec(circle.target)]
    coverage = readme_coverage(usage, passed, candidates)
    assert coverage.covered == ["Square"]  # the other write and area cover nothing
    passed = [spec("geo.io:write"), spec(square.target), spec("geo.shapes:Square.area")]
    coverage = readme_coverage(usage, passed, candidates)
    assert coverage.covered == ["Square", "write", "area"]  # the documented write: its alias
    # a path no candidate is listed under: the short name decides, as without imports
    coverage = readme_coverage(usage, [spec("geo.misc:convert")], candidates)
    assert coverage.covered == ["convert"]


def test_a_name_with_any_extension_is_a_file_where_the_parameter_takes_one(
    tmp_path: Path,
) -> None:
    from metaserver.agents.repo_docs.file_arguments import file_parameters
    from metaserver.contracts import Candidate, CodeReport, Parameter

    def found(target: str, *names: str, kind: str = "function") -> Candidate:
        name = target.partition(":")[2]
        parameters = [Parameter(name=n, kind="positional_or_keyword") for n in names]
        return Candidate(
            target=target,
            name=name,
            signature=f"{name}()",
            parameters=parameters,
            positional=list(names),
            kind=kind,  # type: ignore[arg-type]
        )

    code = CodeReport(
        packages=["geo"],
        candidates=[
            found("geo.io:read", "filename", "index"),
            found("geo.io:write", "filename", "images"),
            found("geo:lookup", "key"),
            found("geo:Grid.load", "self", "path", kind="method"),
        ],
    )
    files = file_parameters(code)
    assert files["read"].positions == {0} and files["load"].positions == {0}
    assert "lookup" not in files
    readme = (
        ">>> import geo\n"
        ">>> from geo.io import read, write\n"
        ">>> grid = read('tile.grd')\n"  # an extension of no known kind, a file parameter
        ">>> write('H2.xyz', grid)\n"  # a writer's file is its output: a tool makes it
        ">>> geo.lookup('geo.units')\n"  # a dotted name where no file is taken
        ">>> geo.Grid().load(path='run.traj')\n"
    )
    write(tmp_path, {"README.md": readme})
    wanted = {"read", "write", "lookup", "load", "Grid"}
    usage = mine_usage(tmp_path, wanted, packages={"geo"}, files=files)
    assert usage.documented == ["read", "write", "lookup", "load", "Grid"]
    assert usage.reads_files == ["read", "load"]
    # without knowing the parameters, neither extension is a file
    assert mine_usage(tmp_path, wanted, packages={"geo"}).reads_files == []


def test_a_name_the_probe_did_not_list_where_the_guide_calls_it_is_nobody_elses() -> None:
    from metaserver.agents.repo_docs.guide_paths import pinned_paths
    from metaserver.contracts import Candidate

    def found(target: str) -> Candidate:
        name = target.partition(":")[2]
        return Candidate(target=target, name=name, signature=f"{name}()", parameters=[])

    usage = Usage(
        documented=["energy", "convert"],
        paths={"energy": ["geo.Shape.energy"], "convert": ["geo.units.convert"]},
    )
    # Shape is listed, its energy is not (a cap on methods): Engine's energy is not it
    shape = found("geo:Shape").model_copy(update={"kind": "constructor"})
    candidates = [shape, found("geo.calc:Engine.energy"), found("geo:convert")]
    assert pinned_paths(usage, candidates) == {"energy": set()}  # geo.units: never walked
    coverage = readme_coverage(
        usage, [spec("geo.calc:Engine.energy"), spec("geo:convert")], candidates
    )
    assert coverage.covered == ["convert"]


def test_a_method_resolves_through_any_path_of_its_class_and_a_functions_result_is_loose() -> None:
    from metaserver.agents.repo_docs.guide_paths import pinned_paths
    from metaserver.contracts import Candidate

    def found(target: str, kind: str = "function", **extra: object) -> Candidate:
        name = target.partition(":")[2]
        return Candidate.model_validate(
            {"target": target, "name": name, "signature": "f()", "parameters": [], "kind": kind}
            | extra
        )

    box = found("geo.box:Box", "constructor", aliases=["geo:Box"])
    get = found("geo.box:Box.get", "method", owner="geo.box:Box")
    other = found("geo.other:Crate.get", "method", owner="geo.other:Crate")
    closed = found("geo:closed")
    replace = found("geo.box:Box.replace", "method", owner="geo.box:Box")
    usage = Usage(
        documented=["get", "replace"],
        # ``import geo; b = geo.Box(); b.get()`` and ``x = geo.closed(0, 1); x.replace()``
        paths={"get": ["geo.Box.get"], "replace": ["geo.closed.replace"]},
    )
    pinned = pinned_paths(usage, [box, get, other, closed, replace])
    assert pinned == {"get": {"geo.box.Box.get", "geo.Box.get"}}  # replace: short name
    coverage = readme_coverage(
        usage, [spec(other.target), spec(replace.target)], [box, get, other, closed, replace]
    )
    assert coverage.covered == ["replace"]


def test_a_name_whose_tool_needs_an_absent_program_is_listed_apart() -> None:
    usage = Usage(documented=["Solver", "energy", "distance", "bearing"])
    passed = [spec("geo:Solver", "constructor"), spec("geo:distance")]
    # energy failed only for an uninstalled program; bearing failed for our own reasons
    coverage = readme_coverage(usage, passed, needs_programs=["geo:Solver.energy"])
    assert coverage.needs_programs == ["energy"]
    assert coverage.ratio == round(2 / 3, 3)  # Solver and distance of Solver, distance, bearing
    # a name another passed tool covers is covered, not set apart
    both = readme_coverage(
        usage, [*passed, spec("geo:Other.energy", "method")], [], ["geo:x.energy"]
    )
    assert both.needs_programs == [] and "energy" in both.covered
