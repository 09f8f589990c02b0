"""The typed values that flow between pipeline stages, and the conversion report.

Each stage is a function from some of these to another (see docs/ARCHITECTURE.md, "Data flow"). They
are pydantic models so that a stage's output can be stored, hashed and re-read. The report models
are the JSON contract (docs/ARCHITECTURE.md, "Contracts"); change both together.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from metaserver.exceptions import FailureType, UserError

JSON = Any  # a value json.dumps accepts; pydantic cannot check recursion cheaply

ResultPlace = int | list[int]
"""Where the item a source showed sits in a result its line unpacked: the item's index
(``cA, cD = dwt(x)`` then ``cD``: 1), or one index per level of a nested unpacking
(``cA, (cH, cV, cD) = dwt2(x)`` then ``cV``: ``[1, 1]``)."""

# What a registered server may be called, converted or added.
SERVER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")


def check_server_name(name: str) -> str:
    """``name`` when it is a valid server name, else a UserError saying what one is."""
    if not SERVER_NAME.match(name):
        raise UserError(
            f"invalid server name {name!r}: use 1-48 of a-z, 0-9, '-' and '_', "
            "starting with a letter or digit"
        )
    return name


class Source(BaseModel):
    """A parsed, validated SOURCE argument; nothing has been fetched yet."""

    kind: Literal["git", "local", "pypi", "archive"]
    location: str = Field(description="URL, absolute path, or distribution name.")
    version: str | None = Field(default=None, description="pypi: the pinned version, if any.")
    ref: str | None = Field(default=None, description="git: branch, tag or commit.")
    original: str = Field(description="The SOURCE exactly as given.")


class Workspace(BaseModel):
    """A private copy of the repository that later stages may read (never the original)."""

    source: Source
    path: Path
    commit: str | None = None
    version: str | None = None
    distribution: str | None = Field(default=None, description="Project name, when declared.")
    fingerprint: str | None = Field(
        default=None,
        description="Identifies the fetched tree for caches (pypi name and version, git URL "
        "and commit, archive hash, a local directory's content hash).",
    )


class EnvironmentAttempt(BaseModel):
    """One rung of the environment strategy ladder, and the lines that decided it."""

    strategy: str
    ok: bool
    seconds: float
    error: str | None = None
    python: str | None = Field(default=None, description="Interpreter version it used.")


# The file the requirements+path strategy writes into an environment's site-packages to put
# the workspace on the import path; whoever launches the environment's Python reads it to
# make that directory readable in the sandbox.
PTH_NAME = "metaserver_workspace.pth"


class InstalledExtra(BaseModel):
    """A declared optional extra of the distribution, installed because its guides need it."""

    name: str = Field(description="The extra, as the distribution declares it.")
    requirements: list[str] = Field(default_factory=list, description="What it installed.")
    reason: str = Field(description="The guide import that needs it.")


class Environment(BaseModel):
    """An isolated virtual environment with the repository installed."""

    ok: bool
    strategy: str
    python: str = Field(description="Interpreter version, such as 3.11.7.")
    python_path: Path = Field(description="The environment's python executable.")
    venv: Path
    seconds: float
    lock: str = Field(default="", description="`uv pip freeze` of the environment.")
    attempts: list[EnvironmentAttempt] = Field(default_factory=list)
    requested_version: str | None = Field(
        default=None, description="The workspace's version (what the source declared)."
    )
    installed_version: str | None = Field(
        default=None, description="The distribution's version actually installed."
    )
    cached: bool = Field(default=False, description="Copied from a stored environment.")
    extras: list[InstalledExtra] = Field(
        default_factory=list,
        description="Optional extras installed because the README or guides import what "
        "they provide (agents/environment/extras.py).",
    )


class ResultRead(BaseModel):
    """One read a test makes of a result before it asserts a value (``round(stats.at[0,
    "chi2"], 3)``: an index, then a rounding), applied to the tool's JSON answer
    (agents/validate/result_reads.py)."""

    op: Literal["index", "round", "len", "shape", "int"]
    keys: list[JSON] = Field(
        default_factory=list,
        description="index: one key per dimension, an int, a string, or a slice "
        '``{"slice": [start, stop, step]}`` (each null when absent).',
    )
    via: Literal["loc", "iloc"] | None = Field(
        default=None,
        description="index: by pandas' label (``.at``, ``.loc``) or position (``.iat``, "
        "``.iloc``) indexer, whose first key is a row; null: a plain subscript.",
    )
    digits: int | None = Field(default=None, description="round: the decimals kept.")


class Tolerance(BaseModel):
    """The closeness a test asserted a value with (``np.isclose(p, 1.877e-06)``: numpy's
    ``rtol=1e-05, atol=1e-08``; ``assert_allclose(x, ref, rtol=1e-4)``): numbers within it
    match, as they did for the test. At most ``MAX_REL`` and ``MAX_ABS``
    (repo_docs/test_calls.py): a looser assertion proves nothing a value can check."""

    rel: float = Field(default=0.0, ge=0.0, description="Relative tolerance.")
    abs: float = Field(default=0.0, ge=0.0, description="Absolute tolerance.")


class SessionStep(BaseModel):
    """One line of a doctest session replayed before the documented call: the receiver's
    construction, or a call on it that changes its state.
    """

    line: str = Field(description="The doctest line as the repository writes it.")
    target: str = Field(description="The constructor or method it calls (module:qualname).")
    member: str | None = Field(
        default=None, description="The method's name on the receiver; None: the constructor."
    )
    arguments: dict[str, JSON] = Field(
        default_factory=dict, description="Its literal arguments, the receiver excluded."
    )
    attribute: str | None = Field(
        default=None,
        description="The receiver is this class attribute (``Geodesic.WGS84``), passed as "
        '{"attribute": NAME}; no tool call.',
    )
    into: str | None = Field(
        default=None,
        description="The documented call's parameter that takes this step's result (its "
        "handle, or its JSON value); None: the step builds or sets up the receiver.",
    )
    item: int | None = Field(
        default=None,
        description="With ``into`` a ``*args`` parameter or a list argument "
        "(``covariance_matrix([u, v])``): the result's place in its list.",
    )
    part: int | None = Field(
        default=None,
        description="With ``into``: the step's result is a sequence the line unpacked "
        "(``signal, bkps = pw_constant(1000, 3, 4)``) and the argument is its item at this "
        "place.",
    )
    feeds: int | None = Field(
        default=None,
        description="With ``into``: the index of the later setup step whose parameter "
        "``into`` takes this step's result (``algo.fit(signal)`` after ``signal, bkps = "
        "pw_constant(...)``); None: the documented call's parameter.",
    )
    typed: bool = Field(
        default=False,
        description="The docs never built this argument (``lqr(sys)``): it is built by the "
        "constructor of the class the parameter's type names, with that constructor's own "
        "documented arguments (design fills ``arguments`` in).",
    )
    chained: bool = Field(
        default=False,
        description="A call on the receiver whose result is the receiver from then on (a "
        'chain: ``now("UTC").add(days=1)``); False: it sets the receiver up in place.',
    )
    takes: dict[str, int | list[int]] = Field(
        default_factory=dict,
        description="Parameters of this step that take an object an earlier step of the "
        "session built (``resp = frequency_response(sys)`` after ``sys = rss(4, 2, 1)``): "
        "the index of the step after which the session's object is the one to pass; a "
        "list of such indices for a list of objects (``PVSystem(arrays=[one, two])``), "
        "passed as the list of those objects, in order.",
    )
    on: int | None = Field(
        default=None,
        description="A setup call of an argument built by an earlier step (``G.add_edge("
        '"A", "B")`` after ``G = Graph()``, for ``shortest_path(G, "A", "B")``): the index '
        "of the step that built it; ``member`` is the method, whose tool gets that step's "
        "handle as its receiver. None: not an argument's setup.",
    )
    assign: str | None = Field(
        default=None,
        description="An attribute assignment (``m.scale = Scale(2)``): the attribute it sets "
        "on the receiver (or, with ``on``, on that step's object); ``target`` is the class's "
        "setter tool (``module:Class.attribute``), whose ``value`` is the literal in "
        "``arguments`` or the object ``takes`` names. None: a call.",
    )
    tool: str | None = Field(default=None, description="The tool validation replayed it with.")
    receiver: str | None = Field(
        default=None, description="That tool's handle parameter (None: it builds the receiver)."
    )


class Example(BaseModel):
    """Arguments for one call, and the value the source says it returns (if it says)."""

    arguments: dict[str, JSON]
    expected: JSON = None
    has_expected: bool = False
    wrapper: str | None = Field(
        default=None, description="How the doctest consumed the result: list, sorted, set..."
    )
    origin: Literal["doctest", "usage", "synthesised", "llm", "notebook"] = "doctest"
    part: ResultPlace | None = Field(
        default=None,
        description="The source shows one item of the result, which its line unpacked "
        "(``cA, cD = dwt(x)`` then ``cA``): ``expected`` is that item's value, at this place "
        "(a list: the place at each level of a nested unpacking).",
    )
    attribute: str | None = Field(
        default=None,
        description="The source reads this attribute of the result (``res = fit(y)`` then "
        "``assert res.nobs == 100``): ``expected`` is its value, which the tool returns among "
        "its handle's ``fields``.",
    )
    reads: list[ResultRead] = Field(
        default_factory=list,
        description="What the source reads of the result (its ``attribute`` first, if any) "
        "before comparing it with ``expected``: ``round(stats.at[0, 'chi2'], 3) == 22.717``.",
    )
    tolerance: Tolerance | None = Field(
        default=None,
        description="The closeness the source asserted ``expected`` with (a test's "
        "``np.allclose``, ``rtol=``); None: as shown (half a unit of its last digit).",
    )
    line: str | None = Field(
        default=None,
        description="The repository's own line whose output is documented, when the example "
        "is that line unchanged (its receiver, if any, built by ``session``).",
    )
    session: list[SessionStep] = Field(
        default_factory=list,
        description="For a method: the doctest lines before ``line`` that build its receiver "
        "and set it up, replayed through their tools before the call.",
    )

    @property
    def shown_loosely(self) -> bool:
        """Whether what it shows may prove unreadable against the result (a printed table
        of another shape, an ELLIPSIS text the JSON form does not print): then the call
        passes by ``no-error``, so it is tried after the examples whose value is read."""
        return self.has_expected and self.wrapper in LOOSELY_SHOWN

    @property
    def promises_value(self) -> bool:
        """Whether what it shows is a value validation can be expected to read: not one
        line of text with no ELLIPSIS read loosely (an object's repr a page printed,
        ``{(np.int64(1), np.int64(1)): 0.765}``, which the answer's JSON seldom prints
        alike). Ranking and the tool budget count these as proof to come; the others are
        tried all the same, and pass by ``no-error`` where the answer does not show them."""
        if not self.has_expected:
            return False
        text = str(self.expected)
        return not (self.wrapper == "ellipsis" and "\n" not in text and "..." not in text)

    @property
    def shows_repository_value(self) -> bool:
        """A value the repository's own text shows for this call, not one we made up: when
        the code disagrees, only another such value can settle it (repair/catalogue.py)."""
        return self.has_expected and self.origin != "synthesised"


LOOSELY_SHOWN = frozenset({"table", "ellipsis"})
"""Wrappers of a shown value that validation may find no way to read (validate/calls.py)."""


class Parameter(BaseModel):
    name: str
    kind: Literal[
        "positional_only", "positional_or_keyword", "keyword_only", "var_positional", "var_keyword"
    ]
    json_schema: dict[str, JSON] = Field(default_factory=dict)
    required: bool = True
    default: JSON = None
    description: str | None = None
    codec: str | None = Field(
        default=None, description="Runtime codec that decodes the argument (None: plain JSON)."
    )
    unset_default: bool = Field(
        default=False,
        description="Optional, with a default that has no JSON form (a sentinel): an argument "
        "left out (or null) is not passed, so the callable's own default applies.",
    )


CallableKind = Literal["function", "constructor", "method", "script", "notebook"]


class ScriptArgument(BaseModel):
    """How one tool parameter of a script tool becomes command-line words (argparse terms)."""

    name: str = Field(description="The tool parameter it comes from.")
    options: list[str] = Field(
        default_factory=list, description="Option strings, such as --top and -t; none: positional."
    )
    action: Literal["value", "switch", "append", "count", "bool_optional"] = Field(
        default="value",
        description="value: the value(s) after the option; switch: the bare option when true; "
        "append: the option once per item; count: the option n times; bool_optional: "
        "--flag or --no-flag.",
    )
    nargs: str | int | None = None
    type: Literal["str", "int", "float"] = "str"


class ScriptTarget(BaseModel):
    """A command-line entry point a script tool runs in a subprocess, and its arguments."""

    mode: Literal["path", "module", "function"] = Field(
        description="path: python FILE; module: python -m MODULE; function: a console "
        "script's MODULE:FUNCTION called with sys.argv set."
    )
    prog: str = Field(description="The name the script is known by (argv[0]).")
    path: str | None = Field(default=None, description="path: relative to the workspace root.")
    module: str | None = None
    function: str | None = Field(default=None, description="function: its qualified name.")
    arguments: list[ScriptArgument] = Field(default_factory=list)


class NotebookCell(BaseModel):
    """One code cell of a notebook tool (its stored outputs are the tool's example)."""

    cell: int = Field(description="The cell's index among all cells of the notebook.")
    source: str


class NotebookTarget(BaseModel):
    """An executed notebook a notebook tool runs: its code cells and where parameters go."""

    path: str = Field(description="Relative to the repository root.")
    cells: list[NotebookCell]
    parameters_cell: int | None = Field(
        default=None, description="The cell (index into cells) after which parameters are set."
    )
    parameters_after: int | None = Field(
        default=None,
        description="Parameters are set after this many top-level statements of the "
        "parameters cell, before the rest of it runs; None: after the whole cell.",
    )
    data: list[str] = Field(
        default_factory=list,
        description="Repository files the cells read, relative to the notebook's folder; "
        "copied into the server and into each run's directory.",
    )
    data_from: dict[str, str] = Field(
        default_factory=dict,
        description="A data file of ``data`` the notebook's folder does not hold under the name "
        "the cells read (``load('x.npy', folder='data')`` reads ``data/x.npy`` where the "
        "tutorial runs), by its path in the repository: the same path in a folder above the "
        "notebook's, as a docs build run from the repository's root finds it.",
    )
    workdir: str = Field(
        default="",
        description="The folder the cells run in, relative to the run's directory: the last "
        "components of the notebook's own folder, as many as its data paths climb (``..``), "
        "so that ``../data/x.csv`` is found where it is beside the notebook. Empty: the run's "
        "directory itself.",
    )
    kind: Literal["notebook", "script", "page"] = Field(
        default="notebook",
        description="notebook: an .ipynb's code cells; script: a worked example's blocks (a "
        "sphinx-gallery ``# %%`` script, an ``examples/*.py``); page: a docs page's code "
        "blocks and ``>>>`` examples, in page order, as one session.",
    )


class Candidate(BaseModel):
    """A public callable the probe found, described well enough to design a tool from."""

    target: str = Field(description="Import path, package.module:qualname.")
    name: str
    signature: str
    parameters: list[Parameter]
    hidden_parameters: list[str] = Field(
        default_factory=list, description="Optional parameters JSON cannot express; left out."
    )
    doc: str = ""
    summary: str = ""
    examples: list[Example] = Field(default_factory=list)
    in_all: bool = False
    top_level: bool = False
    kind: CallableKind = "function"
    owner: str | None = Field(default=None, description="The class, for its members.")
    positional: list[str] = Field(
        default_factory=list, description="Positional parameter names in order, hidden too."
    )
    aliases: list[str] = Field(default_factory=list, description="Other public import paths.")
    returns: str | None = Field(
        default=None,
        description="For a function: the package's class (its constructor's target) that its "
        "return annotation or docstring's Returns section names.",
    )
    bases: list[str] = Field(
        default_factory=list,
        description="For a constructor: the package's classes (their constructors' targets) "
        "the class inherits from.",
    )
    dangerous: str | None = Field(default=None, description="Why it is unsafe as a tool.")
    deprecated: bool = False
    annotated: float = Field(default=0.0, description="Share of parameters annotated.")
    usage: int = Field(default=0, description="Mentions in README, docs, tests and examples.")
    documented: int | None = Field(
        default=None,
        description="Where the README and docs guides first call it, in reading order "
        "(0: the first name a reader meets); None when they never do.",
    )
    defined_in: str | None = Field(
        default=None,
        description="For a method, the class that defines it (module:qualname); an inherited "
        "method is listed under every subclass but is one callable.",
    )
    script: ScriptTarget | None = Field(
        default=None, description="For kind script: the entry point and its arguments."
    )
    notebook: NotebookTarget | None = Field(
        default=None, description="For kind notebook: its code cells."
    )
    assigns: str | None = Field(
        default=None,
        description="For a setter (kind method, target ``module:Class.attribute``): the "
        "attribute it sets on its receiver to its ``value``, as the docs assign it "
        "(``m.scale = Scale(2)``); None for any callable.",
    )


class SkippedCallable(BaseModel):
    target: str
    reason: str


class CodeReport(BaseModel):
    packages: list[str]
    candidates: list[Candidate]
    skipped: list[SkippedCallable] = Field(default_factory=list)
    unread: list[SkippedCallable] = Field(
        default_factory=list,
        description="What the probe left unread when its time budget was spent (modules not "
        "walked, callables not described), per package.",
    )


class ToolSpec(BaseModel):
    """One tool of a generated server, bound to a real callable."""

    name: str
    description: str
    target: str
    parameters: list[Parameter]
    examples: list[Example] = Field(default_factory=list)
    codecs: list[str] = Field(default_factory=list)
    timeout: float | None = Field(
        default=None, description="Seconds a call may take; unset uses the configured default."
    )
    kind: CallableKind = Field(
        default="function", description="A constructor's tool returns a handle to its object."
    )
    keep: bool = Field(
        default=False,
        description="The result stays a handle even when it has a JSON form, as a "
        "constructor's does: a class method that builds its own class's object "
        "(``Version.parse``), whose result is meant for later calls.",
    )
    keep_text: bool = Field(
        default=False,
        description="The docs show its result as text (``str(v.bump())``): an object of the "
        "package's own class stays a handle, whose ``text`` is that text, even when it has a "
        "JSON form (the fields would lose it); any other value is returned as JSON.",
    )
    script: ScriptTarget | None = Field(
        default=None,
        description="For kind script: what the tool runs, and how its "
        "parameters become the command line.",
    )
    notebook: NotebookTarget | None = Field(
        default=None, description="For kind notebook: the code cells the tool runs."
    )
    assigns: str | None = Field(
        default=None,
        description="A setter tool: the attribute it sets on its receiver to its ``value`` "
        "(the docs' ``m.scale = Scale(2)``); None: the tool calls its target.",
    )
    requests: list[str] = Field(
        default_factory=list,
        description="Example requests a user might make that this tool answers, written by "
        "the model (agents/llm/requests.py); registered for search. Empty: the registry "
        "writes deterministic ones.",
    )

    @property
    def input_schema(self) -> dict[str, JSON]:
        return {
            "type": "object",
            "properties": {p.name: p.json_schema for p in self.parameters},
            "required": [p.name for p in self.parameters if p.required],
        }

    def definition_hash(self) -> str:
        """A stable hash of what the tool is, for provenance and change detection."""
        body = self.model_dump(mode="json", include={"name", "target", "parameters", "codecs"})
        if self.script is not None:  # only then: other tools keep their hashes
            body["script"] = self.script.model_dump(mode="json")
        if self.notebook is not None:
            body["notebook"] = self.notebook.model_dump(mode="json")
        if self.assigns is not None:
            body["assigns"] = self.assigns
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


CheckKind = Literal["expected-value", "no-error", "notebook-outputs", "notebook-run"]
# The one vocabulary of repairs: the catalogue plans them, the review model may propose them
# (agents/llm/review.py), and agents/repair/rounds.py applies every one.
RepairKind = Literal["add_dependency", "longer_timeout", "next_example", "drop", "array_codec"]
REPAIR_KINDS: tuple[RepairKind, ...] = ("next_example", "drop", "add_dependency", "longer_timeout")
"""The repairs a review model may choose; ``array_codec`` is the catalogue's alone (an
error that shows a list used as an array says which, with no judgment to make)."""


ARRAY_READS = frozenset({"shape", "ndim", "size"})
"""What a test reads of an array that its JSON list still tells (``out.shape == (2, 100)``):
an example proven so proves the array's shape, and its server's replayed test compares
that, not the items (a random sample's differ each run)."""


class Evidence(BaseModel):
    arguments: dict[str, JSON]
    result: JSON = None
    expected: JSON = None
    part: ResultPlace | None = Field(
        default=None,
        description="expected-value: ``expected`` is the value of the result's item at this "
        "place (the source unpacked the result and showed that item; a list: the place at "
        "each level of a nested unpacking); null: the result's.",
    )
    attribute: str | None = Field(
        default=None,
        description="expected-value: ``expected`` is the value of this attribute of the result "
        "(a handle's ``fields``); null: the result's own.",
    )
    reads: list[ResultRead] = Field(
        default_factory=list,
        description="expected-value: what the source read of the result (after "
        "``attribute``) before the comparison; ``expected`` is that read's value.",
    )
    tolerance: Tolerance | None = Field(
        default=None,
        description="expected-value: the closeness the source asserted ``expected`` with "
        "(None: as shown).",
    )
    check: CheckKind = "no-error"
    compared: list[JSON] = Field(
        default_factory=list,
        description="notebook-outputs: each stored output beside the rerun's, and whether "
        "they matched.",
    )
    replay: list[str] = Field(
        default_factory=list,
        description="The repository's own example as replayed (session lines, then the line "
        "whose output is documented); ``result`` is what it returned. Present on every "
        "repo_internal_bug verdict.",
    )
    session: list[SessionStep] = Field(
        default_factory=list, description="The calls that built and set up the receiver."
    )
    receiver: str | None = Field(
        default=None, description="The parameter that took the session's receiver handle."
    )
    other_run: JSON = Field(
        default=None,
        description="notebook-run: the run with other parameters (``arguments``; ``passed``: it "
        "finished and showed the same kinds of outputs; ``differences``; when it did not, "
        "``fixed``: the parameters that fail moved alone, values the tutorial fixes elsewhere, "
        "and ``varies``: those that run moved alone; the tool stands on its faithful runs); "
        "null: none to vary.",
    )
    unseeded: bool = Field(
        default=False,
        description="notebook-run: two runs with the same parameters disagreed (unseeded "
        "randomness); reported, never passed.",
    )
    disagreed: list[str] = Field(
        default_factory=list,
        description="expected-value: the repository's other shown values this tool's answer "
        "differed from, while the value it is proven by agreed (a README line older than "
        "the code it shows): each as the check said it.",
    )


class ToolEvidence(BaseModel):
    """What validation saw when it called one tool through MCP."""

    name: str
    target: str
    status: Literal["passed", "failed", "dropped"]
    evidence: Evidence | None = None
    error: str | None = None
    failure_type: FailureType | None = None
    repaired: str | None = Field(
        default=None, description="The repair that made a failed tool pass, if one did."
    )
    program: str | None = Field(
        default=None,
        description="The external program the library runs that is not installed, when "
        "that alone failed the call (failure_type env_failure; validate/programs.py).",
    )


class Failure(BaseModel):
    type: FailureType
    detail: str


class EnvironmentSummary(BaseModel):
    ok: bool
    strategy: str | None = None
    python: str | None = None
    seconds: float = 0.0
    requested_version: str | None = None
    installed_version: str | None = None
    cached: bool = False
    attempts: list[EnvironmentAttempt] = Field(default_factory=list)
    added: list[str] = Field(
        default_factory=list,
        description="Distributions installed because the import probe found their modules "
        "missing (imported by the package, not declared).",
    )
    extras: list[InstalledExtra] = Field(
        default_factory=list,
        description="Optional extras of the distribution installed because the README or "
        "guides import a module they provide.",
    )


class LLMUsage(BaseModel):
    """What the optional model cost and gave in one conversion (zeros without a model)."""

    model: str | None = None
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    failed_calls: int = Field(
        default=0, description="Calls that gave no usable answer: errors, timeouts, bad JSON."
    )
    rejected: int = Field(
        default=0, description="Proposals in usable answers that failed validation."
    )
    contributed: dict[str, int] = Field(
        default_factory=dict,
        description="Accepted proposals by kind: selected, renamed, described, examples.",
    )
    rejections: dict[str, int] = Field(
        default_factory=dict,
        description="Rejected proposals by why: invalid, repeated, cut, ungrounded, "
        "schema_echo, unfit (no prompt fitted the context).",
    )
    errors: list[str] = Field(
        default_factory=list, description="The first few distinct call failures, one line each."
    )
    seconds: float = Field(
        default=0.0,
        description="Wall time of the model's work: its refinement steps and review calls.",
    )
    allowance_seconds: float | None = Field(
        default=None,
        description="The most the model's work may take in this conversion: time_share times "
        "the seconds the conversion took before it, within budget_seconds "
        "(agents/llm/allowance.py). None: no model, or budget_seconds alone.",
    )
    skipped: dict[str, int] = Field(
        default_factory=dict,
        description="Requests not sent, by answer kind (tool_selection, tool_descriptions, "
        "tool_example, tool_requests, tool_diagnosis): at the server's measured speed their "
        "least answer could not arrive in the model time left. The deterministic result stays.",
    )
    cut_to_time: int = Field(
        default=0,
        description="Requests whose answer's length was cut to what the model time left "
        "affords (their max_tokens).",
    )
    tokens_per_second: dict[str, float] = Field(
        default_factory=dict,
        description="The server's speed as measured from its answers: prompt (tokens read) "
        "and generated; a key is absent where unmeasured.",
    )


class ToolChanges(BaseModel):
    """How a conversion's tools differ from the server's previous newest version (provenance,
    ARCHITECTURE.md decision 9): tool names, compared by definition hash."""

    previous_version: str
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)


