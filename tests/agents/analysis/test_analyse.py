"""probe_package: the probe run through the sandbox in the target's own environment."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from fixture_repos import shared_calc

from metaserver.agents.analysis.analyse import missing_modules, probe_package
from metaserver.agents.environment.build import build_environment
from metaserver.contracts import CodeReport, Environment, SkippedCallable, Source, Workspace
from metaserver.exceptions import AnalysisError, SandboxTimeout, UntoolableError
from metaserver.registry.files import entry_of, sweep_home
from metaserver.registry.locks import ConversionLease
from metaserver.registry.store import Registry
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

CALC_FUNCTIONS = {"add", "clamp", "fibonacci", "mean", "slugify", "word_counts"}


def workspace(path: Path, distribution: str | None = None) -> Workspace:
    source = Source(kind="local", location=str(path), original=str(path))
    return Workspace(source=source, path=path, distribution=distribution)


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, Environment, Settings]:
    """The fixture repository and its environment, built once per session and then restored
    from the environment cache (test_validate shares it)."""
    space, settings = shared_calc(tmp_path_factory)
    venv = settings.environments_dir / "calcpack-analysis"
    environment = asyncio.run(
        build_environment(space, venv, settings, get_sandbox(settings.sandbox))
    )
    return space, environment, settings


@pytest.fixture(scope="module")
def calc_report(calc: tuple[Workspace, Environment, Settings]) -> CodeReport:
    space, environment, settings = calc
    return asyncio.run(probe_package(space, environment, settings, get_sandbox(settings.sandbox)))


def test_finds_the_six_functions(calc_report: CodeReport) -> None:
    assert calc_report.packages == ["calcpack"]
    functions = [c for c in calc_report.candidates if c.kind == "function"]
    assert {c.name for c in functions} == CALC_FUNCTIONS
    assert all(c.target == f"calcpack:{c.name}" for c in functions)
    assert all(c.in_all and c.top_level for c in functions)


def test_every_function_has_a_doctest_with_an_expected_value(calc_report: CodeReport) -> None:
    examples = {c.name: c.examples[0] for c in calc_report.candidates if c.name in CALC_FUNCTIONS}
    assert set(examples) == CALC_FUNCTIONS
    assert all(e.has_expected and e.origin == "doctest" for e in examples.values())
    assert (examples["add"].arguments, examples["add"].expected) == ({"a": 2, "b": 3}, 5)
    assert examples["fibonacci"].expected == [0, 1, 1, 2, 3, 5, 8]
    assert examples["word_counts"].expected == {"a": 2, "b": 1}
    assert examples["clamp"].arguments == {"x": 1.5}


def test_parameters_and_docs(calc_report: CodeReport) -> None:
    by_name = {c.name: c for c in calc_report.candidates}
    add = {p.name: p for p in by_name["add"].parameters}
    assert add["a"].json_schema == {"type": "integer", "description": "the first addend."}
    clamp = {p.name: p for p in by_name["clamp"].parameters}
    assert (clamp["low"].required, clamp["low"].default) == (False, 0.0)
    assert by_name["mean"].summary == "The arithmetic mean of some numbers."


def test_probe_leaves_no_scratch_files(
    calc: tuple[Workspace, Environment, Settings], calc_report: CodeReport
) -> None:
    _, environment, _ = calc
    assert not list(environment.venv.parent.glob(f".{environment.venv.name}.probe-*"))


def plain_environment(tmp_path: Path) -> Environment:
    """A tree on the path of this very interpreter: enough for the probe's failure modes."""
    return Environment(
        ok=True,
        strategy="requirements+path",
        python="3.11",
        python_path=Path(sys.executable),
        venv=tmp_path / "venv",
        seconds=0.0,
    )


def tree_with(tmp_path: Path, files: dict[str, str]) -> Workspace:
    tree = tmp_path / "tree"
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    (tmp_path / "venv").mkdir()
    return workspace(tree)


async def test_a_package_whose_import_raises(tmp_path: Path, settings: Settings) -> None:
    space = tree_with(tmp_path, {"explodes/__init__.py": "raise RuntimeError('kaboom')\n"})
    with pytest.raises(AnalysisError) as raised:
        await probe_package(
            space, plain_environment(tmp_path), settings, get_sandbox(settings.sandbox)
        )
    assert "kaboom" in str(raised.value)
    assert raised.value.failure_type == "import_error"
    assert not isinstance(raised.value, UntoolableError)


