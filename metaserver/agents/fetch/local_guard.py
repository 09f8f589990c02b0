"""Which local directories may be a SOURCE, and how much of one may be copied.

A local SOURCE is copied into the home, so a directory that is not a project would copy
secrets (``/etc/shadow``), other users' files, or block forever reading a special file
(``/proc/kmsg``). A SOURCE must therefore be a project directory: not ``/``, not a home
directory itself, not a system tree, with no devices, FIFOs or sockets in what is copied; and
the copy is bounded in bytes, files and seconds (``Settings.local_copy_*``).
"""

from __future__ import annotations

import os
import pwd
import stat
import time
from pathlib import Path

from metaserver.exceptions import SourceError

# Never a project, at any depth: kernel interfaces, devices, boot files, configuration,
# runtime state and the system's programs and libraries.
SYSTEM_TREES = tuple(
    Path(p)
    for p in (
        "/proc",
        "/sys",
        "/dev",
        "/boot",
        "/etc",
        "/run",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/usr",
        "/var/log",
        "/var/cache",
        "/var/spool",
        "/var/mail",
        "/var/backups",
        "/var/lib/dpkg",
        "/var/lib/apt",
    )
)
# Directories that hold projects but are never one themselves.
CONTAINERS = tuple(
    Path(p)
    for p in ("/", "/home", "/root", "/var", "/var/lib", "/opt", "/srv", "/mnt", "/media", "/tmp")  # noqa: S108
)


def check_project_directory(path: Path) -> None:
    """Refuse a directory that cannot be a project (``path`` is resolved).

    Raises:
        SourceError: ``path`` is ``/``, a home directory, a system tree or inside one.
    """
    for tree in SYSTEM_TREES:
        if path == tree or path.is_relative_to(tree):
            raise SourceError(
                f"SOURCE {path} is inside the system tree {tree}, not a project directory"
            )
    if path in home_directories():
        raise SourceError(
            f"SOURCE {path} is a home directory, not a project directory: name the project in it"
        )
    if path in CONTAINERS:
        raise SourceError(f"SOURCE {path} is not a project directory: name the project in it")


def home_directories() -> set[Path]:
    """Every user's home directory, and ours (``HOME`` may differ from the password file)."""
    homes = {Path.home().resolve()}
    for entry in pwd.getpwall():
        if entry.pw_dir and entry.pw_dir != "/":
            homes.add(Path(entry.pw_dir).resolve())
    return homes


class CopyBudget:
    """Bytes, files and seconds a local copy may still spend; refuses past any of them."""

    def __init__(self, max_bytes: int, max_files: int, seconds: float) -> None:
        self.max_bytes, self.max_files, self.seconds = max_bytes, max_files, seconds
        self.bytes = self.files = 0
        self.deadline = time.monotonic() + seconds

    def spend(self, entry: Path, info: os.stat_result) -> None:
        """Count ``entry`` (before it is copied).

        Raises:
            SourceError: a special file, or the copy is over one of its bounds.
        """
        mode = info.st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            raise SourceError(
                f"SOURCE holds a {special_kind(mode)} ({entry}): a project directory holds only "
                "files, directories and symlinks"
            )
        self.files += 1
        if stat.S_ISREG(mode):
            self.bytes += info.st_size
        if self.files > self.max_files:
            raise SourceError(
                f"SOURCE holds more than {self.max_files} files "
                "(METASERVER_LOCAL_COPY_MAX_FILES): is it a project directory?"
            )
        if self.bytes > self.max_bytes:
            raise SourceError(
                f"SOURCE holds more than {self.max_bytes // 2**20} MB "
                "(METASERVER_LOCAL_COPY_MAX_MB): is it a project directory?"
            )
        self.check_time()

    def check_time(self) -> None:
        """Raises SourceError past the copy's deadline."""
        if time.monotonic() > self.deadline:
            raise SourceError(
                f"copying SOURCE took more than {self.seconds:g} s "
                "(METASERVER_LOCAL_COPY_SECONDS): is it a project directory?"
            )


def special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"
