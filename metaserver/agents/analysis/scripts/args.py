"""Read a script's argparse definition from its source, without running anything.

A script's ``main`` reads the command line, may exit, print or write files: running it to
learn its interface would be running it for real. The parser's definition is almost always
literal (``add_argument("--top", type=int, default=3)``), so it is read from the syntax tree.
Only literal values are taken; a keyword that is not literal is skipped (its argument keeps
what argparse would do), and an argument whose names or action are not literal is left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BUILDERS", "ArgumentInfo", "ParserInfo", "choose_parser", "parsers_in"]

BUILDERS = ("build_parser", "get_parser", "make_parser", "create_parser", "parser", "cli")
_GROUPS = ("add_argument_group", "add_mutually_exclusive_group")
_TYPES = {"int": "int", "float": "float", "str": "str", "Path": "str", "PurePath": "str"}
_ACTIONS = {
    None: "value",
    "store": "value",
    "store_true": "switch",
    "store_false": "switch",
    "store_const": "switch",
    "append": "append",
    "extend": "append",
    "count": "count",
}
_SKIPPED_ACTIONS = ("help", "version", "append_const")


@dataclass
class ArgumentInfo:
    """One ``add_argument`` call, as far as its literals tell."""

    names: list[str]
    action: str = "value"  # value | switch | append | count | bool_optional
    type: str = "str"  # str | int | float
    nargs: str | int | None = None
    default: Any = None
    has_default: bool = False
    choices: list[Any] | None = None
    help: str | None = None
    required: bool | None = None
    dest: str | None = None

    @property
    def positional(self) -> bool:
        return not self.names[0].startswith("-")


@dataclass
class ParserInfo:
    """One ``ArgumentParser(...)`` and the arguments added to it (or to its groups)."""

    scope: str | None  # the function that builds it; None: module level
    description: str | None = None
    prog: str | None = None
    arguments: list[ArgumentInfo] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    subcommands: bool = False


def parsers_in(tree: ast.Module) -> list[ParserInfo]:
    """Every parser built in the module, function by function, in source order."""
    scopes: list[tuple[str | None, ast.AST]] = [(None, tree)]
    scopes += [
        (node.name, node)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    found: list[ParserInfo] = []
    for name, scope in scopes:
        found.extend(_parsers_in_scope(name, scope))
    return found


def choose_parser(parsers: list[ParserInfo], preferred: list[str]) -> ParserInfo | None:
    """The parser of the entry point: built in a preferred function, a builder, or at top."""
    for name in [*preferred, *BUILDERS, None]:
        for parser in parsers:
            if parser.scope == name:
                return parser
    return parsers[0] if len(parsers) == 1 else None


def _parsers_in_scope(name: str | None, scope: ast.AST) -> list[ParserInfo]:
    nodes = sorted(_own_nodes(scope), key=lambda n: (n.lineno, n.col_offset))
    variables: dict[str, ParserInfo] = {}
    parsers: list[ParserInfo] = []
    for node in nodes:
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            made = _made_parser(node.value, variables, name)
            if made is not None:
                if made not in parsers:
                    parsers.append(made)
                for target in targets:
                    if isinstance(target, ast.Name):
                        variables[target.id] = made
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            parser = variables.get(owner.id) if isinstance(owner, ast.Name) else None
            if parser is None:
                continue
            if node.func.attr == "add_argument":
                argument = _argument(node)
                if isinstance(argument, ArgumentInfo):
                    parser.arguments.append(argument)
                else:
                    parser.skipped.append(argument)
            elif node.func.attr == "add_subparsers":
                parser.subcommands = True
    return parsers


def _made_parser(
    call: ast.Call, variables: dict[str, ParserInfo], scope: str | None
) -> ParserInfo | None:
    """A new ParserInfo for ``ArgumentParser(...)``, the parser behind a group, or None."""
    func = call.func
    called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if called == "ArgumentParser":
        keywords = {k.arg: _literal(k.value) for k in call.keywords if k.arg}
        description = keywords.get("description")
        prog = keywords.get("prog")
        return ParserInfo(
            scope=scope,
            description=description if isinstance(description, str) else None,
            prog=prog if isinstance(prog, str) else None,
        )
    if (
        isinstance(func, ast.Attribute)
        and func.attr in _GROUPS
        and isinstance(func.value, ast.Name)
    ):
        return variables.get(func.value.id)
    return None


def _own_nodes(scope: ast.AST) -> Iterator[ast.stmt | ast.expr]:
    """The statements and expressions of ``scope``, not those of functions inside it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.stmt | ast.expr):
            yield node
        stack.extend(ast.iter_child_nodes(node))


_MISSING = object()


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _MISSING


def _argument(call: ast.Call) -> ArgumentInfo | str:
    """The argument ``call`` adds, or why it was left out (a short text)."""
    names = [_literal(a) for a in call.args]
    shown = ", ".join(n if isinstance(n, str) else "?" for n in names) or "?"
    if not names or not all(isinstance(n, str) and n for n in names):
        return f"{shown}: names are not literal"
    info = ArgumentInfo(names=[str(n) for n in names])
    if info.positional and len(names) > 1:
        return f"{shown}: a positional argument with several names"
    for keyword in call.keywords:
        if keyword.arg is None:
            return f"{shown}: **keywords are not literal"
        problem = _apply(info, keyword.arg, keyword.value)
        if problem:
            return f"{shown}: {problem}"
    return info


def _apply(info: ArgumentInfo, key: str, node: ast.expr) -> str | None:
    """Record one keyword of ``add_argument``; a text when the argument must be left out."""
    if key == "action":
        if isinstance(node, ast.Attribute | ast.Name) and _name(node) == "BooleanOptionalAction":
            info.action = "bool_optional"
            return None
        value = _literal(node)
        if value in _SKIPPED_ACTIONS:
            return f"action {value}"
        if not (value is None or isinstance(value, str)) or value not in _ACTIONS:
            return "its action is not a standard one"
        info.action = _ACTIONS[value]
        return None
    if key == "type":
        # A type= other than int/float/str leaves the schema a string.
        info.type = _TYPES.get(_name(node) or "", "str")
        return None
    if key == "nargs":
        value = _literal(node)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            info.nargs = value
        elif value in ("?", "*", "+"):
            info.nargs = value
        else:
            return "nargs is not ?, *, + or a number"
        return None
    value = _literal(node)
    if value is _MISSING:
        return None  # a keyword that is not literal is skipped, not the argument
    if key == "default":
        info.default, info.has_default = value, True
    elif key == "choices" and isinstance(value, list | tuple | set | frozenset):
        info.choices = list(value)
    elif key == "help" and isinstance(value, str):
        info.help = value
    elif key == "required" and isinstance(value, bool):
        info.required = value
    elif key == "dest" and isinstance(value, str):
        info.dest = value
    return None


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
