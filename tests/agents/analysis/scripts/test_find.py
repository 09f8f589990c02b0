"""Script entry points: argparse read from the syntax tree, and the candidates made from it."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from script_fixtures import make_script_repo

from metaserver.agents.analysis.scripts.args import choose_parser, parsers_in
from metaserver.agents.analysis.scripts.examples import bind_argv
from metaserver.agents.analysis.scripts.find import add_scripts, discover, script_candidate
from metaserver.contracts import Candidate, CodeReport

PARSER = """\
import argparse
import os

def main():
    parser = argparse.ArgumentParser(prog="tool", description="Does things.")
    parser.add_argument("src", help="input file")
    parser.add_argument("extra", nargs="*", type=int)
    group = parser.add_argument_group("output")
    group.add_argument("--top", "-t", type=int, default=3, help="how many (default: %(default)s)")
    group.add_argument("--ratio", type=float, required=True)
    parser.add_argument("--mode", choices=["fast", "slow"], default="fast")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--no-color", action="store_false", dest="color")
    parser.add_argument("--tag", action="append")
    parser.add_argument("--pair", nargs=2, type=float)
    parser.add_argument("--home", default=os.getcwd(), help=HELP_TEXT)
    parser.add_argument(*NAMES)
    parser.add_argument("--custom", action=MyAction)
    parser.add_argument("--version", action="version", version="1")
    return parser.parse_args()
