"""Argument variants the repair loop tries after a call that our arguments broke."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repair.catalogue import (
    RepairState,
    alternative_examples,
    plan_repairs,
    synthesised_variants,
)
from metaserver.agents.validate.calls import MAX_ATTEMPTS
from metaserver.contracts import (
    JSON,
    Evidence,
    Example,
    NotebookCell,
    NotebookTarget,
    Parameter,
    SessionStep,
    ToolEvidence,
    ToolSpec,
)


def _param(name: str, schema: dict[str, JSON], required: bool = True) -> Parameter:
    return Parameter(name=name, kind="positional_or_keyword", json_schema=schema, required=required)


def test_variants_vary_each_required_parameter_by_its_type() -> None:
    variants = synthesised_variants(
        [_param("n", {"type": "integer"}), _param("flag", {"type": "boolean"})], limit=4
    )
    assert [v.arguments for v in variants] == [
        {"n": 1, "flag": False},
        {"n": 3, "flag": True},
        {"n": 0, "flag": False},
        {"n": 10, "flag": True},
    ]
    assert {v.origin for v in variants} == {"synthesised"}


def test_an_object_with_declared_fields_is_only_sent_with_those_fields() -> None:
    built = {
        "type": "object",
        "properties": {"start": {"type": "number"}, "label": {"type": "string"}},
        "required": ["start"],
    }
    variants = synthesised_variants([_param("acc", {"anyOf": [built, {"type": "null"}]})])
    assert {str(v.arguments) for v in variants} == {str({"acc": {"start": 1.5}})}
    empty = {"type": "object", "properties": {}, "required": []}
    assert synthesised_variants([_param("acc", empty)])[0].arguments == {"acc": {}}


def test_no_required_parameter_means_one_empty_call() -> None:
    (only,) = synthesised_variants([_param("x", {"type": "integer"}, required=False)])
    assert only.arguments == {}


def _notebook_spec(*sources: str) -> ToolSpec:
    cells = [NotebookCell(cell=i, source=text) for i, text in enumerate(sources)]
    return ToolSpec(
        name="tour",
        description="The tutorial.",
        target="docs/tour.ipynb",
        parameters=[],
        kind="notebook",
        notebook=NotebookTarget(path="docs/tour.ipynb", cells=cells),
    )


def _refused(spec: ToolSpec, error: str, evidence: Evidence) -> ToolEvidence:
    """A call our arguments broke (``api_inference_error``), with what it was given."""
    return ToolEvidence(
        name=spec.name,
        target=spec.target,
        status="failed",
        error=error,
        failure_type="api_inference_error",
        evidence=evidence,
    )


def _failed(spec: ToolSpec, error: str) -> ToolEvidence:
    return ToolEvidence(
        name=spec.name,
        target=spec.target,
        status="failed",
        error=error,
        failure_type="import_error",
    )


def test_a_notebooks_missing_module_comes_with_its_other_imports(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()  # the repository's own package is not installed from the index
    tour = _notebook_spec(
        "import numpy as np\nimport matplotlib.pyplot as plt\nimport os, json",
        "from pkg.core import run\nfrom sklearn import svm\nfrom . import local",
        "import corner",
    )
    error = "cell 2 raised ModuleNotFoundError: No module named 'matplotlib'"

    (repair,) = plan_repairs([tour], {"tour": _failed(tour, error)}, RepairState(), tmp_path)

    assert repair.kind == "add_dependency" and repair.package == "matplotlib"
    assert repair.companions == ["corner", "numpy", "scikit-learn"]


def test_a_library_asking_for_its_optional_dependency_gets_it(tmp_path: Path) -> None:
    (tmp_path / "pkg.py").write_text("")
    tour = _notebook_spec("import pkg")
    error = "cell 3 raised ImportError: you must install 'h5py' to use the HDFBackend"

    (repair,) = plan_repairs([tour], {"tour": _failed(tour, error)}, RepairState(), tmp_path)

    assert (repair.kind, repair.package, repair.companions) == ("add_dependency", "h5py", [])


def test_a_tutorial_that_timed_out_is_dropped_not_given_four_times_its_time(
    tmp_path: Path,
) -> None:
    # Issue 30: PyDMD's tutorial timed out at 120 s, was given 480 s, timed out again; its
    # conversion ran past 1800 s. A tutorial's run already has half the tutorials' budget.
    tour = _notebook_spec("import time\ntime.sleep(1000)").model_copy(update={"timeout": 120.0})
    late = _failed(tour, "tour timed out after 120 s").model_copy(
        update={"failure_type": "timeout"}
    )
    function = ToolSpec(
        name="slow", description="A function.", target="pkg:slow", parameters=[], timeout=30.0
    )
    slow = ToolEvidence(
        name="slow", target="pkg:slow", status="failed", error="timed out", failure_type="timeout"
    )

    tutorial, other = plan_repairs(
        [tour, function], {"tour": late, "slow": slow}, RepairState(), tmp_path
    )

    assert tutorial.kind == "drop" and tutorial.error is not None
    assert tutorial.error.startswith("a tutorial run past its 120 s is past the tutorials'")
    assert tutorial.error.endswith("(tour timed out after 120 s)")
    assert other.kind == "longer_timeout"  # a function still gets its one longer try


def test_a_module_whose_install_was_refused_drops_its_tool_with_that_reason(
    tmp_path: Path,
) -> None:
    tour = _notebook_spec("import ezyrb")
    error = "cell 1 raised ModuleNotFoundError: No module named 'ezyrb'"
    state = RepairState(installed={"ezyrb"}, refused={"ezyrb": "it would download 3165 MB"})

    (repair,) = plan_repairs([tour], {"tour": _failed(tour, error)}, state, tmp_path)

    assert repair.kind == "drop"
    assert repair.error == f"it would download 3165 MB (the tool failed: {error})"


def test_the_handle_arm_is_never_guessed() -> None:
    built = {"type": "object", "properties": {"start": {"type": "number"}}, "required": []}
    handle = {
        "type": "object",
        "properties": {"handle": {"type": "string"}},
        "required": ["handle"],
    }
    variants = synthesised_variants([_param("acc", {"anyOf": [built, handle]})])
    # a guessed id only fails as an unknown handle: the constructor's arm is what varies
    assert {str(v.arguments) for v in variants} == {str({"acc": {}})}


def _method(examples: list[Example]) -> ToolSpec:
    handle = Parameter(
        name="handle",
        kind="positional_only",
        json_schema={"type": "object", "properties": {"handle": {"type": "string"}}},
        codec="handle:pkg:Ver",
    )
    return ToolSpec(
        name="ver_bump",
        description="Bump.",
        target="pkg:Ver.bump",
        kind="method",
        parameters=[handle, _param("by", {"type": "integer"})],
        examples=examples,
    )


def test_a_methods_variants_take_the_receiver_its_session_builds(tmp_path: Path) -> None:
    built = SessionStep(line="v = Ver(4)", target="pkg:Ver", arguments={"major": 4})
    spec = _method([Example(arguments={"handle": {"handle": "h"}, "by": 1}, session=[built])])
    variants = [e for e in alternative_examples(spec, tmp_path) if e.origin == "synthesised"]
    assert variants and all(e.session == [built] for e in variants)


def test_a_handle_only_receiver_without_a_session_is_never_made_up(tmp_path: Path) -> None:
    examples = alternative_examples(_method([]), tmp_path)
    # a made-up handle id fails every call: there is nothing to try
    assert examples == []


def test_a_list_used_as_an_array_is_given_the_numpy_codec_once(tmp_path: Path) -> None:
    spec = ToolSpec(
        name="smooth",
        description="Smooth a signal.",
        target="pkg:smooth",
        parameters=[
            _param("signal", {}),
            _param("names", {}),
            _param("width", {"type": "integer"}),
        ],
        examples=[Example(arguments={"signal": [[1, 2], [3, 4]], "names": ["a"], "width": 2})],
    )
    given = spec.examples[0].arguments
    error = "Error calling tool 'smooth': 'list' object has no attribute 'ndim'"
    failed = _refused(spec, error, Evidence(arguments=given))
    state = RepairState()
    (repair,) = plan_repairs([spec], {"smooth": failed}, state, tmp_path)
    # the lists of numbers only (never text, never a number), retried as they were
    assert (repair.kind, repair.parameters) == ("array_codec", ["signal"])
    assert [e.arguments for e in repair.examples] == [given]
    state.arrayed.add("smooth")  # what the round that applies it records
    (again,) = plan_repairs([spec], {"smooth": failed}, state, tmp_path)
    assert again.kind != "array_codec"
    other = failed.model_copy(update={"error": "'list' object has no attribute 'rstrip'"})
    assert plan_repairs([spec], {"smooth": other}, RepairState(), tmp_path)[0].kind != (
        "array_codec"
    )


def test_a_methods_examples_that_differ_only_by_their_session_are_each_tried(
    tmp_path: Path,
) -> None:
    def built(line: str, path: str) -> list[SessionStep]:
        return [SessionStep(line=line, target="pkg:load", arguments={"filename": path})]

    missing = built("img = load('downloads/absent.nii')", "downloads/absent.nii")
    shipped = built("img = load(shipped)", "pkg/tests/data/example.nii")
    spec = ToolSpec(
        name="image_data",
        description="The image's data.",
        target="pkg:Image.data",
        kind="method",
        parameters=[_method([]).parameters[0]],
        examples=[
            Example(arguments={}, expected=[2, 3], has_expected=True, session=missing),
            Example(arguments={}, session=shipped),
        ],
    )
    error = "FileNotFoundError: No such file: 'downloads/absent.nii'"
    failed = _refused(spec, error, Evidence(arguments={}, session=missing))
    state = RepairState()
    (repair,) = plan_repairs([spec], {"image_data": failed}, state, tmp_path)
    # every example passes ``{}``: only the session that builds the receiver tells them apart
    assert repair.kind == "next_example"
    assert repair.examples[0].session == shipped
    failed_again = failed.model_copy(update={"evidence": Evidence(arguments={}, session=shipped)})
    (last,) = plan_repairs([spec], {"image_data": failed_again}, state, tmp_path)
    assert last.kind == "drop"


def test_a_method_refused_on_a_bare_receiver_is_retried_after_a_passed_sibling_first(
    tmp_path: Path,
) -> None:
    def method(member: str) -> ToolSpec:
        receiver = Parameter(name="handle", kind="positional_only", codec="new:pkg:Model")
        return ToolSpec(
            name=f"model_{member}",
            description=member,
            target=f"pkg:Model.{member}",
            kind="method",
            parameters=[receiver, _param("X", {"type": "array"})],
        )

    fit, predict = method("fit"), method("predict")
    constructor = ToolSpec(
        name="model_new",
        description="A model.",
        target="pkg:Model",
        kind="constructor",
        parameters=[],
    )
    fitted = Evidence(arguments={"handle": {}, "X": [[1.0, 2.0]]})
    evidence = {
        "model_fit": ToolEvidence(
            name="model_fit", target=fit.target, status="passed", evidence=fitted
        ),
        "model_predict": _refused(
            predict,
            "This Model instance is not fitted yet.",
            Evidence(arguments={"handle": {}, "X": [[0]]}),
        ),
    }
    specs = [constructor, fit, predict]
    (repair,) = plan_repairs(specs, evidence, RepairState(), tmp_path)
    assert repair.kind == "next_example"
    first = repair.examples[0]
    assert [s.member for s in first.session] == [None, "fit"]
    assert first.arguments == {"X": [[1.0, 2.0]]}
    # on top of the catalogue's other tries, which keep their number (the round in which a
    # tool none passes is dropped, and stood in for, does not move)
    alternatives = alternative_examples(predict, tmp_path)
    assert repair.examples[1:] == alternatives[:MAX_ATTEMPTS]


def test_a_relative_path_whose_folder_is_missing_is_retried_as_its_file_name(
    tmp_path: Path,
) -> None:
    built = SessionStep(
        line="img = Image(data)", target="pkg:Image", arguments={"data": [1]}, into="img"
    )
    spec = ToolSpec(
        name="save",
        description="Save an image.",
        target="pkg:save",
        parameters=[_param("img", {}), _param("filename", {"type": "string"})],
        examples=[Example(arguments={"filename": "build/test4d.nii.gz"}, session=[built])],
    )
    given = spec.examples[0].arguments
    error = "Error calling tool 'save': [Errno 2] No such file or directory: 'build/test4d.nii.gz'"
    state = RepairState()
    failed = _refused(spec, error, Evidence(arguments=given))
    (repair,) = plan_repairs([spec], {"save": failed}, state, tmp_path)
    assert repair.kind == "next_example"
    (example,) = repair.examples
    # the docs' call and its session, the file in the work folder itself: ours, no docs line
    assert example.arguments == {"filename": "test4d.nii.gz"} and example.session == [built]
    assert example.origin == "synthesised" and example.line is None
    # once only; an absolute path, a path out of the folder or one no argument gave: no such
    again = plan_repairs([spec], {"save": failed}, state, tmp_path)[0]
    assert again.examples != [example]
    for path in ("/data/test4d.nii.gz", "../up/x.nii", "other/x.nii"):
        text = f"[Errno 2] No such file or directory: '{path}'"
        other = _refused(spec, text, Evidence(arguments={"filename": path.replace("other", "o")}))
        plan = plan_repairs([spec], {"save": other}, RepairState(), tmp_path)[0]
        assert not plan.reason.startswith("no folder"), path
