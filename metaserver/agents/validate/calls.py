"""Validation stage: call every tool through a real MCP client, and keep the evidence.

The generated server is started exactly as it will be served (``launch.server_command``),
with the environment's interpreter, through the sandbox. Only a tool with evidence is
published (ARCHITECTURE.md decision 5).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shutil
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from pathlib import Path
from typing import Any, Literal

from fastmcp import Client
from jsonschema import Draft202012Validator

from metaserver.agents.generate.documents import MANIFEST
from metaserver.agents.validate.attribution import exact_replay, text_of_itself
from metaserver.agents.validate.classify import classify
from metaserver.agents.validate.compare import (
    attribute_of,
    ellipsis_match,
    iso_moment,
    item_of,
    matches,
    normalise,
)
from metaserver.agents.validate.doctest_replay import confirm_verdicts
from metaserver.agents.validate.network import network_needed
from metaserver.agents.validate.notebook_outputs import compare_outputs
from metaserver.agents.validate.notebook_run import (
    lone_variations,
    other_kinds,
    reference_outputs,
    reproduction,
    varied_arguments,
)
from metaserver.agents.validate.programs import missing_program
from metaserver.agents.validate.protocol import documents_problems, listing_problems
from metaserver.agents.validate.result_reads import read_result
from metaserver.agents.validate.sessions import SessionError, replay_session
from metaserver.agents.validate.tables import table_differences
from metaserver.agents.validate.text_forms import plain_reprs
from metaserver.agents.validate.tutorial_budget import TutorialClock, runs_of
from metaserver.agents.validate.watch import calling
from metaserver.children.launch import error_text, result_value, server_command, stdio_transport
from metaserver.contracts import JSON, Environment, Evidence, Example, ToolEvidence, ToolSpec
from metaserver.exceptions import FailureType, ValidationError
from metaserver.sandbox import Sandbox
from metaserver.settings import Settings

logger = logging.getLogger(__name__)

MAX_ERROR = 600
MAX_ATTEMPTS = 6
MAX_SETUP_ATTEMPTS = 3
"""Attempts on a receiver another method of its class set up (repair/prepared.py), tried
before a repair's MAX_ATTEMPTS others and on top of them: taking their places put off the
round in which a tool is dropped, and with it the stand-in that replaces it."""
Era = Literal["legacy", "2026-07-28"]


@asynccontextmanager
async def connect(
    server_dir: Path,
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    era: Era = "legacy",
) -> AsyncIterator[Client[Any]]:
    """A connected MCP client for the generated server, in one protocol era."""
    command = server_command(
        sandbox, environment.python_path, server_dir, settings.timeouts.server_start
    )
    client: Client[Any] = Client(
        stdio_transport(command, keep_alive=False),
        mode=era,
        init_timeout=settings.timeouts.server_start,
        # The session default also bounds `initialize` and `tools/list`, so it is the start
        # budget; each tool call passes its own (shorter) timeout explicitly.
        timeout=settings.timeouts.server_start,
    )
    try:
        async with client:
            yield client
    except ValidationError:
        raise
    except Exception as exc:
        if isinstance(exc, ExceptionGroup):
            exc = exc.exceptions[0]
        raise ValidationError(f"the generated server did not start or answer: {exc}") from exc


async def check_protocol(
    server_dir: Path,
    specs: list[ToolSpec],
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    eras: tuple[Era, ...] = ("legacy", "2026-07-28"),
) -> None:
    """The server lists exactly ``specs``, with valid names and schemas, and the resources
    and prompts of its ``documents.json``, well-formed, in each era.

    Raises:
        ValidationError: ``mcp_spec_violation`` with every problem found.
    """
    manifest_path = server_dir / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}

    async def check(era: Era) -> None:
        async with connect(server_dir, environment, settings, sandbox, era) as client:
            _check_listing(await client.list_tools(), specs, era)
            problems = documents_problems(
                await client.list_resources(),
                await client.list_resource_templates(),
                await client.list_prompts(),
                manifest,
            )
            if problems:
                raise ValidationError(f"[{era}] " + "; ".join(problems))

    # One server process per era (a session is one initialize), started together: most of
    # each check is the server's start.
    try:
        async with asyncio.TaskGroup() as group:
            for era in eras:
                group.create_task(check(era))
    except ExceptionGroup as failed:
        raise failed.exceptions[0] from None


def _check_listing(tools: list[Any], specs: list[ToolSpec], era: str) -> None:
    expected = {spec.name for spec in specs}
    problems = listing_problems(tools)
    listed = {tool.name for tool in tools}
    if listed != expected:
        problems.append(f"lists {sorted(listed)}, generated {sorted(expected)}")
    if problems:
        raise ValidationError(f"[{era}] " + "; ".join(problems))


async def validate(
    server_dir: Path,
    specs: list[ToolSpec],
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    attempts: dict[str, list[Example]] | None = None,
    only: set[str] | None = None,
    tutorials: TutorialClock | None = None,
) -> list[ToolEvidence]:
    """Call each tool (or those named in ``only``); one ToolEvidence per call, in order.

    Tutorial tools share the time on ``tutorials`` (one per conversion, kept over the
    rounds; a fresh one of ``settings.timeouts.tutorials`` when None): each starts only
    while some is left, and one that cannot is dropped with that reason, not run.

    Each tool is called with the examples in ``attempts`` (default: its best example), in
    order, until one passes. A disagreeing documented value or a timeout ends the attempts:
    the first is a finding, the second would only cost more time.

    A call that kills the server, or leaves it without an answer (a timeout, no ping), is
    charged to its tool alone: the tools after it are called on a new server.

    Its ``repo_internal_bug`` verdicts stand only where the standard doctest runner agrees
    (``doctest_replay.confirm_verdicts``).

    The listing is checked in the session that makes the calls (legacy era) and, on a full
    run, in the 2026-07-28 era too; a re-run of repaired tools (``only``) serves the same
    server code, so its other era is not checked again.

    Raises:
        ValidationError: the server did not answer ``initialize``/``tools/list``, or listed
            other tools than were generated (``mcp_spec_violation``).
    """
    if only is None:
        await check_protocol(server_dir, specs, environment, settings, sandbox, ("2026-07-28",))
    results: list[ToolEvidence] = []
    by_target = {spec.target: spec for spec in specs}
    clock = tutorials or TutorialClock(settings.timeouts.tutorials)
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            connect(server_dir, environment, settings, sandbox)
        )
        tools = await client.list_tools()
        _check_listing(tools, specs, "legacy")
        schemas = {tool.name: tool.input_schema for tool in tools}
        lost = False  # the server the last call left is dead or held
        waiting: list[tuple[int, ToolSpec, Deferred]] = []  # heavy tutorials, put off

        async def live() -> Client[Any]:
            """The client, on a new server when the last call lost the old one."""
            nonlocal client, lost
            if lost:  # the tools after one that killed or holds it meet a fresh one
                with suppress(Exception):  # closing a dead server's session may fail
                    await stack.aclose()
                client = await stack.enter_async_context(
                    connect(server_dir, environment, settings, sandbox)
                )
                lost = False
            return client

        async def keep(spec: ToolSpec, evidence: ToolEvidence) -> None:
            nonlocal lost
            if evidence.status == "failed" and not await answers(client, evidence):
                # This tool is charged; the next ones get a new server, not
                # "Connection closed".
                logger.warning("validate: %s stopped its server; restarting it", spec.name)
                evidence.error = _short(f"{evidence.error} ({SERVER_LOST})")
                lost = True

        try:
            for spec in specs:
                if only is not None and spec.name not in only:
                    continue
                await live()
                examples = (attempts or {}).get(spec.name) or [_best_example(spec)]
                if spec.kind == "notebook":
                    if not clock.allows():
                        results.append(clock.refused(spec))
                        continue
                    # A notebook passes only by reproducing its own outputs with its defaults.
                    examples = [e for e in spec.examples if e.wrapper == "notebook"][:1] or [
                        Example(
                            arguments={}, has_expected=True, wrapper="notebook", origin="notebook"
                        )
                    ]
                calling(spec.name)
                started = clock.start()
                try:
                    evidence = await _check_examples(
                        client,
                        spec,
                        examples,
                        schemas[spec.name],
                        settings,
                        by_target,
                        clock if spec.kind == "notebook" else None,
                    )
                except Deferred as heavy:  # its other runs wait, or would not fit
                    clock.charge(spec, started, ended=heavy.stopped)
                    if not heavy.stopped:
                        waiting.append((len(results), spec, heavy))
                    runs = runs_of(spec)
                    results.append(clock.refused_heavy(spec, heavy.seconds, runs, heavy.stopped))
                    continue
                if spec.kind == "notebook":
                    clock.charge(spec, started)
                results.append(evidence)
                await keep(spec, evidence)
            for index, spec, put_off in sorted(waiting, key=lambda w: w[2].seconds):
                if not clock.resumes(put_off.seconds, runs_of(spec)):  # its first run: why
                    results[index] = clock.refused_heavy(spec, put_off.seconds, runs_of(spec))
                    continue
                calling(spec.name)
                started = clock.start()
                evidence = await put_off.rest(await live())
                clock.charge(spec, started)
                results[index] = evidence
                await keep(spec, evidence)
        finally:
            calling(None)
    # Blamed on the repository only if its own doctest, run unchanged, disagrees too.
    workdir = settings.staging_dir / f"doctest-{server_dir.name}"
    try:
        return await confirm_verdicts(results, specs, environment, settings, sandbox, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


SERVER_LOST = "the server died or stopped answering during this call and was restarted"
PING_TIMEOUT = 5.0


async def answers(client: Client[Any], evidence: ToolEvidence) -> bool:
    """Whether the server still answers after ``evidence``'s failed call: not after a
    timeout (the call may still hold it), else whether it answers a ping in time."""
    if evidence.failure_type == "timeout":
        return False
    try:
        return bool(await asyncio.wait_for(client.ping(), PING_TIMEOUT))
    except Exception:  # a dead child, a closed pipe, no answer: gone
        return False


async def _check_examples(
    client: Client[Any],
    spec: ToolSpec,
    examples: list[Example],
    schema: dict[str, Any],
    settings: Settings,
    by_target: dict[str, ToolSpec],
    clock: TutorialClock | None = None,
) -> ToolEvidence:
    validator = Draft202012Validator(schema)
    # Arguments the published schema refuses can only test the refusal: try them last (a
    # session example's receiver comes from its session, so its arguments lack it).
    ordered = sorted(examples, key=lambda e: not (e.session or validator.is_valid(e.arguments)))
    first: ToolEvidence | None = None
    blamed: ToolEvidence | None = None
    for example in ordered[: MAX_ATTEMPTS + MAX_SETUP_ATTEMPTS]:
        if blamed is not None and not example.shows_repository_value:
            continue  # after a repository value disagreed, only another one can settle it
        result = await _check(client, spec, example, settings, by_target, clock)
        if result.status == "passed":
            if blamed is not None and result.evidence is not None:
                # jellyfish's README shows ``match_rating_codex('Jellyfish')`` -> 'JLLFSH',
                # its tests and code 'JLYFSH': a stale line, not a broken function; the
                # verdict says so rather than hide either value.
                result.evidence.disagreed.append(blamed.error or "")
            return result
        first = first or result
        if result.failure_type == "timeout":
            return result
        if result.failure_type == "repo_internal_bug" and example.origin != "synthesised":
            blamed = blamed or result
    if blamed is not None:
        return blamed
    assert first is not None
    return first


async def _check(
    client: Client[Any],
    spec: ToolSpec,
    example: Example,
    settings: Settings,
    by_target: dict[str, ToolSpec] | None = None,
    clock: TutorialClock | None = None,
) -> ToolEvidence:
    """One example's call and its check. A tutorial run here whose first run ``clock``
    finds heavy (``TutorialClock.after_first``) raises ``Deferred``, with the rest of its
    check or its stop."""
    evidence = Evidence(
        arguments=example.arguments,
        expected=example.expected if example.has_expected else None,
        check="expected-value" if example.has_expected else "no-error",
        part=example.part if example.has_expected else None,
        attribute=example.attribute if example.has_expected else None,
        reads=example.reads if example.has_expected else [],
        tolerance=example.tolerance if example.has_expected else None,
    )
    timeout = spec.timeout or settings.timeouts.tool_call
    if example.session:
        try:
            evidence = await replay_session(
                client, spec, example, evidence, by_target or {}, timeout
            )
        except SessionError as exc:
            # Our replay of the session failed (a tool missing, a setup call refused): the
            # example says nothing about the repository's code yet.
            return _failed(spec, evidence, _short(str(exc)), example, ours=True)
    began = time.monotonic()
    try:
        raw = await client.call_tool_mcp(spec.name, evidence.arguments, timeout=timeout)
    except Exception as exc:  # a timeout or a dead child: the tool failed, the run goes on
        error = _short(f"{type(exc).__name__}: {exc}")
        return _failed(spec, evidence, error, example)
    seconds = time.monotonic() - began
    if raw.is_error:
        text = error_text(raw)
        return _failed(spec, evidence, _short(text or "error without a message"), example)
    evidence.result = result_value(raw)
    if example.wrapper == "notebook" and not example.has_expected:
        then = "go on" if clock is None else clock.after_first(seconds, runs_of(spec))
        if then != "go on":
            raise Deferred(seconds, spec, example, evidence, timeout, stopped=then == "stop")
        return await _check_notebook_run(client, spec, example, evidence, timeout)
    if example.wrapper == "notebook":
        return _check_notebook(spec, evidence)
    shown = item_of(evidence.result, example.part)  # ``cA, cD = dwt(x)``, then ``cA``
    read, shown = attribute_of(shown, example.attribute)  # ``r = fit(y)``, then ``r.nobs``
    if read and example.has_expected:  # ``round(stats.at[0, "chi2"], 3)``: what it read
        read, shown = read_result(shown, example.reads)
    if read and example.has_expected and example.wrapper == "ellipsis":
        # ``['coif1', 'coif2', ...``: proven where it matches; else the call ran, no more
        read = ellipsis_match(shown, str(example.expected))
    differences: list[str] | None = None
    if read and example.has_expected and example.wrapper == "table":
        # ``aov.round(3)`` printed as pandas prints it: compared cell by cell (tables.py)
        differences = table_differences(shown, str(example.expected))
        if differences is None and isinstance(shown, str):
            # a table the call printed (runtime/printed.py): its text, as doctest compares it
            differences = [] if ellipsis_match(shown, str(example.expected)) else None
        read = differences is not None
    if not read:
        # The result carries no such attribute (an array travels as its list, which has no
        # ``shape``): the call ran, and that is all this example can prove.
        return _ran(spec, evidence)
    if differences:
        return _verdict(
            spec,
            evidence,
            example,
            "the printed table differs: " + "; ".join(differences),
            # blamed only on the docs' own line replayed unchanged, and confirmed by the
            # standard doctest runner (doctest_replay.py), as any value that differs
            "repo_internal_bug",
        )
    if (
        differences is None
        and example.wrapper != "ellipsis"  # matched, when it was read at all
        and example.has_expected
        and not matches(shown, example.expected, example.wrapper, example.tolerance)
    ):
        if not example.session and (
            _reads_the_clock(evidence) or await _varies(client, spec, evidence, timeout)
        ):
            # What changes from run to run (``today()``, a clock, an unseeded draw) is not
            # compared: the call ran, and that is all a value shown once can prove of it.
            return _ran(spec, evidence)
        return _verdict(
            spec,
            evidence,
            example,
            f"expected {json.dumps(normalise(example.expected))[:200]}, "
            f"got {json.dumps(shown if example.reads else evidence.result, default=str)[:200]}",
            "repo_internal_bug"
            if text_of_itself(example, evidence.result)
            else "api_inference_error",
        )
    return ToolEvidence(name=spec.name, target=spec.target, status="passed", evidence=evidence)


def _ran(spec: ToolSpec, evidence: Evidence) -> ToolEvidence:
    """Passed by ``no-error``: the call ran, and the value it was shown with says no more."""
    evidence.check, evidence.expected, evidence.attribute = "no-error", None, None
    evidence.reads, evidence.tolerance, evidence.part = [], None, None
    return ToolEvidence(name=spec.name, target=spec.target, status="passed", evidence=evidence)


async def _varies(client: Client[Any], spec: ToolSpec, evidence: Evidence, timeout: float) -> bool:
    """Whether the same call, made again, answers otherwise than it just did."""
    try:
        raw = await client.call_tool_mcp(spec.name, evidence.arguments, timeout=timeout)
    except Exception:  # a timeout or a dead child: nothing says the answer varies
        return False
    if raw.is_error:
        return False
    return _steady(result_value(raw)) != _steady(evidence.result)


def _reads_the_clock(evidence: Evidence) -> bool:
    """Whether a call given nothing answered a date or a time: it read the clock (a fixed
    date is a constant, not a function), so two calls a second apart answer alike while
    the day the docs were written is long past."""
    if any(value is not None for value in evidence.arguments.values()):
        return False
    return isinstance(evidence.result, str) and iso_moment(evidence.result) is not None


_HANDLE_ID = re.compile(r'"handle": "[^"]*"')


def _steady(value: JSON) -> str:
    """An answer's text without what differs between two calls of the same value: a
    handle's id (a new one each call) and an object's address in a repr."""
    text = json.dumps(value, sort_keys=True, default=str)
    return plain_reprs(_HANDLE_ID.sub('"handle": ""', text))


def _check_notebook(spec: ToolSpec, evidence: Evidence) -> ToolEvidence:
    """``notebook-outputs``: the run reproduced the notebook's stored outputs, or not."""
    evidence.check = "notebook-outputs"
    evidence.compared, differences = compare_outputs(evidence.result, evidence.expected)
    if spec.notebook is not None:  # the notebook as written, rerun: its cells are the replay
        evidence.replay = [f"{spec.notebook.path}: {len(spec.notebook.cells)} code cells"]
    if not differences:
        return ToolEvidence(name=spec.name, target=spec.target, status="passed", evidence=evidence)
    return ToolEvidence(
        name=spec.name,
        target=spec.target,
        status="failed",
        evidence=evidence,
        error=_short("stored outputs not reproduced: " + "; ".join(differences)),
        failure_type="repo_internal_bug",  # the notebook's own outputs disagree with its code
    )


