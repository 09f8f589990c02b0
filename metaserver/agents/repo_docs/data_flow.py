"""Which of a guide's calls take data read from a file, an address or the network.

A README often loads its data first (``weather = get_pvgis_tmy(lat, lon)[0]``,
``df = read_csv(path)``) and passes it on (``mc.run_model(weather)``). The later call reads
no file itself, yet its documented use needs what was read: a sandboxed tool has neither
the file nor the network, so that use is not one it can show. Usage mining lists a
documented name whose every guide call is such a call with the names that read files
(``Usage.reads_files``): out of the coverage ratio, as a call passing ``"data.csv"`` is.

Read statically, statement by statement through one text (a README's blocks share their
variables): a variable holds data when it is assigned from an expression that holds data
(a call that reads, a call of a name that reaches the network, a variable that holds data)
or a file's path (a literal path in the expression: ``os.path.join(here, "703165TY.csv")``);
an object that is given data (``rows.append(weather)``, ``table["x"] = weather``) holds it
from then on; a loop over ``zip(a, b)`` or ``enumerate(a)`` binds each target to its own
iterable. Reassigning a variable from plain values clears it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence

from metaserver.agents.repo_docs.file_arguments import (
    FileParameters,
    names_file,
    reads_file,
    writes_file,
)
from metaserver.contracts import Candidate

__all__ = ["DataFlow", "reaching_names"]


def reaching_names(candidates: Iterable[Candidate]) -> set[str]:
    """Short names every candidate of which the probe found reaching the network or a
    process (``dangerous``): what such a call returns, a sandboxed tool never has."""
    kinds: dict[str, list[bool]] = {}
    for candidate in candidates:
        name = candidate.name.rpartition(".")[2]
        if candidate.kind == "constructor":
            name = candidate.name
        kinds.setdefault(name, []).append(bool(candidate.dangerous))
    return {name for name, dangerous in kinds.items() if all(dangerous)}


class DataFlow:
    """The variables of one text that hold data read from outside, statement by statement."""

    def __init__(
        self, reaching: Iterable[str] = (), files: dict[str, FileParameters] | None = None
    ) -> None:
        self.reaching = set(reaching)
        self.files = files or {}
        self.holding: set[str] = set()
        self.assigned: set[str] = set()  # variables the text binds (not its imported names)

    def read(self, tree: ast.Module) -> set[int]:
        """The ids of ``tree``'s calls whose arguments or receiver hold data (a path literal
        nested in an argument's expression counts, one written as the argument itself is
        ``reads_file``'s to judge); the variables the tree assigns are noted for the
        statements that follow, in this tree and the next ones read."""
        derived: set[int] = set()
        self._block(tree.body, derived)
        return derived

    def _block(self, statements: Sequence[ast.stmt], derived: set[int]) -> None:
        for statement in statements:
            self._statement(statement, derived)

    def _statement(self, node: ast.stmt, derived: set[int]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return  # a definition runs nothing here
        for call in _calls(node):
            if self._takes_data(call):
                derived.add(id(call))
        if isinstance(node, ast.Assign):
            holds = self._holds(node.value)
            for target in node.targets:
                self._bind(target, holds)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            kept = isinstance(node, ast.AugAssign) and self._held(node.target)
            self._bind(node.target, kept or self._holds(node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._loop(node.target, node.iter)
            self._block(node.body, derived)
            self._block(node.orelse, derived)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, self._holds(item.context_expr))
            self._block(node.body, derived)
        elif isinstance(node, (ast.If, ast.While)):
            self._block(node.body, derived)
            self._block(node.orelse, derived)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse):
                self._block(block, derived)
            self._block(node.finalbody, derived)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            # ``rows.append(weather)``: the object is given data and holds it from now on.
            # A module's function given data (``pkg.plot(weather)``) changes no variable.
            func = node.value.func
            given = [*node.value.args, *(k.value for k in node.value.keywords)]
            if isinstance(func, ast.Attribute) and any(self._holds(a) for a in given):
                self._mutate(func.value)

    def _loop(self, target: ast.expr, iterable: ast.expr) -> None:
        """Bind a loop's targets: over ``zip(a, b)`` each to its own iterable, over
        ``enumerate(a)`` the item to ``a``; else all of them to the iterable."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name):
            pairs: list[tuple[ast.expr, ast.expr]] = []
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else []
            if iterable.func.id == "zip" and len(elements) == len(iterable.args):
                pairs = list(zip(elements, iterable.args, strict=True))
            elif iterable.func.id == "enumerate" and len(elements) == 2 and iterable.args:
                pairs = [(elements[0], ast.Constant(0)), (elements[1], iterable.args[0])]
            if pairs:
                for element, source in pairs:
                    self._bind(element, self._holds(source))
                return
        self._bind(target, self._holds(iterable))

    def _bind(self, target: ast.expr | None, holds: bool) -> None:
        if isinstance(target, ast.Name):
            self.assigned.add(target.id)
            if holds:
                self.holding.add(target.id)
            else:
                self.holding.discard(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(element, holds)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, holds)
        elif isinstance(target, (ast.Subscript, ast.Attribute)) and holds:
            # ``system["tilt"] = latitude``: part of the object is data now (never cleared:
            # the rest may still be).
            self._mutate(target.value)

    def _mutate(self, node: ast.expr) -> None:
        """The variable behind ``node`` was given data: it holds some from now on."""
        base = _base(node)
        if isinstance(base, ast.Name) and base.id in self.assigned:
            self.holding.add(base.id)

    def _held(self, node: ast.expr) -> bool:
        base = _base(node)
        return isinstance(base, ast.Name) and base.id in self.holding

    def _holds(self, node: ast.expr) -> bool:
        """Whether the expression's value is (or derives from) data read from outside, or a
        file's path."""
        for part in ast.walk(node):
            if isinstance(part, ast.Name) and part.id in self.holding:
                return True
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                if names_file(part.value):
                    return True
            if isinstance(part, ast.Call) and self._reads(part):
                return True
        return False

    def _reads(self, call: ast.Call) -> bool:
        name = _callee(call)
        if name is None:
            return False
        if name in self.reaching:
            return True
        return reads_file(call, self.files.get(name)) and not writes_file(name)

    def _takes_data(self, call: ast.Call) -> bool:
        """A call given data: an argument expression or the receiver holds some (a path
        literal written as the argument itself is left to ``reads_file``)."""
        given = [*call.args, *(k.value for k in call.keywords)]
        if isinstance(call.func, ast.Attribute):
            given.append(call.func.value)
        return any(not isinstance(g, ast.Constant) and self._holds(g) for g in given)


def _calls(node: ast.stmt) -> list[ast.Call]:
    """The calls a statement makes itself, not those in the blocks it holds (a loop's body
    is read statement by statement, after its targets are bound)."""
    heads: list[ast.AST]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        heads = [node.iter]
    elif isinstance(node, (ast.If, ast.While)):
        heads = [node.test]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        heads = [item.context_expr for item in node.items]
    elif isinstance(node, ast.Try):
        heads = []
    else:
        heads = [node]
    return [n for head in heads for n in ast.walk(head) if isinstance(n, ast.Call)]


def _base(node: ast.expr) -> ast.expr:
    """The variable an attribute, subscript or method chain starts from."""
    while True:
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return node


def _callee(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None