class Coverage(BaseModel):
    """The entry points the repository's README and guides call, and those that became
    passed tools (names as called: functions, methods, classes)."""

    documented: list[str] = Field(default_factory=list)
    covered: list[str] = Field(default_factory=list)
    basis: Literal["readme", "namespace"] = Field(
        default="readme",
        description="Where ``documented`` comes from: the README and guides, or, where they "
        "call none of the package, its public namespace (top-level exports, else ``__all__``, "
        "else what its tests call; most tested first): neither 100% nor n/a for a README "
        "with no code.",
    )
    reads_files: list[str] = Field(
        default_factory=list,
        description="Documented names whose every call in the guides reads a file or a URL, "
        "or whose callables reach the network or a process: listed, not counted in ratio (a "
        "sandboxed tool has neither).",
    )
    needs_programs: list[str] = Field(
        default_factory=list,
        description="Documented names not covered because their tools failed only for an "
        "uninstalled external program (``nwchem``): listed, not counted in ratio.",
    )
    needs_data: list[str] = Field(
        default_factory=list,
        description="Documented names not covered whose every guide call takes data the guide "
        "read from a file or the network first (``run(weather)`` after ``weather = "
        "fetch_tmy(...)``): listed, not counted in ratio (no sandboxed tool has it).",
    )
    ratio: float | None = Field(
        default=None,
        description="covered / documented, both without reads_files, needs_programs and "
        "needs_data; null when nothing else is documented.",
    )