class Deferred(Exception):
    """A tutorial's first run was heavy (``TutorialClock.after_first``): the rest of its
    ``notebook-run`` check waits until the lighter tutorials have run, or is not run
    (``stopped``: it would not fit in what is left of the budget)."""

    def __init__(
        self,
        seconds: float,
        spec: ToolSpec,
        example: Example,
        evidence: Evidence,
        timeout: float,
        stopped: bool = False,
    ) -> None:
        super().__init__(f"{spec.name}: first run {seconds:.1f} s")
        self.seconds, self.spec, self.example = seconds, spec, example
        self.evidence, self.timeout, self.stopped = evidence, timeout, stopped

    async def rest(self, client: Client[Any]) -> ToolEvidence:
        """The rest of the check, from the first run's result."""
        return await _check_notebook_run(
            client, self.spec, self.example, self.evidence, self.timeout
        )


async def _check_notebook_run(
    client: Client[Any], spec: ToolSpec, example: Example, evidence: Evidence, timeout: float
) -> ToolEvidence:
    """``notebook-run`` (validate/notebook_run.py): the first run is the reference; a second
    with the same arguments must reproduce it, a third with other numbers finish alike."""
    evidence.check = "notebook-run"
    first = evidence.result
    evidence.expected = reference_outputs(first)  # the reference this run made
    if spec.notebook is not None:
        evidence.replay = [f"{spec.notebook.path}: {len(spec.notebook.cells)} code cells"]
    again, error = await _call(client, spec.name, evidence.arguments, timeout)
    if error is not None:
        return _failed(spec, evidence, f"the second run failed: {error}", example)
    evidence.compared, differences = reproduction(first, again)
    evidence.result = again
    if differences:
        evidence.unseeded = True
        return ToolEvidence(
            name=spec.name,
            target=spec.target,
            status="failed",
            evidence=evidence,
            error=_short(
                "unseeded randomness: two runs with the same parameters disagree: "
                + "; ".join(differences)
            ),
            failure_type="repo_internal_bug",  # the tutorial as written gives no one answer
        )
    varied = varied_arguments(spec.parameters, evidence.arguments)
    if varied != evidence.arguments:
        missing = await _other_run(client, spec.name, first, varied, timeout)
        other_run: dict[str, Any] = {
            "arguments": varied,
            "passed": not missing,
            "differences": missing,
        }
        if missing:
            # The faithful runs agree, so the tool runs the tutorial as written; a value the
            # tutorial fixes elsewhere (a size a later reshape needs) is the tutorial's
            # constraint, not the tool's fault nor the repository's bug: recorded, not failed.
            fixed: list[str] = []
            varies: list[str] = []
            for name, alone in lone_variations(evidence.arguments, varied):
                failed = await _other_run(client, spec.name, first, alone, timeout)
                (fixed if failed else varies).append(name)
            other_run.update({"fixed": fixed, "varies": varies})
        evidence.other_run = other_run
    return ToolEvidence(name=spec.name, target=spec.target, status="passed", evidence=evidence)


