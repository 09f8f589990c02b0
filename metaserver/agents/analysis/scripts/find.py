"""Script-style repositories: command-line entry points become tools (issue #4).

Found statically, nothing imported: ``[project.scripts]`` of pyproject.toml, ``console_scripts``
of setup.cfg and setup.py, packages' ``__main__.py``, and, in a repository that is not a
package, top-level ``*.py`` files guarded by ``if __name__ == "__main__":``. Each one's
argparse definition (read by :mod:`metaserver.agents.analysis.scripts.args`) gives the tool's
parameters; the generated tool runs the script in a subprocess (``metaserver_runtime.scripts``).
Examples come from the README's shell sessions (``$ python script.py --n 3 x``, with the output
shown after it as the expected stdout), else from the schema.
"""

from __future__ import annotations

import ast
import configparser
import keyword
import logging
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from metaserver.agents.analysis.scripts.args import (
    ArgumentInfo,
    ParserInfo,
    choose_parser,
    parsers_in,
)
from metaserver.agents.analysis.scripts.examples import MAX_FILE_BYTES, readme_examples
from metaserver.agents.design.synthesis import synthesise_example
from metaserver.agents.environment.strategies import is_installable
from metaserver.contracts import (
    JSON,
    Candidate,
    CodeReport,
    Parameter,
    ScriptArgument,
    ScriptTarget,
    SkippedCallable,
)

__all__ = ["Entry", "add_scripts", "discover", "script_candidate"]

logger = logging.getLogger(__name__)

MAX_SCRIPTS = 30
"""Example.wrapper of a script example: the expected value is the run's stdout."""
_NAME_OK = re.compile(r"[^A-Za-z0-9_]+")
_ENTRY = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*=\s*([A-Za-z_][\w.]*)\s*:\s*([A-Za-z_][\w.]*)")
_SKIP_FILES = ("setup.py", "conftest.py", "noxfile.py", "fabfile.py", "manage.py")
_SEMANTIC = {"str": "string", "int": "integer", "float": "number"}


@dataclass
class Entry:
    """One command-line entry point, and where its parser is defined."""

    name: str
    mode: Literal["path", "module", "function"]
    source: Path
    prog: str
    path: str | None = None
    module: str | None = None
    function: str | None = None
    preferred: list[str] = field(default_factory=list)
    covers: list[str] = field(default_factory=list)  # function targets the script replaces


def add_scripts(report: CodeReport, root: Path) -> CodeReport:
    """``report`` with a candidate for each script entry point whose parser can be read.

    The functions a script's command line calls (its ``main``) are dropped: called in-process
    they would parse the server's own argv. In a repository that is not a package, every
    function defined in a script file goes too: there the scripts are the interface.
    """
    scripts: list[Candidate] = []
    skipped = list(report.skipped)
    covered: set[str] = set()
    script_modules: set[str] = set()
    for entry in discover(root):
        made = script_candidate(entry, root)
        if isinstance(made, str):
            skipped.append(SkippedCallable(target=entry.prog, reason=made))
            continue
        scripts.append(made)
        covered.update(entry.covers)
        if entry.mode == "path" and "/" not in (entry.path or "/"):
            script_modules.add(Path(entry.path or "").stem)
    if not scripts:
        return report
    kept = [
        c
        for c in report.candidates
        if c.target not in covered
        and not covered.intersection(c.aliases)
        and c.target.partition(":")[0] not in script_modules
    ]
    return report.model_copy(update={"candidates": scripts + kept, "skipped": skipped})


# ---------------------------------------------------------------- finding entry points