class TutorialSummary(BaseModel):
    """Notebooks and example scripts: found, run, proven, skipped (issue 30)."""

    found: int = Field(default=0, description="Notebooks and example scripts in the source.")
    tools: int = Field(default=0, description="Those that became tools and were validated.")
    stored: int = Field(
        default=0, description="Tools checked against stored outputs (notebook-outputs)."
    )
    executed: int = Field(
        default=0,
        description="Tools without stored outputs, run here to make the reference they are "
        "then checked against (notebook-run).",
    )
    passed: dict[str, int] = Field(
        default_factory=dict, description="Passed tools by check: notebook-outputs, notebook-run."
    )
    unseeded: list[str] = Field(
        default_factory=list,
        description="Tools whose two runs with the same parameters disagreed: not passed.",
    )
    skipped: dict[str, int] = Field(
        default_factory=dict,
        description="Skipped ones by reason (its words before any parenthesis); each is in "
        "notebooks_skipped with its full reason.",
    )


class ConversionReport(BaseModel):
    """The result of one conversion; the JSON contract of ARCHITECTURE.md."""

    server: str
    source: str
    repository: str | None = Field(
        default=None, description="When SOURCE is a paper: the repository link converted."
    )
    commit: str | None = None
    status: Literal["success", "failed"] = "failed"
    failure: Failure | None = None
    environment: EnvironmentSummary = Field(default_factory=lambda: EnvironmentSummary(ok=False))
    tools: list[ToolEvidence] = Field(default_factory=list)
    tools_passed: int = 0
    passed_by_check: dict[str, int] = Field(
        default_factory=dict,
        description="Passed tools by the check that proved them (expected-value, "
        "notebook-outputs, notebook-run, no-error); only checks that proved one.",
    )
    rounds: int = 0
    seconds: dict[str, float] = Field(default_factory=dict)
    llm: LLMUsage = Field(default_factory=LLMUsage)
    bytes: int | None = Field(
        default=None,
        description="Disk bytes of the registered server and its environment (files shared "
        "with other environments counted too).",
    )
    output_dir: str | None = None
    changes: ToolChanges | None = Field(
        default=None,
        description="Against the previous newest version of the server; null for a first "
        "conversion or a failed one.",
    )
    notebooks_skipped: list[SkippedCallable] = Field(
        default_factory=list,
        description="Notebooks and example scripts in the source that did not become tools, "
        "each with the reason (the network, a shell, a cell magic, missing data, the time "
        "budget, nothing new shown...).",
    )
    tutorials: TutorialSummary | None = Field(
        default=None,
        description="The worked examples (notebooks, example scripts) and what became of "
        "them; null when the source has none.",
    )
    coverage: Coverage = Field(
        default_factory=Coverage, description="README coverage of the passed tools."
    )
    analysis_unread: list[SkippedCallable] = Field(
        default_factory=list,
        description="What the analysis probe left unread because its time budget was spent "
        "(a very large library): modules not walked, callables not described, per package. "
        "Empty when it read everything.",
    )


MIN_TOOLS_PASSED = 3
"""The contract: a conversion succeeds only with at least this many validated tools."""
