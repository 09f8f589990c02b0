"""Probe helper (runs INSIDE the target environment; standard library only): a function's
doctest calls with literal arguments (and the literal results they show) as examples.

A name a session bound to a literal (``data = [1, 2, 3]``) and a package constant whose
value is JSON are written into the calls that use them (``Literals``); each example is its
arguments by parameter name, its wrapper, and, when shown, its expected value
(``example_item``).
"""

import ast
import copy
import doctest
import functools
import re
import sys

from .array_values import array_value, numpy_built
from .constants import inline_constants, stored
from .data_paths import imported_names, joined_path
from .doctest_lines import (
    MAX_EXAMPLES,
    array_codecs,
    bind_imports,
    call_in,
    literal_arguments,
    parsed_examples,
    rounded,
    single_statement,
)
from .fold import folded
from .frames import frame_literal
from .json_values import Unsupported, json_safe
from .random_values import RandomStreams
from .reprs import repr_shaped
from .session_names import PACKAGE, resolve
from .stdlib_values import moment_value
from .tables import table_shaped, truncated_numbers
from .text import print_argument, shown_as_text


def _assigned(statement):
    """The names a doctest statement binds (``acc = Tally()``: acc)."""
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


ELLIPSIS = "..."
"""What a doctest with its ELLIPSIS option reads as any text."""

ARRAY_BUILDERS = ("array", "asarray")
"""numpy's array from nested lists: the numpy codec's JSON form is those lists."""


