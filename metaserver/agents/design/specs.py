"""Design stage: choose the callables that become tools, and name and describe them.

Deterministic: ranking (``ranking.py``) puts what the README and docs guides call first,
then what can be proven (an example with an expected value), what is used, documented,
annotated and exported; duplicates collapse and caps keep variety. Dangerous and deprecated
callables are left out. A class counts as its constructor (a tool returning a handle) plus
its best methods (tools taking that handle). An LLM may refine names and descriptions later;
it never changes which callable a tool is bound to.
"""

from __future__ import annotations

import re

import jsonschema
from jsonschema import Draft202012Validator

from metaserver.agents.design.builders import Builders, built_step, documented_arguments
from metaserver.agents.design.meaning import callable_context, typed_by_meaning
from metaserver.agents.design.ranking import (
    built_at,
    collapse_duplicates,
    rank_key,
    rank_score,
    select,
    shallowest,
)
from metaserver.agents.design.synthesis import held_names, synthesise_example, value_for_parameter
from metaserver.agents.design.typed import (
    built_parameters,
    documented_receiver,
    fill_typed_steps,
)
from metaserver.agents.repo_docs.guide_paths import candidate_paths, pinned_paths
from metaserver.agents.repo_docs.main_api import internal, with_fallback
from metaserver.agents.repo_docs.usage import Usage, UsageCall
from metaserver.contracts import (
    JSON,
    Candidate,
    CodeReport,
    Example,
    Parameter,
    SessionStep,
    ToolSpec,
)
from metaserver.probe.arguments import ANY_JSON

__all__ = [
    "MAX_DESCRIPTION",
    "TUTORIAL_TIMEOUT",
    "design",
    "rank_score",
    "synthesise_example",
    "tool_budget",
    "usable",
]

