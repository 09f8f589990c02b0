"""The repair catalogue: for each failed tool, one concrete change to try before giving up.

    failure                     repair
    ───────────────────────     ─────────────────────────────────────────────────────
    import_error (No module X)  add_dependency: install X's distribution, re-validate (for
                                a notebook, with the other modules it imports)
    timeout                     longer_timeout: once, four times the budget; then drop
                                (a tutorial: drop at once, its run is past the tutorials'
                                time budget)
    api_inference_error         array_codec: a list used as an array ('list' object has
                                no attribute 'ndim'): the numpy codec for the list
                                arguments, the same call again (once per tool)
                                next_example: another example (docs, README, variants)
    repo_internal_bug           next_example: the repository's other shown values (once),
                                the failed one replayed first; then drop: its own
                                example disagrees (a bug)
    anything else / exhausted   drop

A plan is data; :mod:`metaserver.agents.repair.rounds` applies it and re-validates only the
tools it touched.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

from pydantic import BaseModel

from metaserver.agents.design.meaning import callable_context, values_meant
from metaserver.agents.design.synthesis import value_for
from metaserver.agents.environment.distributions import distribution_of
from metaserver.agents.repair.prepared import prepared_examples
from metaserver.agents.repo_docs.doc_examples import find_examples
from metaserver.agents.validate.calls import MAX_ATTEMPTS
from metaserver.contracts import (
    JSON,
    Example,
    Parameter,
    RepairKind,
    SessionStep,
    ToolEvidence,
    ToolSpec,
)
from metaserver.probe.arguments import ANY_JSON

TIMEOUT_FACTOR = 4.0

_MISSING_MODULE = re.compile(
    r"No module named '([A-Za-z0-9_.]+)'"
    # ... and the message a library raises for its optional dependency ("you must install
    # 'h5py' to use the HDFBackend", "Please install matplotlib", "pip install corner").
    r"|(?:pip install|must install|please install)\s+['\"`]?([A-Za-z0-9_.]+)",
    re.IGNORECASE,
)


class Repair(BaseModel):
    tool: str
    kind: RepairKind
    reason: str
    package: str | None = None  # add_dependency: a requirement (a name, maybe specifiers)
    # add_dependency for a notebook: the other modules it imports, tried in the same install
    # (a tutorial imports plotting and helper packages its library does not declare, one
    # more per round otherwise) and left out if that install fails.
    companions: list[str] = []
    examples: list[Example] = []  # next_example, array_codec: tried in order, in one round
    parameters: list[str] = []  # array_codec: the parameters given the numpy codec
    timeout: float | None = None  # longer_timeout: seconds; None means TIMEOUT_FACTOR times
    # drop: what the report says of the tool instead of its last error, when the drop knows
    # why it failed (a tutorial past the time budget, an install past the download bound).
    error: str | None = None


class RepairState(BaseModel):
    """What was already tried, so that no repair is attempted twice."""

    installed: set[str] = set()
    extended: set[str] = set()
    tried_examples: dict[str, list[str]] = {}
    diagnosed: set[str] = set()
    arrayed: set[str] = set()
    # Requirements not installed because their download was past the bound, and why.
    refused: dict[str, str] = {}


def plan_repairs(
    specs: list[ToolSpec],
    evidence: dict[str, ToolEvidence],
    state: RepairState,
    workspace: Path,
) -> list[Repair]:
    """One repair for each failed tool in ``evidence``."""
    repairs = []
    for spec in specs:
        result = evidence.get(spec.name)
        if result is None or result.status != "failed":
            continue
        repairs.append(_repair_for(spec, result, state, workspace, (specs, evidence)))
    return repairs


def _repair_for(
    spec: ToolSpec,
    result: ToolEvidence,
    state: RepairState,
    workspace: Path,
    validated: tuple[list[ToolSpec], dict[str, ToolEvidence]],
) -> Repair:
    error = result.error or ""
    tried = state.tried_examples.setdefault(spec.name, [])
    if result.evidence is not None:
        key = _key(result.evidence.arguments, result.evidence.session)
        if key not in tried:
            tried.append(key)
    if result.failure_type == "repo_internal_bug" and result.evidence is not None:
        settling = _settling(spec, _key(result.evidence.arguments, result.evidence.session), tried)
        if settling:
            tried.extend(_key(e.arguments, e.session) for e in settling[1:])
            return Repair(
                tool=spec.name,
                kind="next_example",
                examples=settling,
                reason="another of the repository's own values may settle it",
            )
    if result.failure_type == "import_error":
        missing = _MISSING_MODULE.search(error)
        if missing:
            top = (missing.group(1) or missing.group(2)).split(".")[0]
            package = distribution_of(top)
            if package not in state.installed:
                companions = notebook_imports(spec, workspace) - state.installed - {package}
                return Repair(
                    tool=spec.name,
                    kind="add_dependency",
                    package=package,
                    companions=sorted(companions),
                    reason=f"module {top!r} is missing: install {package}",
                )
            if package in state.refused:
                why = f"{state.refused[package]} (the tool failed: {_first_line(error)})"
                return Repair(tool=spec.name, kind="drop", reason=why, error=why)
    if result.failure_type == "timeout" and spec.notebook is not None:
        # A tutorial's run already has TUTORIAL_TIMEOUT, half the time all tutorials share
        # (settings.timeouts.tutorials); four times it, three runs each, is what
        # kept PyDMD's conversion past 1800 s (a 480 s run timing out again).
        why = (
            f"a tutorial run past its {spec.timeout or 0:g} s is past the tutorials' time "
            f"budget: not tried longer ({_first_line(error) or 'timed out'})"
        )
        return Repair(tool=spec.name, kind="drop", reason=why, error=why)
    if result.failure_type == "timeout" and spec.name not in state.extended:
        return Repair(tool=spec.name, kind="longer_timeout", reason="one longer timeout")
    if result.failure_type == "api_inference_error" and spec.name not in state.arrayed:
        arrays = _arrays(spec, result, error)
        if arrays:
            return arrays
    if result.failure_type == "api_inference_error":
        here = _in_work_folder(spec, result, error, tried)
        if here is not None:
            return here
    if result.failure_type == "api_inference_error":
        # A receiver a passed sibling set up (``fit`` before ``transform``) first: the
        # alternatives all build it from its constructor alone, as the failed call did.
        # Those come on top of the others, which keep their number: tried in the same round
        # as before, a tool that none passes is dropped (and stood in for) no later.
        prepared = _untried(prepared_examples(spec, *validated), tried)
        others = _untried(alternative_examples(spec, workspace), tried + list(prepared))
        untried = list(prepared.values()) + list(others.values())[:MAX_ATTEMPTS]
        if untried:
            batch = untried  # validation tries each of these in one round
            tried.extend(_key(e.arguments, e.session) for e in batch)
            return Repair(
                tool=spec.name,
                kind="next_example",
                examples=batch,
                reason=f"retry with another example ({batch[0].origin})",
            )
    return Repair(tool=spec.name, kind="drop", reason=error or "failed validation")


def _settling(spec: ToolSpec, failed: str, tried: list[str]) -> list[Example]:
    """The example whose value the code disagreed with, then the repository's other shown
    values not tried yet; none when there are none. A README line older than the code its
    tests check (jellyfish's README shows ``match_rating_codex('Jellyfish')`` -> 'JLLFSH',
    its tests and code 'JLYFSH') is a stale line, not a bug: replayed first, the failed
    example's disagreement is kept in the evidence of the value that agrees
    (validate/calls.py)."""
    keyed = [(_key(e.arguments, e.session), e) for e in spec.examples]
    blamed = [e for key, e in keyed if key == failed]
    others = [e for key, e in keyed if e.shows_repository_value and key not in tried]
    return blamed[:1] + others[:MAX_ATTEMPTS] if blamed and others else []


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


# A list where the callable wanted an array: an array's attribute, or numpy's indexing.
_LIST_AS_ARRAY = re.compile(
    r"'list' object has no attribute '(?:ndim|shape|dtype|astype|reshape|T|size|flatten|"
    r"ravel|squeeze|transpose|dot|real|imag|tolist|sum|mean|std|min|max|any|all|copy)'"
    r"|list indices must be integers or slices, not tuple"
)


def _arrays(spec: ToolSpec, result: ToolEvidence, error: str) -> Repair | None:
    """``array_codec`` when the error shows a list used as an array and the failed call
    passed lists of numbers to parameters without a codec: those arrive as arrays next
    (the numpy codec), in the same call; None otherwise."""
    if result.evidence is None or not _LIST_AS_ARRAY.search(error):
        return None
    given = result.evidence.arguments
    names = [
        p.name
        for p in spec.parameters
        if p.codec is None and p.name in given and _numbers(given[p.name])
    ]
    if not names:
        return None
    same = [e for e in spec.examples if e.arguments == given] or [Example(arguments=given)]
    return Repair(
        tool=spec.name,
        kind="array_codec",
        parameters=names,
        examples=same[:1],
        reason=f"a list used as an array: {', '.join(names)} as numpy arrays",
    )


# A relative path whose folder the call's work folder lacks (``'build/test4d.nii.gz'``).
_MISSING_FOLDER = re.compile(r"No such file or directory: '((?!/)[^'\n]*/[^'/\n]+)'")


def _in_work_folder(
    spec: ToolSpec, result: ToolEvidence, error: str, tried: list[str]
) -> Repair | None:
    """The failed call again with a relative path its work folder has no folder for given as
    its file name alone: nibabel's guide saves to ``os.path.join('build', 'test4d.nii.gz')``,
    a folder its docs build makes (the line is ``+SKIP`` there). Our value, not the docs'
    line: the example keeps no ``line`` (validate/attribution never blames it on them)."""
    missing = _MISSING_FOLDER.search(error)
    if missing is None or result.evidence is None:
        return None
    path = missing.group(1)
    given = result.evidence.arguments
    names = [name for name, value in given.items() if value == path]
    if not names or ".." in path.split("/"):
        return None
    arguments = {**given, **dict.fromkeys(names, path.rpartition("/")[2])}
    same = next((e for e in spec.examples if e.arguments == given), None)
    session = same.session if same is not None else result.evidence.session
    example = Example(arguments=arguments, session=session, origin="synthesised")
    if _key(example.arguments, example.session) in tried:
        return None
    tried.append(_key(example.arguments, example.session))
    return Repair(
        tool=spec.name,
        kind="next_example",
        examples=[example],
        reason=f"no folder for {path!r} in the work folder: {', '.join(names)} as its file name",
    )


def _numbers(value: JSON, depth: int = 0) -> bool:
    """Whether ``value`` is a (nested) list of numbers, as an array's JSON form is."""
    if not isinstance(value, list) or not value or depth > 8:
        return False
    return all(
        _numbers(item, depth + 1)
        if isinstance(item, list)
        else isinstance(item, (int, float)) and not isinstance(item, bool)
        for item in value
    )


