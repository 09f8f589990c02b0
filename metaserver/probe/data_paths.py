"""Probe helper (runs INSIDE the target environment; standard library only): a path a session
joins from a name it imported from the package, as the literal path it makes.

``from nibabel.testing import data_path`` then ``os.path.join(data_path, 'example4d.nii.gz')``
names a data file the package ships; the session's later ``nib.load(example_filename)`` is
then a call with a literal argument, which the generated server's codec lets through (a
regular file inside the environment: runtime/decode.shipped_file). Only a name that one of
the session's own import lines binds from the package counts (its value is the package's,
not what an unshown setup meant), only a text or a path value, and only ``os.path.join`` of
such names and text literals; nothing is read from the file system.
"""

import ast
import os

from .session_names import resolve


def imported_names(statement, package):
    """The names ``from <package>[.module] import name`` binds; none for another statement."""
    if not isinstance(statement, ast.ImportFrom) or statement.level or package is None:
        return set()
    if (statement.module or "").partition(".")[0] != package:
        return set()
    return {alias.asname or alias.name for alias in statement.names if alias.name != "*"}


def joined_path(node, namespace, imported):
    """The path ``node`` makes when it is ``os.path.join`` of text literals and ``imported``
    names bound to text; None otherwise."""
    if not isinstance(node, ast.Call) or node.keywords or not node.args:
        return None
    if resolve(node.func, namespace) is not os.path.join:
        return None
    parts = []
    for argument in node.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            parts.append(argument.value)
        elif isinstance(argument, ast.Name) and argument.id in imported:
            value = namespace.get(argument.id)
            if isinstance(value, os.PathLike):  # ``files("pkg") / "tests" / "data"``
                value = os.fspath(value)
            if not isinstance(value, str):
                return None
            parts.append(value)
        else:
            return None
    return os.path.join(*parts)