def discover(root: Path) -> list[Entry]:
    """Entry points declared by packaging metadata, ``__main__`` modules and bare scripts."""
    entries: list[Entry] = []
    for name, module, function in _declared_scripts(root):
        source = _module_file(root, module)
        if source is not None:
            last = function.rpartition(".")[2]
            entries.append(
                Entry(name, "function", source, name, module=module, function=function,
                      preferred=[last], covers=[f"{module}:{function}"])
            )  # fmt: skip
    for main in _main_modules(root):
        package = ".".join(main.parent.relative_to(_package_root(root, main)).parts)
        entries.append(Entry(package.rpartition(".")[2], "module", main, package, module=package))
    if not is_installable(root):
        for path in sorted(root.glob("*.py")):
            if path.name in _SKIP_FILES or path.name.startswith(("test_", "_")):
                continue
            called = _guarded_calls(path)
            if called is None:
                continue
            covers = [f"{path.stem}:{name}" for name in called]
            entries.append(
                Entry(path.stem, "path", path, path.name, path=path.name, preferred=called,
                      covers=covers)
            )  # fmt: skip
    unique: dict[str, Entry] = {}
    for entry in entries:
        unique.setdefault(f"{entry.mode}:{entry.module}:{entry.function}:{entry.path}", entry)
    return list(unique.values())[:MAX_SCRIPTS]


def _declared_scripts(root: Path) -> list[tuple[str, str, str]]:
    """(name, module, function) of console scripts in pyproject, setup.cfg and setup.py."""
    found: list[tuple[str, str, str]] = []
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace"))
        except tomllib.TOMLDecodeError:
            data = {}
        project = data.get("project")
        scripts = project.get("scripts") if isinstance(project, dict) else None
        poetry = (
            data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
        )
        for table in (scripts, poetry.get("scripts") if isinstance(poetry, dict) else None):
            if isinstance(table, dict):
                found += _parse_entries(f"{k} = {v}" for k, v in table.items())
    setup_cfg = root / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(setup_cfg.read_text(encoding="utf-8", errors="replace"))
            text = parser.get("options.entry_points", "console_scripts", fallback="")
        except configparser.Error:
            text = ""
        found += _parse_entries(text.splitlines())
    found += _parse_entries(_setup_py_scripts(root / "setup.py"))
    return found


def _parse_entries(lines: Any) -> list[tuple[str, str, str]]:
    parsed = []
    for line in lines:
        match = _ENTRY.match(str(line))
        if match:
            parsed.append((match.group(1), match.group(2), match.group(3)))
    return parsed


def _setup_py_scripts(path: Path) -> list[str]:
    """``entry_points={"console_scripts": [...]}`` of a ``setup(...)`` call, when literal."""
    tree = _parse(path)
    if tree is None:
        return []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword_ in node.keywords:
            if keyword_.arg != "entry_points":
                continue
            try:
                value = ast.literal_eval(keyword_.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
            scripts = value.get("console_scripts") if isinstance(value, dict) else None
            if isinstance(scripts, list):
                return [s for s in scripts if isinstance(s, str)]
            if isinstance(scripts, str):
                return scripts.splitlines()
    return []


def _module_file(root: Path, module: str) -> Path | None:
    parts = module.split(".")
    for base in (root, root / "src"):
        for candidate in (
            base.joinpath(*parts).with_suffix(".py"),
            base.joinpath(*parts, "__init__.py"),
        ):
            if candidate.is_file():
                return candidate
    return None


def _main_modules(root: Path) -> list[Path]:
    """``pkg/__main__.py`` files of importable packages (not tests, not examples)."""
    found = []
    for base in (root, root / "src"):
        for depth in ("*/__main__.py", "*/*/__main__.py"):
            for path in sorted(base.glob(depth)):
                parents = path.relative_to(base).parts[:-1]
                if any(p in ("tests", "test", "examples", "docs") for p in parents):
                    continue
                if all(
                    base.joinpath(*parents[: i + 1], "__init__.py").is_file()
                    and parents[i].isidentifier()
                    for i in range(len(parents))
                ):
                    found.append(path)
    return found


def _package_root(root: Path, main: Path) -> Path:
    return root / "src" if main.is_relative_to(root / "src") else root


def _guarded_calls(path: Path) -> list[str] | None:
    """Names called in the file's ``if __name__ == "__main__":`` block; None: no block."""
    tree = _parse(path)
    if tree is None:
        return None
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_guard(node.test):
            return [
                call.func.id
                for call in ast.walk(node)
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            ]
    return None


def _is_main_guard(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.comparators) == 1):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    values = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and values == ["__main__"]