def notebook_imports(spec: ToolSpec, workspace: Path) -> set[str]:
    """The distributions of the modules a notebook tool's cells import: neither the
    standard library nor the repository's own (empty for other tools)."""
    if spec.notebook is None:
        return set()
    names: set[str] = set()
    for cell in spec.notebook.cells:
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    own = {n for n in names if (workspace / n).is_dir() or (workspace / f"{n}.py").is_file()}
    own |= {n for n in names if (workspace / "src" / n).is_dir()}
    outside = names - set(sys.stdlib_module_names) - own
    return {distribution_of(name) for name in outside if name.isidentifier()}


def alternative_examples(spec: ToolSpec, workspace: Path) -> list[Example]:
    """Other arguments to try: the spec's own, the repository's text, then variants."""
    found = list(spec.examples)
    if spec.kind != "method":
        # A method's receiver is never a literal: a call found by its bare name elsewhere is
        # another callable's (a module-level function of the same name), not this one's.
        found += find_examples(
            workspace, spec.target.rsplit(":", 1)[-1].split(".")[-1], spec.parameters
        )
    context = callable_context(spec.target.rpartition(":")[2], spec.description)
    found += _with_receiver(spec, synthesised_variants(spec.parameters, context))
    unique: dict[str, Example] = {}
    for example in found:
        unique.setdefault(_key(example.arguments, example.session), example)
    ordered = sorted(
        unique.values(),
        key=lambda e: (not e.has_expected, e.shown_loosely, e.origin != "doctest"),
    )
    return ordered


