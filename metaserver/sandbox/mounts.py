"""What a confined child sees of the host's file system: a plan of bind mounts.

The child's root is empty; only these appear, each at **the same path** as on the host,
because virtual environments are full of absolute paths (shebangs, ``pyvenv.cfg``):

* the system, read-only: ``/usr`` (with the ``/bin``, ``/lib`` ... links) and a few files
  of ``/etc`` that libraries need (certificates, the dynamic loader cache, name service);
* every executable file or directory the command line names (the command metaserver built,
  so trusted), read-only; a Python interpreter brings its whole prefix, a virtual
  environment brings the interpreter it was made from. That is how a pyenv Python under
  ``/root`` (mode 700) becomes usable by an unprivileged child without opening ``/root``:
  the child sees the interpreter's prefix and nothing else of ``/root``;
* the policy's ``readable`` paths, read-only, and its ``workdir`` and ``writable`` paths,
  read-write; for an install, the sandbox's own package cache, read-write.

Everything else, the host's home directories, its ``/tmp``, other environments and servers,
the operator's package cache, does not exist for the child.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SYSTEM_DIRS = (Path("/usr"),)
SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
ETC_FILES = (
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
    "hosts",
    "mime.types",
)
_PYTHON = re.compile(r"^python[0-9.]*$")


@dataclass
class MountPlan:
    """Read-only and read-write binds, each bound at its own host path."""

    readonly: list[Path] = field(default_factory=list)
    writable: list[Path] = field(default_factory=list)
    links: list[tuple[str, Path]] = field(default_factory=list)  # (target, link path)

    def binds(self) -> list[tuple[Path, bool]]:
        """(path, writable) in mount order: parents before children, so nesting works."""
        rw = {p for p in self.writable}
        paths = _dedupe([*self.readonly, *self.writable])
        # A path inside a bind of its own kind needs no bind; inside one of the other kind it
        # is bound after it (so a file the command line names inside a writable tree is
        # read-only, and a work directory inside a read-only tree is writable).
        result: list[tuple[Path, bool]] = []
        for path in sorted(paths, key=lambda p: (len(p.parts), str(p))):
            writable = path in rw
            covering = _covering(path, result)
            if covering is not None and covering[1] == writable:
                continue
            result.append((path, writable))
        return result

    def directories(self) -> list[Path]:
        """Ancestors of the binds that the empty root must have (created mode 0755)."""
        binds = [p for p, _ in self.binds()]
        needed: set[Path] = set()
        for path in binds:
            for parent in path.parents:
                if parent == Path("/") or parent == Path("/tmp"):  # noqa: S108 - the child's tmpfs
                    continue
                if any(parent == b or parent.is_relative_to(b) for b in binds):
                    continue
                needed.add(parent)
        return sorted(needed, key=lambda p: (len(p.parts), str(p)))


def _covering(path: Path, binds: list[tuple[Path, bool]]) -> tuple[Path, bool] | None:
    """The innermost bind that already contains ``path``."""
    found: tuple[Path, bool] | None = None
    for bound, writable in binds:
        if path == bound or path.is_relative_to(bound):
            if found is None or len(bound.parts) > len(found[0].parts):
                found = (bound, writable)
    return found


def _dedupe(paths: Iterable[Path]) -> list[Path]:
    seen: dict[Path, None] = {}
    for path in paths:
        seen[Path(os.path.abspath(path))] = None
    return list(seen)


def system_plan() -> MountPlan:
    """The read-only system every child gets."""
    plan = MountPlan()
    plan.readonly.extend(d for d in SYSTEM_DIRS if d.exists())
    for name in SYSTEM_LINKS:
        host = Path("/") / name
        if host.is_symlink():
            plan.links.append((os.readlink(host), host))
        elif host.is_dir():
            plan.readonly.append(host)
    plan.readonly.extend(p for p in (Path("/etc") / f for f in ETC_FILES) if p.exists())
    return plan


def interpreter_prefix(python: Path) -> Path | None:
    """The installation prefix of a Python executable (``.../bin/python3.11`` -> ``...``)."""
    real = Path(os.path.realpath(python))
    if _PYTHON.match(real.name) and real.parent.name == "bin":
        return real.parent.parent
    return None


def venv_base(venv: Path) -> Path | None:
    """The prefix of the interpreter a virtual environment was made from, if it is one."""
    try:
        text = (venv / "pyvenv.cfg").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return Path(os.path.realpath(value.strip())).parent
    return None


def command_paths(argv: Sequence[str]) -> list[Path]:
    """What the command line names that must be readable for it to run at all."""
    needed: list[Path] = []
    for item in argv:
        if not item.startswith("/"):
            continue
        path = Path(item)
        if not path.exists():
            continue
        needed.extend(_with_interpreter(path))
    return needed


def _with_interpreter(path: Path) -> list[Path]:
    if path.is_dir():
        base = venv_base(path)
        return [path] + ([base] if base else [])
    prefix = interpreter_prefix(path)
    if prefix is None:
        return [Path(os.path.realpath(path)), path] if path.is_symlink() else [path]
    result = [prefix]
    venv = path.parent.parent
    if (venv / "pyvenv.cfg").exists():
        result.append(venv)
        if base := venv_base(venv):
            result.append(base)
    return result


def plan_for(
    argv: Sequence[str],
    readable: Iterable[Path],
    writable: Iterable[Path],
    extra_readonly: Iterable[Path] = (),
) -> MountPlan:
    """The full plan for one child: system, command, policy paths."""
    plan = system_plan()
    plan.readonly.extend(command_paths(argv))
    plan.readonly.extend(extra_readonly)
    for path in readable:
        plan.readonly.extend(_with_interpreter(path) if path.exists() else [])
    for path in writable:
        plan.writable.append(path)
        if base := venv_base(path):
            plan.readonly.append(base)
    return plan
