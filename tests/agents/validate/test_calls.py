"""validate: every generated tool called through a real MCP client in the sandbox.

Each validation starts the generated server several times (the protocol checks in both eras,
then the calls), so the module validates one server holding every case once, and the tests
read their part of that one run.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fixture_repos import shared_calc

from metaserver.agents.analysis.analyse import probe_package
from metaserver.agents.design.specs import design
from metaserver.agents.environment.build import build_environment
from metaserver.agents.generate.render import generate
from metaserver.agents.validate.calls import validate
from metaserver.contracts import (
    Environment,
    Example,
    Parameter,
    ToolEvidence,
    ToolSpec,
)
from metaserver.exceptions import ValidationError
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

CALC_FUNCTIONS = ["add", "clamp", "fibonacci", "mean", "slugify", "word_counts"]
TOOL_CALL_TIMEOUT = 3
NAP_SECONDS = 10


class Calc:
    """The fixture repository, its environment and its designed tools, made once."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.workspace, home = shared_calc(tmp_path_factory)
        # A short call timeout, so that one slow tool fails fast; the fixture's own
        # functions answer in milliseconds.
        self.settings = Settings(home=home.home, timeouts={"tool_call": TOOL_CALL_TIMEOUT})
        sandbox = get_sandbox(self.settings.sandbox)
        venv = self.settings.environments_dir / "calcpack-validate"

        async def build() -> tuple[Environment, list[ToolSpec]]:
            environment = await build_environment(self.workspace, venv, self.settings, sandbox)
            report = await probe_package(self.workspace, environment, self.settings, sandbox)
            return environment, design(report, max_tools=12)

        self.environment, designed = asyncio.run(build())
        self.specs = [s for s in designed if s.name in CALC_FUNCTIONS]

    def spec(self, name: str) -> ToolSpec:
        return next(s for s in self.specs if s.name == name)

    def server(self, directory: Path, specs: list[ToolSpec]) -> Path:
        return generate(directory, "calcpack", specs, self.workspace, self.environment)


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> Calc:
    return Calc(tmp_path_factory)


def broken_specs(calc: Calc) -> list[ToolSpec]:
    """A wrong documented value, a function that raises, and one that takes too long."""
    wrong = calc.spec("add").model_copy(
        update={
            "name": "add_wrong",
            "examples": [
                Example(arguments={"a": 2, "b": 3}, expected=6, has_expected=True, line="add(2, 3)")
            ],
        }
    )
    # The same disagreement, but the example is ours (found by name, not the line as written).
    guessed = calc.spec("add").model_copy(
        update={
            "name": "add_guessed",
            "examples": [
                Example(arguments={"a": 2, "b": 3}, expected=6, has_expected=True, origin="usage")
            ],
        }
    )
    empty_mean = calc.spec("mean").model_copy(
        update={"name": "mean_empty", "examples": [Example(arguments={"values": []})]}
    )
    nap = ToolSpec(
        name="nap",
        description="Sleep.",
        target="time:sleep",
        parameters=[
            Parameter(name="seconds", kind="positional_only", json_schema={"type": "number"})
        ],
        examples=[Example(arguments={"seconds": NAP_SECONDS})],
    )
    # A call that ends the server's process: every tool after it meets a fresh server.
    die = ToolSpec(
        name="die",
        description="End the process.",
        target="os:_exit",
        parameters=[Parameter(name="n", kind="positional_only", json_schema={"type": "integer"})],
        examples=[Example(arguments={"n": 3})],
    )
    return [wrong, empty_mean, nap, guessed, die]


@pytest.fixture(scope="module")
def outcome(
    calc: Calc, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[ToolSpec], dict[str, ToolEvidence]]:
    """One validation of every case; the slow tool sits between tools that must pass."""
    assert [s.name for s in sorted(calc.specs, key=lambda s: s.name)] == CALC_FUNCTIONS
    wrong, empty_mean, nap, guessed, die = broken_specs(calc)
    fixture_specs = sorted(calc.specs, key=lambda s: s.name)
    specs = [die, *fixture_specs[:2], nap, *fixture_specs[2:], wrong, empty_mean, guessed]
    directory = calc.server(tmp_path_factory.mktemp("validate") / "srv", specs)
    results = asyncio.run(
        validate(
            directory, specs, calc.environment, calc.settings, get_sandbox(calc.settings.sandbox)
        )
    )
    return specs, {r.name: r for r in results}


def test_one_evidence_per_tool_in_order(
    outcome: tuple[list[ToolSpec], dict[str, ToolEvidence]],
) -> None:
    specs, results = outcome
    assert list(results) == [s.name for s in specs]
    assert all(r.target == s.target for s, r in zip(specs, results.values(), strict=True))
    json.dumps([r.model_dump(mode="json") for r in results.values()])


