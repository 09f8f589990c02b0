"""Probe helper (runs INSIDE the target environment; standard library only): risky callables.

A tool an agent may call freely must not delete files, reach the network or control
processes, and a deprecated callable is a poor tool. Both are judged from the name, the
docstring and a static scan of the function's own source (no call is made).
"""

import ast
import inspect
import linecache
import re
import textwrap

# Calls that make a callable dangerous, by dotted name (a final ".*" matches a module).
DANGEROUS_CALLS = (
    "os.system",
    "os.popen",
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "os.removedirs",
    "os.kill",
    "os.killpg",
    "os.fork",
    "os.exec*",
    "os.spawn*",
    "os._exit",
    "shutil.rmtree",
    "shutil.move",
    "subprocess.*",
    "socket.*",
    "urllib.request.*",
    "urlopen",
    "requests.*",
    "httpx.*",
    "aiohttp.*",
    "ftplib.*",
    "smtplib.*",
    "webbrowser.*",
    "sys.exit",
    "exit",
    "quit",
)
# Method names that touch files or processes whatever their receiver is.
DANGEROUS_METHODS = {"unlink", "rmtree", "rmdir", "kill", "terminate", "send_signal"}
DANGEROUS_MODULES = {"subprocess", "socket", "requests", "httpx", "urllib", "aiohttp", "ftplib"}
DANGEROUS_WORDS = {
    "download",
    "upload",
    "rmtree",
    "kill",
    "shutdown",
    "reboot",
    "urlopen",
    "socket",
    "subprocess",
    "serve",
    "listen",
}
DEPRECATION = ("DeprecationWarning", "PendingDeprecationWarning", "FutureWarning")
_DEPRECATED_DOC = re.compile(r"(\.\. deprecated::|^\s*deprecated\b|\bis deprecated\b)", re.I | re.M)


def dangerous_name(name):
    """A reason when the name alone says the callable deletes, downloads or controls."""
    words = set(re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name.lower()))
    hit = words & DANGEROUS_WORDS
    if hit:
        return f"name suggests {sorted(hit)[0]}"
    if words & {"delete", "remove", "rm"} and words & {"file", "files", "dir", "directory", "path"}:
        return "name suggests deleting files"
    return None


def source_tree(func):
    if inspect.isclass(func):
        return _class_tree(func)
    try:
        source = inspect.getsource(func)
    except (OSError, TypeError):
        return None
    try:
        return ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None


_MODULE_TREES = {}


def _class_tree(cls):
    """A class's definition, found in its module's tree as ``inspect.getsource`` finds it
    (by qualified name, through nested classes and functions), but with the module parsed
    once: ``getsource`` parses the whole file for every class, minutes for a package of
    hundreds of classes in long modules."""
    try:
        path = inspect.getsourcefile(cls)
    except TypeError:
        return None
    if not path:
        return None
    if path not in _MODULE_TREES:
        try:
            _MODULE_TREES[path] = ast.parse("".join(linecache.getlines(path)))
        except (SyntaxError, ValueError):
            _MODULE_TREES[path] = None
    if _MODULE_TREES[path] is None:
        return None
    found = _find_class(_MODULE_TREES[path], cls.__qualname__.split("."), [])
    return None if found is None else ast.Module(body=[found], type_ignores=[])


def _find_class(node, wanted, stack):
    """The first class definition whose qualified name is ``wanted``, in source order."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            if [*stack, child.name] == wanted:
                return child
            found = _find_class(child, wanted, [*stack, child.name])
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = _find_class(child, wanted, [*stack, child.name, "<locals>"])
        else:
            found = _find_class(child, wanted, stack)
        if found is not None:
            return found
    return None


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _matches(name):
    for pattern in DANGEROUS_CALLS:
        if pattern.endswith("*"):
            if name.startswith(pattern[:-1]):
                return True
        elif name == pattern or name.endswith("." + pattern):
            return True
    return False


def _deprecated_doc(doc):
    """A docstring that deprecates its callable; a note that deprecates passing some
    arguments by position (``.. deprecated:: 2.1`` then "if quad_segs is given as a
    positional argument") leaves it current."""
    for match in _DEPRECATED_DOC.finditer(doc):
        paragraph = re.split(r"\n\s*\n", doc[match.start() :], maxsplit=1)[0]
        if not _ARGUMENTS.search(paragraph):
            return True
    return False


_ARGUMENTS = re.compile(r"\b(?:positional(?:ly)?|arguments?|parameters?|keywords?|kwargs?)\b", re.I)


_CALLING_STYLE = ("positional", "arg", "param", "kwarg", "keyword", "alias", "rename")


def _deprecates_callable(decorator):
    """``@deprecated``, not ``@deprecate_positional``: a decorator that deprecates a way of
    passing arguments leaves the callable itself current."""
    name = decorator.lower()
    return "deprecat" in name and not any(word in name for word in _CALLING_STYLE)


_BRANCHES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.IfExp)


def _conditional_calls(tree):
    """Ids of the calls under a branch or loop: a warning there deprecates one way of
    calling (a float where an int belongs), not the callable itself."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, _BRANCHES) or type(node).__name__ == "Match":
            found.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Call))
    return found


_SCANNED = {}


def scan(func, name):
    """(dangerous reason or None, deprecated) for one callable, remembered: an inherited
    method is one function listed under every subclass (sympy's hundreds of classes share
    most of theirs), and reading its source each time cost minutes."""
    try:
        key = (func, name)
        if key in _SCANNED:
            return _SCANNED[key][1]
    except TypeError:  # an unhashable callable instance: read it every time
        return _scan(func, name)
    found = _scan(func, name)
    _SCANNED[key] = (func, found)  # the function is kept alive: its id is never reused
    return found


def _scan(func, name):
    danger = dangerous_name(name)
    doc = inspect.getdoc(func) or ""
    deprecated = bool(getattr(func, "__deprecated__", None)) or _deprecated_doc(doc)
    tree = source_tree(func)
    if tree is None:
        return danger, deprecated
    conditional = _conditional_calls(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if _deprecates_callable((dotted(target) or "").rpartition(".")[2]):
                    deprecated = True
        elif isinstance(node, ast.Call):
            called = dotted(node.func) or ""
            if danger is None and _matches(called):
                danger = f"calls {called}"
            elif (
                danger is None and called.rpartition(".")[2] in DANGEROUS_METHODS and "." in called
            ):
                danger = f"calls .{called.rpartition('.')[2]}()"
            if (
                called.endswith("warn")
                and id(node) not in conditional
                and any(
                    (dotted(arg) or "").endswith(DEPRECATION)
                    for arg in [*node.args, *[k.value for k in node.keywords]]
                )
            ):
                deprecated = True
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and danger is None:
            modules = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            hit = [m for m in modules if m.partition(".")[0] in DANGEROUS_MODULES]
            if hit:
                danger = f"imports {hit[0]}"
    return danger, deprecated