def _parse(path: Path) -> ast.Module | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None


# ---------------------------------------------------------------- from parser to candidate


def script_candidate(entry: Entry, root: Path) -> Candidate | str:
    """The tool candidate for ``entry``, or why it cannot be one."""
    parser, doc = _parser_for(entry, root)
    if parser is None:
        return "no argparse parser found in its source"
    if parser.subcommands:
        return "the parser has subcommands (not supported yet)"
    parameters: list[Parameter] = []
    arguments: list[ScriptArgument] = []
    used: set[str] = set()
    for info in parser.arguments:
        parameter, argument = _parameter(info, used)
        parameters.append(parameter)
        arguments.append(argument)
    if any(not reason.startswith("-") for reason in parser.skipped):
        return f"a positional argument cannot be read: {parser.skipped[0]}"
    target = ScriptTarget(
        mode=entry.mode,
        prog=parser.prog or entry.prog,
        path=entry.path,
        module=entry.module,
        function=entry.function,
        arguments=arguments,
    )
    summary = (parser.description or doc or "").strip()
    described = summary or f"Run the command-line script {entry.prog}."
    candidate = Candidate(
        target=_target(entry),
        name=entry.name,
        signature=f"{entry.prog} {_usage(arguments, parameters)}".strip(),
        parameters=parameters,
        doc=f"{described}\n\nRuns the command `{entry.prog}` with these parameters as its "
        "command-line arguments; returns its exit code, stdout and stderr.",
        summary=summary.split("\n\n")[0],
        in_all=True,
        top_level=True,
        kind="script",
        positional=[a.name for a in arguments if not a.options],
        annotated=1.0,
        script=target,
    )
    examples = readme_examples(root, candidate)
    fallback = synthesise_example(parameters)
    if fallback not in examples:
        examples.append(fallback)
    return candidate.model_copy(update={"examples": examples})


def _target(entry: Entry) -> str:
    if entry.mode == "function":
        return f"{entry.module}:{entry.function}"
    if entry.mode == "module":
        return f"{entry.module}.__main__"
    return entry.path or entry.prog


def _parser_for(entry: Entry, root: Path) -> tuple[ParserInfo | None, str | None]:
    """The entry's parser and the docstring of the module that defines it.

    When the entry's own file builds no parser, the modules it imports its entry function
    from (``from .cli import main``) are read, one level deep.
    """
    tree = _parse(entry.source)
    if tree is None:
        return None, None
    parser = choose_parser(parsers_in(tree), entry.preferred)
    if parser is not None:
        return parser, ast.get_docstring(tree)
    for module, names in _imported_from(tree, entry, root):
        source = _module_file(root, module)
        other = _parse(source) if source is not None else None
        if other is None:
            continue
        parser = choose_parser(parsers_in(other), names)
        if parser is not None:
            entry.covers += [f"{module}:{name}" for name in names]
            return parser, ast.get_docstring(other) or ast.get_docstring(tree)
    return None, None


def _imported_from(tree: ast.Module, entry: Entry, root: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of the module's ``from X import main``-style imports, made absolute."""
    package = entry.module or ""
    if entry.mode == "function":
        package = package.rpartition(".")[0]
    wanted = set(entry.preferred) | {"main", "cli", "run"}
    found = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".") if package else []
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, *([base] if base else [])])
        names = [a.name for a in node.names if a.name in wanted]
        if base and names:
            found.append((base, names))
    return found