def _with_receiver(spec: ToolSpec, variants: list[Example]) -> list[Example]:
    """A method's variants on a receiver one of its own sessions builds, when the receiver
    is passed by handle only: it has no JSON to guess (a made-up handle id is refused by
    every call), so without such a session its variants are dropped. A receiver JSON
    builds (the ``new`` codec) is varied as any argument is: a session of the docs may be
    the very thing that failed."""
    if spec.kind != "method" or not spec.parameters:
        return variants
    if not (spec.parameters[0].codec or "").startswith("handle:"):
        return variants  # JSON builds the receiver (the ``new`` codec): vary it as it is
    built = next(
        (e.session for e in spec.examples if e.session and all(s.into is None for s in e.session)),
        None,
    )
    if built is None:
        return []
    return [v.model_copy(update={"session": built}) for v in variants]


# Values to try for a parameter, by schema type, when the first guess failed.
_VARIANTS: dict[str, list[JSON]] = {
    "integer": [1, 3, 0, 10],
    "number": [1.0, 0.5, 2.0],
    "string": ["1", "hello world", "2024-01-02", "a,b,c", "x"],
    "boolean": [False, True],
    "array": [[1, 2, 3], [1.0, 2.0], ["a", "b"], [[1, 2], [3, 4]]],
    "object": [{"a": 1}],
}
_UNTYPED: list[JSON] = [[1, 2, 3], "abc", 3, 1.5, [[1, 2], [3, 4]], {"a": 1}]