class Literals:
    """Names a session bound to a literal (``data = [1, 2, 3]``), put back into the calls
    that use them (``mean(data)`` is ``mean([1, 2, 3])``), as are the package's constants
    whose values are JSON (constants.py), unless the session bound their names."""

    def __init__(self, namespace=None, unseeded=False):
        self.nodes, self.bound = {}, set()
        self.namespace = namespace if namespace is not None else {}
        self.imported = set()  # names the session's imports bound from the package
        # ``unseeded``: draws of no known seed bound too, as data for arguments only (the
        # caller drops what a line shows of a call that used them: random_values.py)
        self.random = RandomStreams(self.namespace, self.inline, unseeded)

    def note(self, statement):
        """Remember what ``statement`` binds to a literal; forget what it rebinds."""
        drawn = self.random.note(statement)  # ``x = rng.normal(size=5)``: random_values.py
        rebound = stored(statement)
        self.bound |= rebound
        self.imported -= rebound
        # a session's names know the package; a function's globals, the module it is in
        package = getattr(self.namespace.get(PACKAGE), "__name__", None)
        if package is None and isinstance(self.namespace.get("__name__"), str):
            package = self.namespace["__name__"].partition(".")[0] or None
        self.imported |= imported_names(statement, package)
        for name in _assigned(statement):
            self.nodes.pop(name, None)
        for name, (data, codec) in drawn.items():
            literal = ast.copy_location(ast.Constant(data), statement)
            literal.codec = codec  # read back by array_codecs: the parameter's codec
            self.nodes[name] = literal
        if drawn:
            return
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            value = self.inline(statement.value)  # ``A = np.array([[1, 2]])`` too
            try:
                ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return
            self.nodes[statement.targets[0].id] = value
            return
        # ``n_samples, dim, sigma = 1000, 3, 4``: each name its own literal, in order.
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], (ast.Tuple, ast.List))
            and isinstance(statement.value, (ast.Tuple, ast.List))
            and len(statement.targets[0].elts) == len(statement.value.elts)
            and all(isinstance(e, ast.Name) for e in statement.targets[0].elts)
        ):
            for target, item in zip(statement.targets[0].elts, statement.value.elts, strict=True):
                value = self.inline(item)
                try:
                    ast.literal_eval(value)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    continue
                self.nodes[target.id] = value

    def inline(self, node, keep_call=False):
        """A copy of ``node`` whose names of literals are those literals, and whose arrays
        built from a literal (``np.array([[1, 2], [3, 4]])``) are that literal, the array
        codec's own JSON form, and whose arithmetic over numbers is the number it makes
        (``math.pi/4``: fold.py); ``node`` itself when there is none of these: parsed
        lines are shared and never changed. With ``keep_call`` a call stays a call, however
        numpy could build it: the call documented, not a value an assignment binds."""
        node = inline_constants(node, self.namespace, self.bound)
        node = folded(node, self.namespace, self.bound)
        if not any(
            (isinstance(n, ast.Name) and n.id in self.nodes)
            or self._array(n, build=False) is not None
            or self._path(n) is not None
            or _expression(n) is not None
            for n in ast.walk(node)
        ):
            return node
        nodes, array, path = self.nodes, self._array, self._path
        plain = functools.partial(_plain_array, namespace=self.namespace)

        class Put(ast.NodeTransformer):
            def visit_Name(self, name):
                if isinstance(name.ctx, ast.Load) and name.id in nodes:
                    return copy.deepcopy(nodes[name.id])
                return name

            def visit_Lambda(self, function):
                written = _expression(function)
                if written is None:
                    return function
                return ast.copy_location(ast.Constant(written), function)

            def visit_Call(self, call):
                joined = path(call)
                if joined is not None:  # ``os.path.join(data_path, "x.nii")``: data_paths.py
                    literal = ast.Constant(joined)
                    literal.constant = True  # the package's value, as an inlined constant's
                    return ast.copy_location(literal, call)
                inner = array(call)
                if inner is None:
                    named = any(isinstance(n, ast.Name) and n.id in nodes for n in ast.walk(call))
                    visited = self.generic_visit(call)
                    # ``np.concatenate([X1, X2])``: numpy builds it once its names are the
                    # literals they hold
                    built = array(visited) if named else None
                    return visited if built is None else built
                made = self.visit(inner)
                if plain(call) and getattr(made, "codec", None) is None:
                    # ``np.array((2458826, 2458826))``: the callable was given an array, and
                    # numpy makes the same one of the JSON lists (read back by array_codecs)
                    made.codec = "numpy"
                return made

        copied = copy.deepcopy(node)
        if keep_call and isinstance(copied, ast.Call):
            # The documented call stays a call (``np.cumsum(a)`` documenting a wrapper of
            # numpy's ``cumsum``): only its arguments become literals.
            put = Put().generic_visit(copied)
        else:
            put = Put().visit(copied)
        # ``[len(X1), len(X2)]``: what folds once the names are the literals they hold
        return folded(put, self.namespace, self.bound)

    def _path(self, node):
        return joined_path(node, self.namespace, self.imported) if self.imported else None

    def _built_array(self, node):
        """The nested lists an array that numpy's functions build over literals holds
        (``np.arange(24, dtype=np.int16).reshape((2, 3, 4))``, ``np.eye(4)``: array_values.py)
        as a literal that remembers its codec (``numpy:int16``); None for any other node,
        (``np.array(literal)`` is ``_array``'s: that literal is its JSON form as written)."""
        built = array_value(node, node, self.namespace)
        if built is None:
            return None
        literal = ast.copy_location(ast.Constant(built[0]), node)
        literal.codec = built[1]  # read back by array_codecs: the parameter's codec
        return literal

    def _array(self, node, build=True):
        """The literal argument of ``np.array(literal)``, a pandas table built from literals
        as its JSON form (frames.py), an array numpy's functions build (``_built_array``);
        None for any other node. Without ``build``, an array numpy would build is the node
        itself, unbuilt: ``inline`` asks of every node whether there is anything to put in,
        and builds each array once, in the copy it returns."""
        frame = frame_literal(node, self.namespace)
        if frame is not None:
            return frame
        if not isinstance(node, ast.Call):
            return None
        if not _plain_array(node, self.namespace):
            if not build:
                return node if numpy_built(node, self.namespace) else None
            return self._built_array(node)
        argument = node.args[0]
        if isinstance(argument, ast.Name) and argument.id in self.nodes:
            return argument
        try:
            ast.literal_eval(argument)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return None
        return argument