def _parameter(info: ArgumentInfo, used: set[str]) -> tuple[Parameter, ScriptArgument]:
    """The tool parameter for one argparse argument, and how it goes back on the command line."""
    name = _parameter_name(info, used)
    schema: dict[str, JSON]
    base: dict[str, JSON] = {"type": _SEMANTIC[info.type]}
    if info.choices is not None and all(isinstance(c, str | int | float) for c in info.choices):
        base = {"enum": list(info.choices)}
    many = info.action == "append" or info.nargs in ("*", "+") or isinstance(info.nargs, int)
    default: JSON = info.default if info.has_default and _json_safe(info.default) else None
    if info.action in ("switch", "bool_optional"):
        schema = {"type": "boolean"}
        default = False if info.action == "switch" else default
    elif info.action == "count":
        schema = {"type": "integer", "minimum": 0}
        default = default if isinstance(default, int) else 0
    elif many:
        schema = {"type": "array", "items": base}
        if info.nargs == "+":
            schema["minItems"] = 1
        if isinstance(info.nargs, int):
            schema["minItems"] = schema["maxItems"] = info.nargs
        if default is not None and not isinstance(default, list):
            default = None
        if default is None and info.positional:
            default = []  # what argparse gives an optional positional list
    else:
        schema = dict(base)
        default = _coerce(default, info.type)
    if info.positional:
        required = info.nargs not in ("?", "*") and not (info.nargs == 0)
    else:
        required = bool(info.required)
    if not required and default is None and "type" in schema and schema["type"] != "boolean":
        schema = {"anyOf": [schema, {"type": "null"}]}
    elif not required and default is None and "enum" in schema:
        schema = {"anyOf": [schema, {"type": "null"}]}
    parameter = Parameter(
        name=name,
        kind="keyword_only" if info.names[0].startswith("-") else "positional_or_keyword",
        json_schema=schema,
        required=required,
        default=None if required else default,
        description=_help(info, default),
    )
    argument = ScriptArgument(
        name=name,
        options=[] if info.positional else info.names,
        action=info.action,  # type: ignore[arg-type]  # the extractor only makes these
        nargs=info.nargs,
        type=info.type,  # type: ignore[arg-type]
    )
    return parameter, argument


def _parameter_name(info: ArgumentInfo, used: set[str]) -> str:
    """A positional's name, a switch's long option ("pass --no-color"), else the dest."""
    long = next((n for n in info.names if n.startswith("--")), info.names[0])
    if info.positional:
        raw = info.names[0]
    elif info.action == "switch":
        raw = long
    else:
        raw = info.dest or long
    name = _NAME_OK.sub("_", raw.lstrip("-")).strip("_").lower() or "arg"
    if name[0].isdigit() or keyword.iskeyword(name):
        name = f"{name}_"
    base, n = name, 2
    while name in used:
        name, n = f"{base}_{n}", n + 1
    used.add(name)
    return name


def _help(info: ArgumentInfo, default: JSON) -> str | None:
    if not info.help or info.help == "==SUPPRESS==":
        return None
    text = info.help.replace("%(default)s", str(default)).replace("%%", "%")
    return re.sub(r"%\([a-z_]+\)s", "", text).strip() or None


def _coerce(value: JSON, kind: str) -> JSON:
    """A string default argparse would convert (``default="3"`` with ``type=int``)."""
    if isinstance(value, str) and kind in ("int", "float"):
        try:
            return int(value) if kind == "int" else float(value)
        except ValueError:
            return None
    if kind == "int" and isinstance(value, float):
        return None
    return value


def _json_safe(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if isinstance(value, list | tuple):
        return all(_json_safe(v) for v in value)
    return False


def _usage(arguments: list[ScriptArgument], parameters: list[Parameter]) -> str:
    words = []
    for argument, parameter in zip(arguments, parameters, strict=True):
        word = argument.options[0] if argument.options else parameter.name.upper()
        if argument.options and argument.action in ("value", "append"):
            word += f" {parameter.name.upper()}"
        words.append(word if parameter.required else f"[{word}]")
    return " ".join(words)