def test_every_fixture_tool_passes_its_expected_value(
    outcome: tuple[list[ToolSpec], dict[str, ToolEvidence]],
) -> None:
    _, results = outcome
    for name in CALC_FUNCTIONS:
        result = results[name]
        assert result.status == "passed", result
        assert result.evidence is not None
        assert result.evidence.check == "expected-value"
        assert result.failure_type is None
        assert result.error is None
    evidence = {name: results[name].evidence for name in CALC_FUNCTIONS}
    assert evidence["add"] is not None
    assert (evidence["add"].arguments, evidence["add"].result) == ({"a": 2, "b": 3}, 5)
    assert evidence["add"].expected == 5
    assert evidence["fibonacci"] is not None
    assert evidence["fibonacci"].result == [0, 1, 1, 2, 3, 5, 8]
    assert evidence["word_counts"] is not None
    assert evidence["word_counts"].result == {"a": 2, "b": 1}
    assert evidence["slugify"] is not None
    assert evidence["slugify"].result == "hello-world"
    assert evidence["clamp"] is not None
    assert evidence["clamp"].result == 1.0


def test_a_wrong_expected_value_the_repositorys_doctest_does_not_show_is_ours(
    outcome: tuple[list[ToolSpec], dict[str, ToolEvidence]],
) -> None:
    # ``add(2, 3)`` -> 6 claims the repository's line, but its docstring shows 5: run
    # unchanged by the standard doctest runner, it passes, so the disagreement is ours.
    # (A documented value that really is wrong: tests/agents/validate/test_verdicts_pipeline.py.)
    _, results = outcome
    mismatch = results["add_wrong"]
    assert mismatch.status == "failed"
    assert mismatch.failure_type == "api_inference_error"
    assert mismatch.evidence is not None
    assert (mismatch.evidence.result, mismatch.evidence.expected) == (5, 6)
    assert mismatch.evidence.check == "expected-value"
    assert mismatch.error is not None
    assert "expected 6" in mismatch.error
    assert "got 5" in mismatch.error
    assert "run unchanged by the standard doctest runner, passes" in mismatch.error


def test_a_disagreement_with_an_example_we_assembled_is_ours(
    outcome: tuple[list[ToolSpec], dict[str, ToolEvidence]],
) -> None:
    _, results = outcome
    guessed = results["add_guessed"]
    assert guessed.status == "failed"
    assert guessed.failure_type == "api_inference_error"
    assert guessed.evidence is not None
    assert guessed.evidence.replay == []


def test_a_function_that_raises_fails_with_its_error(
    outcome: tuple[list[ToolSpec], dict[str, ToolEvidence]],
) -> None:
    _, results = outcome
    raised = results["mean_empty"]
    assert raised.status == "failed"
    assert raised.error is not None
    assert "division by zero" in raised.error
    # No documented result for these arguments: the arguments, not the code, are suspect.
    assert raised.failure_type == "api_inference_error"


def test_a_call_that_kills_the_server_is_charged_alone(
    outcome: tuple[list[ToolSpec], dict[str, ToolEvidence]],
) -> None:
    specs, results = outcome
    assert specs[0].name == "die"
    die = results["die"]
    assert die.status == "failed"
    assert die.error is not None and "restarted" in die.error
    # Not the repository's: no example of its own was replayed.
    assert die.failure_type != "repo_internal_bug"
    assert all(results[name].status == "passed" for name in CALC_FUNCTIONS)


def test_a_slow_tool_times_out_and_the_others_still_pass(
    outcome: tuple[list[ToolSpec], dict[str, ToolEvidence]],
) -> None:
    specs, results = outcome
    nap = results["nap"]
    assert nap.status == "failed"
    assert nap.failure_type == "timeout", nap.error
    after = [s.name for s in specs][[s.name for s in specs].index("nap") + 1 :]
    assert {"fibonacci", "mean", "slugify", "word_counts"} <= set(after)
    assert all(results[name].status == "passed" for name in CALC_FUNCTIONS)


async def test_a_server_that_does_not_start_is_a_validation_error(
    calc: Calc, tmp_path: Path, settings: Settings
) -> None:
    specs = [calc.spec("add")]
    directory = calc.server(tmp_path / "srv", specs)
    (directory / "server.py").write_text("raise SystemExit('no server today')\n")
    with pytest.raises(ValidationError) as raised:
        await validate(directory, specs, calc.environment, settings, get_sandbox(settings.sandbox))
    assert raised.value.failure_type == "mcp_spec_violation"
