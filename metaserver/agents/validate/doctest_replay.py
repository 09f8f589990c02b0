"""The last word before a tool is blamed on the repository: its own doctest, run unchanged
by the standard doctest runner in the built environment (ARCHITECTURE.md, "Honest
attribution").

Our replay of an example goes through tools, codecs and our reading of its session; a
disagreement there may be ours (a setup line we dropped, a receiver of a sibling class, a
number type our codec rebuilt). So each ``repo_internal_bug`` verdict whose example is a
docstring's is checked once more: the docstring that holds the documented line, run by
``doctest.DocTestRunner`` with the module's globals, as ``python -m doctest`` would. The
verdict stands only when that run disagrees with the documented output too, in values and
not only in a dependency's formatting (``text_forms.py``); the lines the runner ran are
then the evidence's replay. Where the runner agrees, the disagreement was ours
(``api_inference_error``). Where the line is in no docstring (a README's) or the runner
cannot run, the verdict stays as our replay made it.
"""

from __future__ import annotations

import ast
import json
import logging
from pathlib import Path
from typing import Any

from metaserver.agents.validate.compare import matches
from metaserver.agents.validate.text_forms import plain_reprs, unwrapped_arrays
from metaserver.children.launch import workspace_paths
from metaserver.contracts import Environment, ToolEvidence, ToolSpec
from metaserver.sandbox import Policy, Sandbox
from metaserver.settings import Settings

__all__ = ["RUNNER", "confirm_verdicts", "judged", "only_formatting"]

logger = logging.getLogger(__name__)

MAX_GOT = 300

# Runs in the target environment: the standard library only. For each request, the first
# docstring (the callable's, its class's, its module's, then its module's other members')
# with a ``>>>`` example whose source is the documented line, run by the standard runner.
RUNNER = r"""
import doctest, importlib, io, json, sys

MAX_MEMBERS = 2000

class Recorder(doctest.DocTestRunner):
    def __init__(self, line):
        super().__init__(verbose=False)
        self.line, self.outcome, self.got, self.lines = line, None, "", []
    def _note(self, example, outcome, got):
        if self.outcome is None:
            self.lines.append(example.source.strip())
            if writes(example, self.line):
                self.outcome, self.got = outcome, got
    def report_start(self, out, test, example):
        pass
    def report_success(self, out, test, example, got):
        self._note(example, "success", got)
    def report_failure(self, out, test, example, got):
        self._note(example, "failure", got)
    def report_unexpected_exception(self, out, test, example, exc_info):
        self._note(example, "exception", f"{exc_info[0].__name__}: {exc_info[1]}")

def writes(example, line):  # the line, or a line of statements that holds it
    source = example.source.strip()
    return source == line or line in (part.strip() for part in source.split(";"))

def docstrings(module, qualname):
    parts = qualname.split(".") if qualname else []
    for depth in range(len(parts), -1, -1):
        obj = module
        try:
            for part in parts[:depth]:
                obj = getattr(obj, part)
        except AttributeError:
            continue
        doc = getattr(obj, "__doc__", None)
        if isinstance(doc, str):
            yield ".".join(parts[:depth]) or module.__name__, doc
    # then the module's other classes, their methods and its functions: an example written
    # for a sibling class is that class's, run unchanged there
    for name, member in list(vars(module).items())[:MAX_MEMBERS]:
        if name.startswith("_") or getattr(member, "__module__", None) != module.__name__:
            continue
        members = [(name, member)]
        if isinstance(member, type):
            members += [(f"{name}.{k}", v) for k, v in vars(member).items() if callable(v)]
        for where, obj in members:
            doc = getattr(obj, "__doc__", None)
            if isinstance(doc, str) and ">>>" in doc:
                yield where, doc

answers = {}
for key, target, line in json.loads(sys.argv[1]):
    answer = {"found": False}
    try:
        name, _, qualname = target.partition(":")
        module = importlib.import_module(name)
        for where, doc in docstrings(module, qualname):
            test = doctest.DocTestParser().get_doctest(doc, dict(module.__dict__), where, None, 0)
            shown = [e.want for e in test.examples if writes(e, line)]
            if not shown:
                continue
            runner = Recorder(line)
            runner.run(test, out=io.StringIO().write, clear_globs=True)
            want = shown[0]
            answer = {"found": True, "where": where, "outcome": runner.outcome,
                      "got": runner.got, "want": want, "lines": runner.lines}
            break
    except BaseException as exc:
        answer = {"found": False, "error": f"{type(exc).__name__}: {exc}"}
    answers[key] = answer
sys.stdout.write(json.dumps(answers))
"""