"""


def _only_parser(source: str, preferred: list[str] | None = None):  # type: ignore[no-untyped-def]
    parser = choose_parser(parsers_in(ast.parse(textwrap.dedent(source))), preferred or [])
    assert parser is not None
    return parser


def test_arguments_are_read_from_literals() -> None:
    parser = _only_parser(PARSER, ["main"])
    assert (parser.scope, parser.prog, parser.description) == ("main", "tool", "Does things.")
    by_name = {a.names[0]: a for a in parser.arguments}
    assert list(by_name) == [
        "src", "extra", "--top", "--ratio", "--mode", "-v", "--no-color", "--tag", "--pair",
        "--home",
    ]  # fmt: skip
    assert by_name["src"].positional and by_name["src"].help == "input file"
    assert (by_name["extra"].nargs, by_name["extra"].type) == ("*", "int")
    top = by_name["--top"]
    assert (top.names, top.type, top.default, top.has_default) == (["--top", "-t"], "int", 3, True)
    assert by_name["--ratio"].required is True and by_name["--ratio"].type == "float"
    assert by_name["--mode"].choices == ["fast", "slow"]
    assert by_name["-v"].action == "switch" and by_name["--no-color"].action == "switch"
    assert by_name["--no-color"].dest == "color"
    assert by_name["--tag"].action == "append"
    assert by_name["--pair"].nargs == 2
    # Not literal: the keyword is skipped, the argument kept.
    assert not by_name["--home"].has_default and by_name["--home"].help is None
    # Not literal names or action, or not a value at all: the argument is left out.
    assert len(parser.skipped) == 3
    assert any("names are not literal" in s for s in parser.skipped)
    assert any(s.startswith("--custom") for s in parser.skipped)


def test_the_entry_functions_parser_wins_and_subcommands_are_seen() -> None:
    source = """\
    import argparse
    def build_parser():
        p = argparse.ArgumentParser()
        p.add_argument("--a")
        return p
    def other():
        q = argparse.ArgumentParser()
        sub = q.add_subparsers()
    """
    assert _only_parser(source).scope == "build_parser"
    assert _only_parser(source, ["other"]).subcommands


def test_schemas_from_the_definition(tmp_path: Path) -> None:
    guard = '\nif __name__ == "__main__":\n    main()\n'
    (tmp_path / "tool.py").write_text(PARSER + guard)
    [entry] = discover(tmp_path)
    # An argument whose names are unknown may be a positional: no command line is certain.
    assert "names are not literal" in str(script_candidate(entry, tmp_path))
    (tmp_path / "tool.py").write_text(
        PARSER.replace("    parser.add_argument(*NAMES)\n", "") + guard
    )
    candidate = script_candidate(entry, tmp_path)
    assert isinstance(candidate, Candidate)
    params = {p.name: p for p in candidate.parameters}
    assert params["src"].required and params["src"].json_schema == {"type": "string"}
    assert params["extra"].json_schema == {"type": "array", "items": {"type": "integer"}}
    assert not params["extra"].required
    assert (params["top"].json_schema, params["top"].default) == ({"type": "integer"}, 3)
    assert params["top"].description == "how many (default: 3)"
    assert params["ratio"].required and params["ratio"].json_schema == {"type": "number"}
    assert params["mode"].json_schema == {"enum": ["fast", "slow"]}
    assert params["verbose"].json_schema == {"type": "boolean"}
    assert params["verbose"].default is False
    assert "no_color" in params  # a switch is named by the option it passes
    assert params["tag"].json_schema == {"anyOf": [{"type": "array", "items": {"type": "string"}},
                                                   {"type": "null"}]}  # fmt: skip
    assert params["pair"].json_schema["anyOf"][0]["minItems"] == 2
    assert params["home"].json_schema == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert candidate.kind == "script" and candidate.script is not None
    assert candidate.script.mode == "path" and candidate.script.prog == "tool"
    assert candidate.summary == "Does things."
    # No README: the example is synthesised from the schema, and fits it.
    assert candidate.examples[-1].origin == "synthesised"
    assert set(candidate.examples[-1].arguments) == {"src", "ratio"}


def test_entry_points_of_every_kind(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "1"\n[project.scripts]\nwc = "pkg.cli:main"\n'
    )
    (tmp_path / "setup.cfg").write_text(
        "[options.entry_points]\nconsole_scripts =\n    hello = pkg.cli:hello\n"
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "cli.py").write_text(
        "import argparse\n"
        "def main():\n    p = argparse.ArgumentParser()\n    p.add_argument('n', type=int)\n"
        "def hello():\n    p = argparse.ArgumentParser()\n    p.add_argument('--who')\n"
    )
    (tmp_path / "pkg" / "__main__.py").write_text("from .cli import main\nmain()\n")
    (tmp_path / "loose.py").write_text("if __name__ == '__main__':\n    pass\n")  # a package
    entries = {e.name: e for e in discover(tmp_path)}
    assert set(entries) == {"wc", "hello", "pkg"}
    assert (entries["wc"].mode, entries["wc"].module, entries["wc"].function) == (
        "function", "pkg.cli", "main",
    )  # fmt: skip
    wc = script_candidate(entries["wc"], tmp_path)
    hello = script_candidate(entries["hello"], tmp_path)
    package = script_candidate(entries["pkg"], tmp_path)
    assert isinstance(wc, Candidate) and isinstance(hello, Candidate)
    assert [p.name for p in wc.parameters] == ["n"] and wc.target == "pkg.cli:main"
    assert [p.name for p in hello.parameters] == ["who"]
    # __main__.py builds no parser: the one of the function it imports is used.
    assert isinstance(package, Candidate) and [p.name for p in package.parameters] == ["n"]
    assert package.script is not None and package.script.mode == "module"


def test_script_only_repository(tmp_path: Path) -> None:
    repo = make_script_repo(tmp_path / "repo")
    helper = Candidate(target="wordcount:most_common", name="most_common", signature="()",
                       parameters=[])  # fmt: skip
    kept = Candidate(target="util:f", name="f", signature="()", parameters=[])
    report = add_scripts(CodeReport(packages=["wordcount"], candidates=[helper, kept]), repo)
    by_name = {c.name: c for c in report.candidates}
    # The scripts are the interface; functions of script files are not tools of their own.
    assert set(by_name) == {"wordcount", "greet", "stats", "f"}
    wordcount = by_name["wordcount"].examples[0]
    assert wordcount.arguments == {"lower": True, "top": 2, "source": "b a B c b a"}
    assert (wordcount.expected, wordcount.wrapper, wordcount.has_expected) == (
        "b 3\na 2", "stdout", True,
    )  # fmt: skip
    stats = by_name["stats"].examples[0]
    assert stats.arguments == {"numbers": [1.0, 2.0, 6.0], "op": "median"}
    assert not stats.has_expected  # no prompt: the line after is not its output


def test_bind_argv_refuses_what_the_parser_would(tmp_path: Path) -> None:
    repo = make_script_repo(tmp_path / "repo")
    entry = next(e for e in discover(repo) if e.name == "wordcount")
    candidate = script_candidate(entry, repo)
    assert isinstance(candidate, Candidate) and candidate.script is not None
    script, params = candidate.script, candidate.parameters
    assert bind_argv(script, params, ["x", "--top", "5"]) == {"source": "x", "top": 5}
    assert bind_argv(script, params, ["--top", "many", "x"]) is None
    assert bind_argv(script, params, ["--lower"]) is None  # the positional is required
    assert bind_argv(script, params, ["x", "--unknown"]) is None


def test_a_script_tool_renders_and_compares_on_stdout(tmp_path: Path) -> None:
    from metaserver.agents.design.specs import design
    from metaserver.agents.generate.render import render_tool
    from metaserver.agents.validate.compare import matches

    repo = make_script_repo(tmp_path / "repo")
    report = add_scripts(CodeReport(packages=[], candidates=[]), repo)
    specs = {s.name: s for s in design(report, max_tools=5)}
    assert set(specs) == {"wordcount", "greet", "stats"}
    code = render_tool(specs["wordcount"], repo)
    compile(code, "<tool>", "exec")
    assert "_run_script(" in code and repr(str(repo / "wordcount.py")) in code
    result = {"exit_code": 0, "stdout": "b 3\na 2\n", "stderr": "warning"}
    assert matches(result, "b 3\n  a 2", "stdout")
    assert not matches(result, "b 3", "stdout")