async def test_a_package_with_no_usable_callable_is_untoolable(
    tmp_path: Path, settings: Settings
) -> None:
    # Constants, a private function, a stdlib re-export, and a class no tool can build.
    classy = """\
from os.path import join

CONSTANT = 3


class Secretive:
    def __init__(self, _token):
        self._token = _token

    def _internal(self):
        return 1


def _hidden():
    pass
"""
    space = tree_with(tmp_path, {"classy/__init__.py": classy})
    with pytest.raises(UntoolableError) as raised:
        await probe_package(
            space, plain_environment(tmp_path), settings, get_sandbox(settings.sandbox)
        )
    assert raised.value.failure_type == "untoolable_repo"


async def test_nothing_importable(tmp_path: Path, settings: Settings) -> None:
    space = tree_with(tmp_path, {"README.md": "nothing here\n"})
    with pytest.raises(AnalysisError) as raised:
        await probe_package(
            space, plain_environment(tmp_path), settings, get_sandbox(settings.sandbox)
        )
    assert not isinstance(raised.value, UntoolableError)


async def test_an_import_that_hangs_times_out(tmp_path: Path, isolated_home: Path) -> None:
    settings = Settings(home=isolated_home, timeouts={"probe": 1})
    space = tree_with(tmp_path, {"slow.py": "import time\ntime.sleep(30)\n"})
    with pytest.raises(SandboxTimeout):
        await probe_package(
            space, plain_environment(tmp_path), settings, get_sandbox(settings.sandbox)
        )


async def test_a_walk_past_the_limit_stops_at_the_probes_budget(
    tmp_path: Path, isolated_home: Path
) -> None:
    """Twenty submodules that take half a second each to import, under a 6 s limit: the
    probe stops walking at its budget (a share of the limit) and writes what it has."""
    settings = Settings(home=isolated_home, timeouts={"probe": 6})
    files = {
        "slowwalk/__init__.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
        "README.md": "```python\n>>> from slowwalk import add\n>>> add(2, 3)\n5\n```\n",
    }
    for n in range(20):
        files[f"slowwalk/m{n:02d}.py"] = (
            f"import time\ntime.sleep(0.5)\ndef f{n}(a):\n    return a\n"
        )
    space = tree_with(tmp_path, files)

    report = await probe_package(
        space, plain_environment(tmp_path), settings, get_sandbox(settings.sandbox)
    )

    assert "slowwalk:add" in {c.target for c in report.candidates}
    assert [u.target for u in report.unread][:1] == ["slowwalk"]
    assert report.unread[0].reason.startswith("modules from slowwalk.m")
    assert "the probe's 4.5 s budget was spent" in report.unread[0].reason


def test_missing_modules_are_those_a_package_itself_could_not_import() -> None:
    report = CodeReport(
        packages=["loud", "quiet"],
        candidates=[],
        skipped=[
            SkippedCallable(target="loud", reason="import failed: No module named 'six.moves'"),
            # A submodule's optional extra does not stop the package: no install for it.
            SkippedCallable(target="quiet.plot", reason="import failed: No module named 'mpl'"),
            # The package's own name is never looked up on the index.
            SkippedCallable(target="quiet", reason="import failed: No module named 'quiet'"),
        ],
    )
    assert missing_modules(report) == ["six"]


async def test_a_sweep_by_another_process_leaves_a_running_probe_its_directory(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # Issue 28 (the soak: a probe "could not write /work/report.json"): the probe's scratch
    # beside the environment was named ``probe-<random>``, which reads as a server entry of
    # a dead conversion, so another conversion's sweep deleted it while the probe ran. It is
    # the conversion's own scratch now (``.<name>-<token>.probe-*``): kept while it lives.
    space, _ = shared_calc(tmp_path_factory)
    settings = Settings(home=tmp_path / "home")
    sandbox = get_sandbox(settings.sandbox)
    venv = settings.environments_dir / "calcpack-sweep1"
    lease = ConversionLease(settings, "sweep1")  # as the converting process holds it
    try:
        environment = await build_environment(space, venv, settings, sandbox)
        probing = asyncio.create_task(probe_package(space, environment, settings, sandbox))
        scratch: list[Path] = []
        while not scratch and not probing.done():
            scratch = [p for p in settings.environments_dir.iterdir() if "probe" in p.name]
            await asyncio.sleep(0.01)
        assert scratch, "the probe ended before its directory was seen"
        registry = Registry(settings.registry_path)
        assert await asyncio.to_thread(sweep_home, settings, registry) == []
        assert entry_of(scratch[0].name) == ("calcpack", "sweep1")
        report = await probing
        assert CALC_FUNCTIONS <= {c.name for c in report.candidates}
        assert not any("probe" in p.name for p in settings.environments_dir.iterdir())
    finally:
        lease.release()
