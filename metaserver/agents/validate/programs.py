"""Whether a tool failed only because an external program the library runs is missing.

A library that shells out (a quantum chemistry code, a converter, a compiler) fails its
documented example where that program is not installed, whatever our inference did: the
verdict is ``env_failure`` (the environment lacks it), never ``api_inference_error`` nor
``repo_internal_bug``. Said only when the error names the program and it is really absent
here (``shutil.which`` finds nothing of that name): the operating system's "no such file"
for a bare program name (``subprocess.run(["nwchem", ...])``), a shell's "not found", or a
command line whose exit status is the shell's 127 (command not found) and whose first word
is such a program. A missing data file (a path, or a name with a suffix) is not a program.
"""

from __future__ import annotations

import re
import shutil
from pathlib import PurePath

__all__ = ["missing_program"]

_NO_SUCH_FILE = re.compile(r"\[Errno 2\] No such file or directory: '([^'\s]+)'")
_SHELL = re.compile(r"(?:^|[\s:'\"])([\w.+-]+): (?:command )?not found")
_EXIT_127 = re.compile(r"(?:error code|exit status|exit code|returned)\D{0,20}127\b")
_QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'")


def missing_program(error: str) -> str | None:
    """The program whose absence ``error`` reports, when it is absent here; else None."""
    names = [m.group(1) for m in _NO_SUCH_FILE.finditer(error)]
    names += [m.group(1) for m in _SHELL.finditer(error)]
    if _EXIT_127.search(error):
        for match in _QUOTED.finditer(error):
            words = (match.group(1) or match.group(2)).split()
            if len(words) > 1:  # a command line (a bare quoted word is a name, not a call)
                names.append(words[0])
    for name in names:
        if _program_name(name) and shutil.which(name) is None:
            return name
    return None


def _program_name(name: str) -> bool:
    """A bare command name: no folder, no file suffix (``nwchem``, ``gfortran``, not
    ``data.csv`` or ``/tmp/x``)."""
    path = PurePath(name)
    return len(path.parts) == 1 and not path.suffix and bool(re.fullmatch(r"[A-Za-z][\w+-]*", name))