def synthesised_variants(
    parameters: list[Parameter], context: str = "", limit: int = 6
) -> list[Example]:
    """A few argument sets that vary the required parameters' values, type by type; a
    text (or untyped) parameter's meaningful values come first (meaning.values_meant:
    ``parse_duration(datestring)`` tries a duration after the date that failed)."""
    required = [p for p in parameters if p.required]
    if not required:
        return [Example(arguments={}, origin="synthesised")]
    columns = [_meant(p, context) + _values_for(p.json_schema) for p in required]
    columns = [[v for i, v in enumerate(c) if v not in c[:i]] for c in columns]
    variants = []
    for row in range(limit):
        arguments = {
            p.name: values[row % len(values)] for p, values in zip(required, columns, strict=True)
        }
        variants.append(Example(arguments=arguments, origin="synthesised"))
    return variants


def _meant(parameter: Parameter, context: str) -> list[JSON]:
    """The values a text or untyped parameter means, when nothing narrower constrains it."""
    schema = parameter.json_schema
    if parameter.codec or schema.get("enum") or schema.get("type") not in ("string", None):
        return []
    if "anyOf" in schema or "format" in schema:
        return []
    text = schema.get("type") == "string"
    said = parameter.description if parameter.description != ANY_JSON else None  # no meaning
    return values_meant(parameter.name, said, context, text)


def _values_for(schema: dict[str, JSON]) -> list[JSON]:
    if schema.get("enum"):
        return list(schema["enum"])
    if "anyOf" in schema:
        values: list[JSON] = []
        for option in schema["anyOf"]:
            if option.get("type") != "null" and not _handle_arm(option):
                values += _values_for(option)
        return values or [None]
    kind = schema.get("type")
    if kind == "object" and isinstance(schema.get("properties"), dict):
        # An object with declared fields (a constructor's arguments): only values that name
        # those fields can decode, so vary nothing rather than send foreign keys.
        return [value_for("", schema)]
    if isinstance(kind, str) and kind in _VARIANTS:
        return _VARIANTS[kind]
    return _UNTYPED


def _handle_arm(schema: dict[str, JSON]) -> bool:
    """The ``{"handle": id}`` arm of a schema: no guessed id names an object (it only fails
    as an unknown handle, hiding what the real arms did)."""
    properties = schema.get("properties")
    return isinstance(properties, dict) and schema.get("required") == ["handle"]


def _untried(examples: list[Example], tried: list[str]) -> dict[str, Example]:
    """``examples`` not yet tried, each try once, by key, in their order."""
    fresh: dict[str, Example] = {}
    for example in examples:
        if (key := _key(example.arguments, example.session)) not in tried:
            fresh.setdefault(key, example)
    return fresh


def _key(arguments: dict[str, JSON], session: list[SessionStep]) -> str:
    """What makes two tries the same: their arguments and the lines that built the receiver
    (a method's examples all pass ``{}``; they differ by the session that precedes them)."""
    lines = [step.line for step in session]
    return json.dumps([arguments, lines], sort_keys=True, default=str)