async def confirm_verdicts(
    results: list[ToolEvidence],
    specs: list[ToolSpec],
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    workdir: Path,
) -> list[ToolEvidence]:
    """``results`` with each ``repo_internal_bug`` verdict checked by the standard doctest
    runner (one sandboxed process for all of them, in ``workdir``); see the module."""
    by_name = {spec.name: spec for spec in specs}
    asked = [
        (e.name, by_name[e.name].target, e.evidence.replay[-1])
        for e in results
        if e.failure_type == "repo_internal_bug"
        and e.evidence is not None
        and e.evidence.check == "expected-value"
        and e.evidence.replay
        and e.name in by_name
        and by_name[e.name].kind in ("function", "method")
    ]
    if not asked:
        return results
    answers = await _run(asked, environment, settings, sandbox, workdir)
    return [judged(e, answers.get(e.name)) for e in results]


async def _run(
    asked: list[tuple[str, str, str]],
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    workdir: Path,
) -> dict[str, Any]:
    workdir.mkdir(parents=True, exist_ok=True)
    policy = Policy(
        workdir=workdir,
        timeout=settings.timeouts.server_start + len(asked) * settings.timeouts.tool_call,
        readable=(environment.venv, *workspace_paths(environment.venv)),
        writable=(workdir,),
    )
    argv = [str(environment.python_path), "-I", "-c", RUNNER, json.dumps(asked)]
    try:
        ran = await sandbox.run(argv, policy)
        answers = json.loads(ran.stdout) if ran.ok else {}
    except Exception as exc:  # no answer: the verdicts stay as our replay made them
        logger.warning("validate: the standard doctest runner did not answer: %s", exc)
        return {}
    return answers if isinstance(answers, dict) else {}


def judged(evidence: ToolEvidence, answer: Any) -> ToolEvidence:
    """``evidence`` as the standard runner's ``answer`` judges it (None: unchanged)."""
    if not isinstance(answer, dict) or not answer.get("found") or evidence.evidence is None:
        return evidence
    outcome, got, want = answer.get("outcome"), str(answer.get("got")), str(answer.get("want"))
    where = answer.get("where")
    if outcome == "success" or (outcome == "failure" and only_formatting(got, want)):
        why = "passes" if outcome == "success" else "differs only in formatting"
        return evidence.model_copy(
            update={
                "failure_type": "api_inference_error",
                "error": f"{evidence.error}; the repository's own doctest ({where}), run "
                f"unchanged by the standard doctest runner, {why}: our replay is at fault",
            }
        )
    if outcome not in ("failure", "exception"):
        return evidence
    lines = [str(line) for line in answer.get("lines") or []]
    replayed = evidence.evidence.model_copy(update={"replay": lines or evidence.evidence.replay})
    return evidence.model_copy(
        update={
            "evidence": replayed,
            "error": f"{evidence.error}; the repository's own doctest ({where}), run "
            f"unchanged by the standard doctest runner, shows {got.strip()[:MAX_GOT]!r}",
        }
    )


def only_formatting(got: str, want: str) -> bool:
    """Whether two printed outputs differ only in a dependency's formatting: numpy's
    ``array(...)`` wrapper, spacing, an address or a class's module path; compared as
    values where both are literals."""
    plain_got, plain_want = (
        " ".join(plain_reprs(unwrapped_arrays(t)).split()) for t in (got, want)
    )
    if plain_got == plain_want:
        return True
    try:
        got_value = ast.literal_eval(plain_got)
        want_value = ast.literal_eval(plain_want)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    try:
        return matches(_json(got_value), _json(want_value))
    except (TypeError, ValueError):
        return False


def _json(value: object) -> Any:
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((_json(v) for v in value), key=repr)
    return value