async def _other_run(
    client: Client[Any], name: str, first: Any, arguments: dict[str, Any], timeout: float
) -> list[str]:
    """A run with other parameters: what it did not show of the first run's kinds of
    outputs, or its failure; empty when it finished alike."""
    other, error = await _call(client, name, arguments, timeout)
    if error is not None:
        return [f"failed: {error}"]
    return other_kinds(first, other)


async def _call(
    client: Client[Any], name: str, arguments: dict[str, Any], timeout: float
) -> tuple[Any, str | None]:
    """One more call of a tool: its result, or the error's text."""
    try:
        raw = await client.call_tool_mcp(name, arguments, timeout=timeout)
    except Exception as exc:  # a timeout or a dead child
        return None, _short(f"{type(exc).__name__}: {exc}")
    if raw.is_error:
        return None, _short(error_text(raw) or "error without a message")
    return result_value(raw), None


def _best_example(spec: ToolSpec) -> Example:
    with_expected = [e for e in spec.examples if e.has_expected]
    return (with_expected or spec.examples or [Example(arguments={}, origin="synthesised")])[0]


def _failed(
    spec: ToolSpec, evidence: Evidence, error: str, example: Example, ours: bool = False
) -> ToolEvidence:
    program = missing_program(error)
    if program is not None:  # the example needs a program this environment lacks
        failed = _verdict(spec, evidence, example, error, "env_failure")
        failed.error = _short(f"needs the external program {program!r}, not installed: {error}")
        failed.program = program
        return failed
    unreachable = network_needed(error)
    if unreachable is not None:  # a download: the sandbox gives tools no network
        failed = _verdict(spec, evidence, example, error, "env_failure")
        failed.error = _short(f"needs the network, which tools never get ({unreachable}): {error}")
        return failed
    failure = "api_inference_error" if ours else classify(error)
    return _verdict(spec, evidence, example, error, failure)


def _verdict(
    spec: ToolSpec, evidence: Evidence, example: Example, error: str, failure: FailureType
) -> ToolEvidence:
    """A failed tool; blamed on the repository only when its own example, replayed as
    written (attribution.py), disagreed, and then with that replay in the evidence."""
    if failure == "repo_internal_bug":
        replay = exact_replay(spec, example, evidence.arguments)
        if replay is None:
            failure = "api_inference_error"
        else:
            evidence.replay = replay
    return ToolEvidence(
        name=spec.name,
        target=spec.target,
        status="failed",
        evidence=evidence,
        error=_short(error),
        failure_type=failure,
    )


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 3] + "..."