def _expression(node):
    """A lambda of plain parameters (``lambda x, w: x + np.sin(w)``) as the expression
    codec's explicit form, ``{"expression": "x + np.sin(w)", "variables": ["x", "w"]}``,
    which the runtime reads as an expression tree (runtime/expressions.py), never as code;
    None for any other node, or a lambda with defaults, ``*args`` or a nested lambda."""
    if not isinstance(node, ast.Lambda):
        return None
    arguments = node.args
    if (
        arguments.posonlyargs
        or arguments.kwonlyargs
        or arguments.vararg
        or arguments.kwarg
        or arguments.defaults
        or not arguments.args
        or any(isinstance(n, ast.Lambda) for n in ast.walk(node.body))
    ):
        return None
    return {"expression": ast.unparse(node.body), "variables": [a.arg for a in arguments.args]}


def _plain_array(node, namespace):
    """``np.array(x)`` with nothing more: its literal argument is the JSON form already."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in ARRAY_BUILDERS
        and len(node.args) == 1
        and not node.keywords
        and isinstance(func.value, ast.Name)
        and getattr(namespace.get(func.value.id), "__name__", None) == "numpy"
    )


def examples_for(func, names, doc, signature, exposed, guide=False):
    """Literal calls of ``func`` in its doctests, bound to parameter names.

    A call on a name the session bound itself (``acc.total()`` after ``acc = Tally()``) is
    a method of that object, not this function: its output belongs to the method. In a
    ``guide`` (a README or a guide page, which calls many libraries' functions) only a
    call that resolves to ``func`` itself is its example: ``np.load`` is not ``nib.load``.
    """
    found = []
    variables = set()
    namespace = dict(getattr(func, "__globals__", None) or {})
    imports = set()  # the names the session's import lines bind, whatever they are
    if guide:  # a guide's names are what its own imports bind
        package = sys.modules.get((getattr(func, "__module__", "") or "").partition(".")[0])
        namespace = {PACKAGE: package} if package is not None else {}

    def ours(call):
        if not guide:
            return True
        base = call.func
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name) and base.id in imports and base.id not in namespace:
            return False  # ``np.load`` after an import of a library the probe never loaded
        if resolve(call.func, namespace) is func:
            return True
        # a bare name no import line binds: the README's own shorthand for the package's
        return isinstance(call.func, ast.Name) and call.func.id not in imports

    literals = Literals(namespace, unseeded=True)
    held = {}  # name -> (its call's arguments, its place in the unpacked result or None)
    unseeded = set()  # ids of held examples whose call took numbers of no known seed
    for example in parsed_examples(doc):
        if len(found) >= MAX_EXAMPLES:
            break
        statement = single_statement(example.source)
        if statement is None:
            continue
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            bind_imports(statement, namespace)  # ``import numpy as np``: for its arrays
            literals.note(statement)  # ``from pkg.testing import data_path``: data_paths.py
            imports.update((a.asname or a.name).partition(".")[0] for a in statement.names)
            continue
        stated, shown_example = stated_line(statement, example)
        shown_name = held_name(stated, held)
        for name in _assigned(statement) | changed_names(statement):
            held.pop(name, None)
        variables |= _assigned(statement)
        literals.note(statement)
        if shown_name is not None:  # ``cA, cD = dwt(x)`` before, and now ``cA`` (or ``r.n``)
            item, part, attribute, printed, reads = shown_name
            if id(item) in unseeded:
                continue  # the docs' numbers were other ones: what it showed is no value
            shown = held_value(item["arguments"], printed, shown_example)
            if shown is not None and shown["has_expected"] and not item["has_expected"]:
                item.update(shown, part=part, attribute=attribute)
                if reads:
                    item["reads"] = reads
            continue
        if not isinstance(statement, ast.Expr):
            # an assignment shows nothing, but its call is an example all the same
            # (``img = load(path)``), whose value a later line may show
            item = _hold(statement, names, literals, signature, exposed, variables, held, ours)
            if item is None and not example.exc_msg:
                hold_items(statement, held)  # ``cA, (cH, cV, cD) = coeffs``
            if item is not None and not example.exc_msg:
                if _uses(statement.value, literals.random.unseeded_names):
                    unseeded.add(id(item))
                found.append(item)
            continue
        # ``str(f(2))``; ``f(2) == 4`` shown True as ``f(2)`` showing 4 (stated_line)
        shown, text, want = shown_as_text(stated.value, shown_example.want)
        match = call_in(shown, names)
        if match is None:
            continue
        wrapper, call = match[0] or text, match[1]
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if (isinstance(receiver, ast.Name) and receiver.id in variables) or not ours(call):
            continue
        inlined = literals.inline(call, keep_call=True)
        arguments = literal_arguments(inlined, signature, exposed)
        if arguments is None:
            continue
        if _uses(call, literals.random.unseeded_names):
            want = ""  # the call on data of the docs' shape; its shown value was of other data
        item = example_item(arguments, wrapper, want.strip(), example.exc_msg)
        if item is None:
            continue
        note_arrays(item, inlined, signature)
        if item["has_expected"] and stated is statement:  # the line, run as written, shows it
            item["line"] = example.source.strip()
        found.append(item)
    found.sort(key=shown_first)
    return found


LOOSELY_SHOWN = ("table", "ellipsis")
"""What validation may find no way to read against the result (contracts.LOOSELY_SHOWN)."""


def shown_first(example):
    """Sort key: examples that show a value first, those whose value is surely read first
    among them (an ELLIPSIS text or a printed table may prove unreadable: the call then
    passes by ``no-error`` before a later example's value was tried)."""
    return not example["has_expected"], example.get("wrapper") in LOOSELY_SHOWN


def _uses(node, names):
    """Whether ``node`` reads any of ``names``."""
    return bool(names) and any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names
        for n in ast.walk(node)
    )


def _hold(statement, names, literals, signature, exposed, variables, held, ours):
    """The example an assignment of a literal call of the function is (``r = f(2)``,
    ``cA, cD = dwt(x)``), without an output yet, or None; the names it binds are held
    with it (each name its item's place), for a later line that shows one of them."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    match = call_in(statement.value, names)
    if match is None or match[0] is not None:
        return None
    call = match[1]
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and receiver.id in variables - _assigned(statement):
        return None  # a method of an object the session built: not this function
    if not ours(call):
        return None
    inlined = literals.inline(call, keep_call=True)
    arguments = literal_arguments(inlined, signature, exposed)
    if arguments is None:
        return None
    item = example_item(arguments, None, "", None)
    note_arrays(item, inlined, signature)
    hold_names(statement.targets[0], item, held)
    return item


def note_arrays(item, call, signature):
    """Keep, under ``_arrays``, the codec of each argument numpy built (schemas.py makes it
    the parameter's: the callable gets an array of the docs' item type again)."""
    codecs = array_codecs(call, signature)
    if codecs:
        item["_arrays"] = codecs


def hold_names(target, item, held, base=None):
    """Hold the names ``target`` binds to ``item``'s result (or to its item at ``base``): a
    name the whole of it, each name of an unpacking its item's place, a list of one index
    per level where the unpacking is nested (``cA, (cH, cV, cD) = dwt2(x)``: ``cV`` at
    ``[1, 1]``)."""
    if isinstance(target, ast.Name):
        held[target.id] = (item, base)
        return
    places = _unpacked_places(target, [] if base is None else _levels(base))
    if places is None:
        return
    for name, place in places:
        if name != "_":
            held[name] = (item, place[0] if len(place) == 1 else place)


def _levels(part):
    return [part] if isinstance(part, int) else list(part)


def _unpacked_places(target, prefix):
    """Each name of a (nested) tuple or list target with its place; None for a starred
    item or another kind of target."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return None
    found = []
    for index, element in enumerate(target.elts):
        place = [*prefix, index]
        if isinstance(element, ast.Name):
            found.append((element.id, place))
            continue
        inner = _unpacked_places(element, place)
        if inner is None:
            return None
        found += inner
    return found


def hold_items(statement, held):
    """``cA, (cH, cV, cD) = coeffs`` or ``first = coeffs[0]``, where ``coeffs`` holds a
    result: each name holds its item. A name bound to another name is not followed (both
    are one object, and a change made through one is not seen); True when it held."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return False
    source, index = statement.value, []
    while isinstance(source, ast.Subscript):
        key = source.slice
        if not (isinstance(key, ast.Constant) and type(key.value) is int):
            return False
        index.insert(0, key.value)
        source = source.value
    target = statement.targets[0]
    if not isinstance(source, ast.Name) or source.id not in held:
        return False
    if isinstance(target, ast.Name) and not index:
        return False
    item, part = held[source.id]
    base = [*([] if part is None else _levels(part)), *index]
    hold_names(target, item, held, base[0] if len(base) == 1 else base or None)
    return True


def stated_line(statement, example):
    """A line that compares a value with a literal and shows ``True`` (``>>> aero.shape ==
    (512, 512)``, a doctest's way to assert) as the line that shows that value, with the
    literal as its output; any other line as it is."""
    node = statement.value if isinstance(statement, ast.Expr) else None
    if (
        not isinstance(node, ast.Compare)
        or len(node.ops) != 1
        or not isinstance(node.ops[0], ast.Eq)
        or example.want.strip() != "True"
    ):
        return statement, example
    for shown, literal in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
        try:
            ast.literal_eval(literal)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        line = ast.Expr(value=shown)
        return line, doctest.Example(example.source, ast.unparse(literal) + "\n")
    return statement, example


_ITEM_ATTRIBUTES = frozenset({"shape", "ndim", "size"})
"""What validation reads of an unpacked item itself: an array's, from the list it travels as
(``compare.attribute_of``); other attributes are a handle's ``fields``, of the whole result."""


def held_name(statement, held):
    """What a line that shows a held name alone (``cA``), or a public attribute of a held
    result (``fit.nobs``), or its shape (``data.observations.shape``), or prints either
    (``print(r)``), shows the value of: (example, place, attribute, printed, reads), or
    None."""
    if not isinstance(statement, ast.Expr):
        return None
    node, attribute, reads = rounded(statement.value), None, []
    argument = print_argument(node)
    if argument is not None:
        node = argument
    if shape_of_attribute(node):  # the attribute's value, then its shape (result_reads.py)
        node, reads = node.value, [{"op": "shape"}]
    if isinstance(node, ast.Attribute) and not node.attr.startswith("_"):
        node, attribute = node.value, node.attr
    if not isinstance(node, ast.Name) or node.id not in held:
        return None
    item, part = held[node.id]
    if attribute is not None and part is not None and attribute not in _ITEM_ATTRIBUTES:
        return None  # an attribute of one unpacked item: no value the tool returns
    return item, part, attribute, argument is not None, reads


def shape_of_attribute(node):
    """Whether ``node`` reads the shape of a public attribute (``data.observations.shape``,
    a dataset loader's doctest)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "shape"
        and isinstance(node.value, ast.Attribute)
        and not node.value.attr.startswith("_")
    )


_PRINTED_NUMBERS = re.compile(r"[\[\]()\s\d.,eE+\-naif]+")
"""What ``print`` shows of numbers: an array as numpy prints it, a tuple or list of them."""


def held_value(arguments, printed, example):
    """The example a line showing a held result makes of its output: the value shown, or
    for ``print(r)`` the text printed (``text.shown_as_text`` reads ``print(f(x))`` so),
    numbers only (``[[1. 2.] [3. 4.]]``, ``(-6102.44..., -986.33...)``): the text of an
    object the tool answers as JSON (``[1.0+/-0.01 2.0+/-0.002]``, an array of the library's
    numbers) is no text its answer can show again."""
    want = example.want.strip()
    if printed:
        numbers = _PRINTED_NUMBERS.fullmatch(want.replace(ELLIPSIS, ""))
        shown = repr(want) if want and numbers else ""
        return example_item(arguments, "str", shown, example.exc_msg)
    return example_item(arguments, None, want, example.exc_msg)


def changed_names(statement):
    """The names whose objects a line may change (``r.sort()``, ``r[0] = 1``)."""
    names = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if isinstance(node.func.value, ast.Name):
                names.add(node.func.value.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.value, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                names.add(node.value.id)
    return names


def example_item(arguments, wrapper, want, exc_msg):
    """One example: the arguments and, when the session shows it, the expected value."""
    if exc_msg:
        return None
    item = {
        "arguments": arguments,
        "wrapper": wrapper,
        "origin": "doctest",
        "has_expected": False,
        "expected": None,
    }
    if not want:
        return item
    shown = want if wrapper is None else _printed_text(want) if wrapper == "str" else None
    truncated = truncated_numbers(shown) if shown and ELLIPSIS in shown else None
    if truncated is not None:
        # ``(-6102.44..., -986.33...)``: each number's digits, the rest cut off
        value, unit = truncated
        item.update(expected=value, wrapper=None, has_expected=True)
        item["tolerance"] = {"rel": 0.0, "abs": unit}
        return item
    try:
        value = ast.literal_eval(want)
        if isinstance(value, (set, frozenset)):  # a set result, shown as one
            wrapper = "set"
        item["expected"] = json_safe(sorted(value) if wrapper == "set" else value)
        if wrapper in ("set", "frozenset"):
            item["wrapper"] = "set"
        item["has_expected"] = True
    except (ValueError, TypeError, SyntaxError, Unsupported, RecursionError, MemoryError):
        moment = moment_value(want) if wrapper is None else None
        if moment is not None:
            # ``datetime.datetime(2003, 9, 25, 10, 49)``: the ISO text (or a duration's
            # seconds) the answer carries (stdlib_values.as_json, as runtime/codecs.py)
            item.update(expected=moment, has_expected=True)
        elif wrapper is None and repr_shaped(want):
            # A library's own number or array printed as its constructor call:
            # validation compares what it shows (validate/reprs.py).
            item.update(expected=want, wrapper="repr", has_expected=True)
        elif wrapper is None and table_shaped(want):
            # A frame as pandas prints it: validation compares its cells (validate/tables.py).
            item.update(expected=want, wrapper="table", has_expected=True)
        elif wrapper is None and re.search(r"[^\W_]", want.replace(ELLIPSIS, "")):
            # ``['coif1', 'coif2', ...``: doctest's ELLIPSIS, matched as doctest matches it
            # (validate/compare.ellipsis_match); so is text of several lines, a table the
            # call printed (runtime/printed.py), and an object's repr on one line
            # (``0.2+/-0.01``, ``<Quantity(1.0, 'meter')>``) or several. Text the answer
            # does not show is not read: the call then passes by no-error, as before. An
            # output of ``...`` alone shows nothing (it would match any answer).
            item.update(expected=want, wrapper="ellipsis", has_expected=True)
    return item


def _printed_text(want):
    """The text a ``print`` showed, from the string literal ``shown_as_text`` wrote."""
    try:
        value = ast.literal_eval(want)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    return value if isinstance(value, str) else None
