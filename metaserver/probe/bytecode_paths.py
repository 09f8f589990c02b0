"""Compiled bytecode renamed to the path a served tool sees its source at:
``python -I -S <this file> ROOT SHOWN``, run INSIDE the target environment (standard library
only, and any Python 3 that environments are made with).

uv compiles an environment where it is built, on the host, and every ``.pyc`` records that
path as its code objects' ``co_filename``. The import system puts the real source path in
its place when it loads a module, but code that reads a ``.pyc`` itself (``marshal``) saw
the home's path. Every ``.pyc`` under ROOT of this interpreter's cache tag whose code names
another file than its source's place under SHOWN is written again naming that place; its
header (the source's time and size, or hash) is kept, so it stays valid. It runs in the
sandbox: the files are the install's, and unmarshalling is not safe against crafted data.
Prints how many files were rewritten.
"""

import importlib.util
import marshal
import os
import sys

HEADER = 16  # magic, flags, and the source's time and size (or hash): PEP 552


def renamed(code, old, new):
    """``code`` with every code object in it that names ``old`` naming ``new``."""
    consts = tuple(
        renamed(item, old, new) if isinstance(item, type(code)) else item for item in code.co_consts
    )
    filename = new if code.co_filename == old else code.co_filename
    return code.replace(co_filename=filename, co_consts=consts)


def rename_file(path, expected):
    """Rewrite the ``.pyc`` at ``path`` to name ``expected``; True if it was rewritten."""
    with open(path, "rb") as handle:
        data = handle.read()
    if expected.encode("utf-8", "surrogateescape") in data:
        return False  # already names it: the common case, decided without unmarshalling
    code = marshal.loads(data[HEADER:])  # noqa: S302 - in the sandbox, see the docstring
    if code.co_filename == expected:
        return False
    body = marshal.dumps(renamed(code, code.co_filename, expected))
    staging = path + ".renaming"
    # A new file, not the old one written in place: it may be a hard link that another
    # environment or the base layer shares.
    with open(staging, "wb") as handle:
        handle.write(data[:HEADER] + body)
    os.chmod(staging, os.stat(path).st_mode & 0o777)
    os.replace(staging, path)
    return True


def rename_tree(root, shown):
    """Rename every ``.pyc`` of this interpreter under ``root``; how many were rewritten."""
    tag = "." + sys.implementation.cache_tag + "."
    changed = 0
    for folder, _, filenames in os.walk(root):
        if os.path.basename(folder) != "__pycache__":
            continue
        for name in filenames:
            if not name.endswith(".pyc") or tag not in name:
                continue
            path = os.path.join(folder, name)
            try:
                source = importlib.util.source_from_cache(path)
            except ValueError:
                continue
            relative = os.path.relpath(source, root)
            if relative.startswith(".."):
                continue
            try:
                changed += rename_file(path, os.path.join(shown, relative))
            except (OSError, ValueError, EOFError, TypeError, AttributeError):
                continue  # not a readable .pyc of this Python: left as it is
    return changed


if __name__ == "__main__":
    print(rename_tree(os.path.abspath(sys.argv[1]), sys.argv[2]))