MAX_DESCRIPTION = 1024
MAX_EXAMPLES = 3
NOTEBOOK_SHARE = 3
TUTORIAL_TIMEOUT = 120.0
"""Seconds a tutorial tool's call may take: a whole workflow, not one function's call. The
function default (30 s) left 25 s for the run, which tutorials that passed validation at one
load exceeded when the server's own tests replayed them at a higher one (scikit-fuzzy's
gallery, load 20 on two cores); Paper2Agent gives a tutorial 600 s."""
"""Notebook workflows take up to a third of a server's tools (at least one)."""
_NAME_OK = re.compile(r"[^A-Za-z0-9_-]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_DOCTEST = re.compile(r"^[ \t]*>>>", re.M)
_EXAMPLES_HEADING = re.compile(r"(?:^|\n)\s*Examples?\s*:?\s*(?:\n\s*-+\s*)?$")


def design(report: CodeReport, max_tools: int, usage: Usage | None = None) -> list[ToolSpec]:
    """Up to ``max_tools`` ToolSpecs, best candidates first, with unique names."""
    moved = {
        old: new.target
        for old, new in ((c.target, shallowest(c)) for c in report.candidates)
        if old != new.target
    }
    candidates = [_renamed_steps(shallowest(c), moved) for c in report.candidates]
    usage = with_fallback(usage, candidates)  # a README with no code: the tests' main API
    if usage:
        pinned = pinned_paths(usage, candidates)
        makers = _makers(candidates)
        candidates = [_with_usage(c, usage, pinned, makers) for c in candidates]
    constructors = {c.target: c for c in candidates if c.kind == "constructor"}
    builders = Builders(candidates)
    candidates = [
        typed_by_meaning(
            built_parameters(documented_receiver(fill_typed_steps(c, builders), builders), builders)
        )
        for c in candidates
    ]
    built = built_at(candidates)
    usable_ranked = sorted((c for c in candidates if usable(c)), key=lambda c: rank_key(c, built))
    ranked = collapse_duplicates(usable_ranked, built)
    by_target = {c.target: c for c in usable_ranked}

    def replayed(candidate: Candidate) -> list[Candidate]:
        """The tools the candidate's proving session calls before it (doc_examples)."""
        sessions = [e for e in candidate.examples if e.session]
        # The proving session first; else the first one shown (a README's, with no output).
        proof = next((e for e in sessions if e.has_expected), sessions[0] if sessions else None)
        steps = proof.session if proof is not None else []
        return [by_target[s.target] for s in steps if s.attribute is None and s.target in by_target]

    # A tutorial is a workflow, not an entry point: ranked with the API, it always lost to
    # the names the README calls first, and a converted tutorial never became a tool. So
    # notebooks get a share of the tools of their own; what they leave unused goes to the API.
    # They keep analysis's order (most entry points not shown before first,
    # analysis/tutorial_choice.py), which validation's time budget then follows.
    found = {c.target: i for i, c in enumerate(candidates)}
    notebooks = sorted((c for c in ranked if c.kind == "notebook"), key=lambda c: found[c.target])
    share = min(len(notebooks), max(1, max_tools // NOTEBOOK_SHARE))
    api = [c for c in ranked if c.kind != "notebook"]
    chosen = select(api, constructors, max_tools - share, usable, replayed)
    chosen += notebooks[: max_tools - len(chosen)]
    used: set[str] = set()
    targets = {c.target for c in chosen}
    return [_spec(c, constructors, used, targets) for c in chosen]


def tool_budget(report: CodeReport, usage: Usage | None, max_tools: int, cap: int) -> int:
    """How many tools to design: ``max_tools``, or more (up to ``cap``) as the documented,
    provable surface grows: when the README and guides (or, showing none, the fallback
    entry points of main_api.py) call more usable entry points than that, with room left
    for the constructors their methods need and for what the README does not show; or, when
    the README shows no code, when more public functions than that can be proven by a value
    (their doctests, the values their tests assert): a large library publishes dozens of
    tools."""
    if usage is None or cap <= max_tools:
        return max_tools
    counted = set(usage.documented) - set(usage.reads_files)
    if not usage.documented:  # the fallback entry points the tests or examples call
        fallen = with_fallback(usage, report.candidates) or usage
        counted = {n for n in fallen.documented if n in usage.tested or n in usage.exampled}
    answered = {
        c.name if c.kind == "constructor" else c.name.rpartition(".")[2]
        for c in report.candidates
        if usable(c)
    }
    documented = len(counted & answered)
    if usage.documented:
        # The README shows the API: its names decide. Growing by every doctested function
        # too took more-itertools (3 names shown) from 12 tools to 66 and its conversion
        # past the 30 s a pure-Python library should take, for tools nobody was shown.
        return max(max_tools, min(cap, documented + max_tools // 2))
    provable = {
        c.name.rpartition(".")[2]
        for c in report.candidates
        if usable(c) and not internal(c) and _provable(c, usage)
    }
    provable |= counted & answered
    return max(max_tools, min(cap, max(documented + max_tools // 2, len(provable))))


def _provable(candidate: Candidate, usage: Usage) -> bool:
    """Whether an example of its own or a call of its tests shows its value."""
    if any(e.promises_value for e in candidate.examples):
        return True
    if candidate.kind != "function":
        return False
    short = candidate.name.rpartition(".")[2]
    return any(call.has_expected for call in usage.calls.get(short, []))


def _renamed_steps(candidate: Candidate, moved: dict[str, str]) -> Candidate:
    """The candidate with its session steps naming callables by their final tool targets
    (``shallowest`` may have moved a function to a shorter path)."""
    if not moved or not any(s.target in moved for e in candidate.examples for s in e.session):
        return candidate
    examples = [
        e.model_copy(
            update={
                "session": [
                    s.model_copy(update={"target": moved.get(s.target, s.target)})
                    for s in e.session
                ]
            }
        )
        for e in candidate.examples
    ]
    return candidate.model_copy(update={"examples": examples})


def usable(candidate: Candidate) -> bool:
    """Whether a candidate may become a tool: safe, current, and callable from JSON."""
    if candidate.dangerous or candidate.deprecated:
        return False
    if any(part.startswith("_") for part in candidate.name.split(".")):
        return False
    # A parameter that only takes a handle cannot be validated on its own: no JSON builds
    # it, unless an example's session builds it with another tool first.
    built = {s.into for e in candidate.examples for s in e.session if s.into}
    if candidate.kind == "method" and candidate.parameters:
        if any(s.into is None for e in candidate.examples for s in e.session):
            built.add(candidate.parameters[0].name)  # the receiver its session builds
    return not any(
        p.required and (p.codec or "").startswith("handle") and p.name not in built
        for p in candidate.parameters
    )


def _makers(candidates: list[Candidate]) -> dict[str, Candidate]:
    """The functions and classes by the name code calls them, the first listed for each:
    what a test's argument was built by (``df = read_dataset("anova")``)."""
    found: dict[str, Candidate] = {}
    for candidate in candidates:
        if candidate.kind in ("function", "constructor"):
            short = candidate.name.rpartition(".")[2]
            found.setdefault(short, candidate)
    return found


def _with_usage(
    candidate: Candidate,
    usage: Usage,
    pinned: dict[str, set[str]] | None = None,
    makers: dict[str, Candidate] | None = None,
) -> Candidate:
    """The candidate with its usage count and the literal calls found for it.

    A name the guides import from one module (``pinned``: ``from pkg.io import write``)
    documents only the callable listed there: another ``write`` deep in the package takes
    neither its place in the README's order nor its calls.
    """
    short = candidate.name.rpartition(".")[2]
    if candidate.kind == "constructor":
        short = candidate.name
    pinned = pinned or {}
    paths = candidate_paths(candidate)
    elsewhere = {name for name, found in pinned.items() if not found & paths}
    count = usage.counts.get(short, 0)
    # A name the guides only show reading a file or a URL is not one a sandboxed tool runs.
    shown = [n for n in usage.documented if n not in usage.reads_files and n not in elsewhere]
    documented = _documented_at(candidate, short, shown)
    examples = list(candidate.examples)
    # A script's calls are command lines; a notebook is proven by its own stored outputs. A
    # method call's receiver is not a literal: its other arguments are, but what it returned
    # belongs to a receiver we do not rebuild, unless the receiver is an instance the class
    # or a module holds by the name the call wrote (``Geodesic.WGS84.Inverse(...)``).
    hints: dict[str, JSON] = {}
    if candidate.kind not in ("script", "notebook") and short not in elsewhere:
        for call in usage.calls.get(short, []):
            held = _held_receiver(candidate, call)
            if (
                not call.args
                and not call.kwargs
                and held is None
                and (candidate.kind == "method" or not call.has_expected)
            ):
                # A bare method call's result is its receiver's, which the test set up. A
                # bare function call that asserts a value (``aero = data.aero()``, then
                # ``assert_allclose(aero[:3, :3], ref)``) is kept: should global state the
                # test set make it differ, validation goes on to the next example.
                continue
            if call.method and candidate.kind != "method":
                continue  # ``sys.frequency_response(w)`` is no call of the function
            if call.unknown:
                for key, value in _hints(candidate, call).items():
                    hints.setdefault(key, value)
                continue
            example = _bind(candidate, call, receiver=candidate.kind == "method", held=held)
            if example is not None and call.built:
                example = _with_built(candidate, call, example, makers or {})
                if example is None:  # its other arguments are still the code's values
                    for key, value in _hints(candidate, call).items():
                        hints.setdefault(key, value)
                    continue
            if example is not None and example not in examples:
                examples.append(example)
                candidate = _set_codecs(candidate, call)
    if not any(e.origin != "synthesised" for e in examples):
        hints.update(_shipped_file(candidate, usage.data_files))
    if hints and not examples:
        # ``write('H2.xyz', h2)``, h2 no literal: the guide's file name beats one we make
        # up (a format read from its extension), the rest is synthesised as usual.
        guessed = synthesise_example(candidate.parameters, _context(candidate))
        examples.append(guessed.model_copy(update={"arguments": {**guessed.arguments, **hints}}))
    examples = [_with_shipped_files(candidate, e, usage.data_files) for e in examples]
    # A value the call returns itself proves more than one attribute of it.
    examples.sort(
        key=lambda e: (
            not e.has_expected,
            e.shown_loosely,  # a value read for sure first (nibabel's ``...)`` repr)
            e.attribute is not None or bool(e.reads),
        )
    )
    update = {"usage": candidate.usage + count, "examples": examples, "documented": documented}
    return candidate.model_copy(update=update)


def _with_built(
    candidate: Candidate, call: UsageCall, example: Example, makers: dict[str, Candidate]
) -> Example | None:
    """``example`` with each argument the code built by a call of the package's own
    callable (``data=df`` after ``df = read_dataset("anova")``) as a session step that calls
    that callable's tool ``into`` the parameter; None when one has no candidate or its
    arguments do not fit it. A usage example: nothing of it is the repository's line."""
    if candidate.kind == "method":
        return None  # a receiver this call never built
    steps: list[SessionStep] = []
    arguments = dict(example.arguments)
    for place, built in call.built.items():
        parameter = place
        if place.isdigit():  # by position: a parameter's name, never a ``*args`` item
            leading = candidate.positional[: int(place) + 1]
            if len(leading) <= int(place) or any(n.startswith("*") for n in leading):
                return None
            parameter = leading[-1]
        maker = makers.get(built.name)
        if maker is None:
            return None
        made = _bind(maker, UsageCall(args=built.args, kwargs=built.kwargs))
        if made is None or maker.target == candidate.target:
            return None
        arguments.pop(parameter, None)
        line = f"{parameter} = {built.line}"
        steps.append(
            SessionStep(line=line, target=maker.target, arguments=made.arguments, into=parameter)
        )
    return example.model_copy(update={"arguments": arguments, "session": steps})


def _with_shipped_files(candidate: Candidate, example: Example, data_files: list[str]) -> Example:
    """``example`` with each file it names by a path the repository does not hold
    (``dcmread("CT_small.dcm")``, the docs' own folder left out) given as the one data file
    the package ships under that name (``src/pydicom/data/test_files/CT_small.dcm``)."""
    files = {p.name for p in candidate.parameters if (p.codec or "").lstrip("?") in _FILE_CODECS}
    if not files or not data_files:
        return example
    arguments = dict(example.arguments)
    for name in files:
        given = arguments.get(name)
        if not isinstance(given, str) or given in data_files or "://" in given:
            continue
        named = [path for path in data_files if path.rpartition("/")[2] == given.rpartition("/")[2]]
        if len(named) == 1:
            arguments[name] = named[0]
    if arguments == example.arguments:
        return example
    return example.model_copy(update={"arguments": arguments})


_FILE_CODECS = {"file", "path"}


def _shipped_file(candidate: Candidate, data_files: list[str]) -> dict[str, JSON]:
    """For a required file parameter (codec ``file``) with no example, the shipped data
    file whose extension its docs, its callable's name or summary name ("the Gaussian log
    file": ``tests/data/h2o.log``), as that parameter's value; none when nothing says."""
    for parameter in candidate.parameters:
        if (parameter.codec or "") != "file" or not parameter.required:
            continue
        said = f"{parameter.description or ''} {candidate.name} {candidate.summary}".lower()
        words = set(re.findall(r"[a-z0-9]+", said))
        for path in data_files:
            extension = path.rpartition(".")[2].lower()
            if extension in words or (len(extension) > 3 and extension in said):
                return {parameter.name: path}
    return {}


def _set_codecs(candidate: Candidate, call: UsageCall) -> Candidate:
    """The candidate whose parameters a call passes set literals (``{"H2", "O2"}``) take a
    set: codec ``set`` where nothing else decodes them (the JSON list is rebuilt as one)."""
    if not call.sets:
        return candidate
    receiver = candidate.kind == "method"
    positional = candidate.positional[1:] if receiver else candidate.positional
    names = {positional[int(p)] for p in call.sets if p.isdigit() and int(p) < len(positional)}
    names |= {p for p in call.sets if not p.isdigit()}
    parameters = []
    for parameter in candidate.parameters:
        schema = parameter.json_schema
        plain = not ({"anyOf", "enum"} & set(schema)) and schema.get("type", "array") == "array"
        if parameter.name in names and parameter.codec is None and plain:
            described = parameter.description if parameter.description != ANY_JSON else None
            schema = {k: v for k, v in schema.items() if v != ANY_JSON}
            update = {"codec": "set", "json_schema": dict(schema, type="array")}
            parameter = parameter.model_copy(update=dict(update, description=described))
        parameters.append(parameter)
    return candidate.model_copy(update={"parameters": parameters})


def _documented_at(candidate: Candidate, short: str, documented: list[str]) -> int | None:
    """The first place the README and guides call the candidate, by any of its names."""
    names = {short} | {alias.rpartition(":")[2].rpartition(".")[2] for alias in candidate.aliases}
    places = [documented.index(name) for name in names if name in documented]
    return min(places) if places else candidate.documented


def _hints(candidate: Candidate, call: UsageCall) -> dict[str, JSON]:
    """The literal arguments of a call whose others are no literals, by parameter name
    (a method's receiver left out): values for those parameters, not an example."""
    receiver = candidate.kind == "method"
    positional = candidate.positional[1:] if receiver else candidate.positional
    own = {p.name for p in candidate.parameters[1 if receiver else 0 :]}
    found: dict[str, JSON] = {}
    for index, (name, value) in enumerate(zip(positional, call.args, strict=False)):
        if name.startswith("*"):
            break
        if str(index) not in call.unknown and str(index) not in call.built and name in own:
            found[name] = value
    for key, value in call.kwargs.items():
        if key not in call.unknown and key not in call.built and key in own:
            found[key] = value
    return found


def _held_receiver(candidate: Candidate, call: UsageCall) -> str | None:
    """The name of the held instance a method's call was made on, where the method's
    receiver takes it (its schema offers ``{"attribute": NAME}``); else None."""
    if candidate.kind != "method" or call.held is None or not candidate.parameters:
        return None
    return call.held if call.held in held_names(candidate.parameters[0].json_schema) else None


def _bind(
    candidate: Candidate, call: UsageCall, receiver: bool = False, held: str | None = None
) -> Example | None:
    """The call's arguments by parameter name, or None when they do not fit the tool.

    With ``receiver`` (a method called on an object), the first parameter is the object:
    the call's arguments bind to the others, and its result is not an expected value,
    unless the object is the instance its class or a module holds as ``held``: then the
    receiver is ``{"attribute": held}``, the very object the call was made on.
    """
    arguments: dict[str, JSON] = {}
    args = list(call.args)
    skipped = candidate.parameters[:1] if receiver else []
    positional = candidate.positional[1:] if receiver else candidate.positional
    for name in positional:
        if not args:
            break
        if name.startswith("*"):
            arguments[name[1:]], args = args, []
            break
        arguments[name] = args.pop(0)
    if args:
        return None
    for key, value in call.kwargs.items():
        if key in arguments:
            return None
        arguments[key] = value
    own = [p for p in candidate.parameters if p not in skipped]
    exposed = {p.name for p in own}
    required = {p.name for p in own if p.required}
    if not set(arguments) <= exposed or not required <= set(arguments):
        return None
    if receiver and held is None:
        return Example(arguments=arguments, origin="usage")
    if receiver:
        arguments = {skipped[0].name: {"attribute": held}, **arguments}
    return Example(
        arguments=arguments,
        expected=call.expected,
        has_expected=call.has_expected,
        wrapper=call.wrapper,
        part=call.part,
        attribute=call.attribute,
        reads=call.reads,
        tolerance=call.tolerance,
        origin="usage",
    )


def _spec(
    candidate: Candidate, constructors: dict[str, Candidate], used: set[str], targets: set[str]
) -> ToolSpec:
    codecs = {p.codec.lstrip("?").partition(":")[0] for p in candidate.parameters if p.codec}
    if candidate.kind == "constructor":
        codecs.add("handle")
    return ToolSpec(
        name=_unique(_tool_name(candidate), used, candidate.target),
        description=_description(candidate),
        target=candidate.target,
        parameters=candidate.parameters,
        examples=_examples(candidate, constructors.get(candidate.owner or ""), targets),
        codecs=sorted(codecs),
        kind=candidate.kind,
        keep=_builds_its_class(candidate),
        keep_text=any(e.has_expected and e.wrapper == "str" for e in candidate.examples),
        script=candidate.script,
        notebook=candidate.notebook,
        assigns=candidate.assigns,
        timeout=TUTORIAL_TIMEOUT if candidate.kind == "notebook" else None,
    )


def _builds_its_class(candidate: Candidate) -> bool:
    """A class method that returns its own class's object (``Version.parse``): another
    constructor, whose object a session's later calls need as a handle, even when the
    class has a JSON form (a record with ``to_dict``) that would lose it."""
    owner = candidate.returns
    return (
        candidate.kind == "function"
        and owner is not None
        and (candidate.target.startswith(owner + "."))
    )


def _tool_name(candidate: Candidate) -> str:
    if candidate.kind in ("function", "notebook") and not candidate.owner:
        return _NAME_OK.sub("_", candidate.name).strip("_") or "tool"
    snake = "_".join(_CAMEL.sub("_", part).lower() for part in candidate.name.split("."))
    if candidate.kind == "constructor":
        snake += "_new"
    return _NAME_OK.sub("_", snake).strip("_") or "tool"


def _unique(name: str, used: set[str], target: str = "") -> str:
    # MCP tool names are at most 64 characters; keep room for a "_NNN" suffix.
    name = name[:64]
    if name in used and ":" in target:  # two modules with the same name: say which module
        module = target.split(":")[0].rpartition(".")[2]
        name = _NAME_OK.sub("_", f"{module}_{name}")[:64]
    base, n = name[:60], 2
    while name in used:
        name, n = f"{base}_{n}", n + 1
    used.add(name)
    return name


def _examples(candidate: Candidate, owner: Candidate | None, targets: set[str]) -> list[Example]:
    # A session is replayed through its tools: one whose tools are not published cannot be.
    examples = [
        e
        for e in candidate.examples
        if all(s.attribute is not None or s.target in targets for s in e.session)
    ] or [synthesise_example(candidate.parameters, _context(candidate))]
    if candidate.kind == "method" and candidate.parameters:
        # A method's first parameter is the instance. A session example's receiver is the
        # one its session built (validation replays it); any other example, which never
        # carries an expected value (probe/sessions.py), gets one from the constructor's.
        handle = candidate.parameters[0]
        value = _instance_value(handle, owner)
        built = _built_by_tool(handle, owner, value, targets)
        sessions_only = all(e.session for e in examples)
        examples = [
            e
            if e.session or (handle.name in e.arguments and e.origin != "synthesised")
            else e.model_copy(
                update={
                    "arguments": {**e.arguments, handle.name: value},
                    "expected": None,
                    "has_expected": False,
                    "line": None,
                    "session": built,
                }
            )
            for e in examples
        ]
        if sessions_only and (built or (handle.codec or "").startswith("new:")):
            # Every example replays a session: when theirs cannot be (a chain through a
            # result that comes back as data), the constructor's object is a last receiver
            # (built by its tool, or from JSON by the ``new`` codec).
            fallback = synthesise_example(candidate.parameters[1:], _context(candidate))
            arguments = {**fallback.arguments, handle.name: value}
            examples.append(fallback.model_copy(update={"arguments": arguments, "session": built}))
    # Arguments the tool's own schema refuses cannot pass: keep the ones it accepts first
    # (stable, so proof still leads) before keeping MAX_EXAMPLES.
    schema = {
        "type": "object",
        "properties": {p.name: p.json_schema for p in candidate.parameters},
        "required": [p.name for p in candidate.parameters if p.required],
    }
    try:
        validator: Draft202012Validator | None = Draft202012Validator(schema)
    except jsonschema.SchemaError:
        validator = None
    if validator is not None:
        # A session example's receiver arrives at validation, from its session's first tool.
        examples = sorted(examples, key=lambda e: not (e.session or _valid(validator, e.arguments)))
    return _with_plain_call(examples)


def _with_plain_call(examples: list[Example]) -> list[Example]:
    """The first MAX_EXAMPLES examples, but where all of them show a value and the docs
    also call the tool plainly (``dcmread("CT_small.dcm")``, no output), that call takes
    the last place: values from the tests are tried first, and when none replays, the
    docs' own call still proves that the tool runs (each example is one try)."""
    kept = examples[:MAX_EXAMPLES]
    if len(kept) < MAX_EXAMPLES or not all(e.has_expected for e in kept):
        return kept
    plain = next(
        (e for e in examples[MAX_EXAMPLES:] if not e.has_expected and e.origin == "doctest"), None
    )
    return kept if plain is None else [*kept[:-1], plain]


def _valid(validator: Draft202012Validator, arguments: dict[str, JSON]) -> bool:
    try:
        return bool(validator.is_valid(arguments))
    except (jsonschema.SchemaError, TypeError, ValueError, RecursionError):
        return True  # a schema we cannot check does not reorder anything


def _built_by_tool(
    handle: Parameter, owner: Candidate | None, value: JSON, targets: set[str]
) -> list[SessionStep]:
    """The constructor tool's call that builds the receiver, when its arguments hold an
    object only that tool's codecs decode (``Region(earth={"attribute": "UNIT"})``: the
    ``new`` codec passes nested values as they are); else none (the codec builds it).

    A receiver that only a handle can be (codec ``handle``: no JSON form builds it) is
    built by the constructor tool with the arguments the docs call it with, else with its
    own first example's (as the ``new`` codec's receiver is; such an example has no
    expected value), else with its own synthesised ones: a handle id made up from the
    schema (``"abc"``) names no object, so that call could only fail."""
    if owner is None or owner.target not in targets:
        return []
    if (handle.codec or "").partition(":")[0] == "handle":
        documented = documented_arguments(owner)
        plain = [e for e in owner.examples if not e.session]
        if documented is None and plain:
            documented = dict(plain[0].arguments)
        if documented is None:  # nothing documented: its own best guess, as the new codec's
            documented = synthesise_example(owner.parameters, _context(owner)).arguments
        return [built_step(owner, documented, handle.name)]
    if not (handle.codec or "").startswith("new:"):
        return []
    spread = [p.name for p in owner.parameters if p.kind in ("var_positional", "var_keyword")]
    best = _best_arguments(owner)
    if any(best.get(name) for name in spread):
        # ``IIDBootstrap(x, y=y, z=z)``: the ``new`` codec takes its arguments as one list
        # or one object, never data by position and by keyword at once; the constructor
        # tool takes them as its own example does
        return [built_step(owner, best, handle.name)]
    if not isinstance(value, dict):
        return []
    coded = {p.name for p in owner.parameters if p.codec}
    if not any(_object_value(value.get(name)) for name in coded):
        return []
    return [built_step(owner, value, handle.name)]


def _object_value(value: JSON) -> bool:
    """A held instance or a handle, as a tool's codecs take them."""
    return isinstance(value, dict) and set(value) in ({"attribute"}, {"handle"})


def _instance_value(handle: Parameter, owner: Candidate | None) -> JSON:
    """JSON the ``new`` codec turns into an instance: the constructor's best arguments."""
    if owner is None or not (handle.codec or "").startswith("new:"):
        return value_for_parameter(handle)
    best = _best_arguments(owner)
    varargs = [p.name for p in owner.parameters if p.kind == "var_positional"]
    if varargs and best.get(varargs[0]):
        ordered = [
            p.name for p in owner.parameters if p.kind not in ("keyword_only", "var_keyword")
        ]
        return [best[n] for n in ordered if n in best and n != varargs[0]] + list(best[varargs[0]])
    return best


def _best_arguments(owner: Candidate) -> dict[str, JSON]:
    """The constructor's first example's arguments, else its synthesised ones."""
    first = (owner.examples or [synthesise_example(owner.parameters, _context(owner))])[0]
    return dict(first.arguments)


def _description(candidate: Candidate) -> str:
    text = candidate.doc.strip() or candidate.summary or f"Call {candidate.target}."
    # Keep the prose, not the doctest session: agents read descriptions, not transcripts.
    # Sessions may be indented (an "Examples:" section) or be the whole docstring.
    prose = _DOCTEST.split(text, maxsplit=1)[0].strip()
    prose = _EXAMPLES_HEADING.sub("", prose).strip() or f"Call {candidate.target}."
    if candidate.kind == "constructor":
        prose = f"Create a {candidate.name} and return a handle to it for other tools. {prose}"
    elif candidate.kind == "method" and candidate.parameters:
        owner = candidate.name.rpartition(".")[0]
        handle = candidate.parameters[0].name
        prose = f"{candidate.name} on the {owner} given by `{handle}`. {prose}"
    return prose[:MAX_DESCRIPTION]


def _context(candidate: Candidate) -> str:
    return callable_context(candidate.name, candidate.summary)
