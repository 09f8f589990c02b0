"""Host temporary directories of the sandbox machinery, and nothing of them left behind.

The seccomp filter (:mod:`metaserver.sandbox.seccomp`), the index proxy's socket
(:mod:`metaserver.sandbox.proxy`) and bubblewrap's argument files
(:func:`metaserver.sandbox.bwrap.arguments_file`) live in directories under the system's
temporary directory, named ``metaserver-<kind>-<pid>-<random>`` after the process that owns
them. They go when their owner ends: at a normal exit (``atexit``) and on SIGTERM
(:func:`remove_on_sigterm`, which the command line installs). Those of an owner that died
harder (SIGKILL, a crash) are swept by the next metaserver process that makes one: their pid
no longer runs.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import shutil
import signal
import tempfile
import threading
from pathlib import Path
from types import FrameType

logger = logging.getLogger(__name__)

KINDS = ("seccomp", "proxy", "bwrap")
_NAME = re.compile(r"^metaserver-(?:seccomp|proxy|bwrap)-(\d+)-[A-Za-z0-9_]+$")

_owned: list[tuple[int, Path]] = []
_lock = threading.Lock()
_swept = False


def owned_tempdir(kind: str) -> Path:
    """A new directory for ``kind``, world-traversable, removed when this process ends."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of temporary directory: {kind}")
    global _swept
    with _lock:
        if not _swept:
            _swept = True
            sweep_stale()
        directory = Path(tempfile.mkdtemp(prefix=f"metaserver-{kind}-{os.getpid()}-"))
        directory.chmod(0o755)  # the sandbox uid must reach what is inside
        _owned.append((os.getpid(), directory))
    return directory


@atexit.register
def remove_owned() -> None:
    """Remove the directories this process made (never a forked parent's)."""
    pid = os.getpid()
    for owner, directory in list(_owned):
        if owner == pid:
            shutil.rmtree(directory, ignore_errors=True)
            _owned.remove((owner, directory))


def sweep_stale(root: Path | None = None) -> list[Path]:
    """Remove the directories of owners that no longer run; returns what was removed."""
    root = root or Path(tempfile.gettempdir())
    removed = []
    with contextlib.suppress(OSError):
        for entry in root.iterdir():
            match = _NAME.match(entry.name)
            if match is None or int(match.group(1)) == os.getpid():
                continue
            try:
                info = entry.lstat()
            except OSError:
                continue
            if info.st_uid != os.geteuid() or pid_running(int(match.group(1))):
                continue
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    if removed:
        logger.info("removed %d temporary directories of ended metaserver processes", len(removed))
    return removed


def pid_running(pid: int) -> bool:
    """Whether ``pid`` is a process here (another user's counts: it is not ours to sweep)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def remove_on_sigterm() -> None:
    """On SIGTERM, remove this process's directories, then end as SIGTERM would have.

    ``atexit`` does not run when a signal ends a process; this handler does the same work and
    then re-delivers the signal with its default action, so the exit status is unchanged.
    Servers that handle SIGTERM themselves (uvicorn) restore this handler and re-raise the
    signal once they have shut down.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    remove_owned()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
