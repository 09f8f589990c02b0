"""Processes that share one home coordinate through it: ``flock`` on files under ``home/locks/``.

Any mix of ``serve``, ``convert``, ``batch`` and ``remove`` processes may use one home at once
(ARCHITECTURE.md decision 24). Three kinds of lock, each a file locked with ``flock``, which the
kernel releases when its holder dies, so a crash never leaves a lock behind:

* **a conversion lock** (``locks/conversions-of/<name>.lock``), held by a conversion of
  server ``name`` from the end of its fetch (when the name is known) to its end: a second
  conversion of the same source (or of another that becomes the same server), in any
  process, waits for the first and then converts in its turn, reusing the stores and the
  version id (:meth:`~metaserver.registry.store.Registry.register`);
* **a server lock** (``locks/servers/<name>.lock``), held around registering a version of a
  server and deleting what the registration replaced or left, and around a removal and its
  deletions, so that no cleanup reads the registry while another process changes it;
* **a conversion lease** (``locks/conversions/<token>.lock``), held for a conversion's whole
  life: cleanup never deletes the ``<name>-<token>`` directories of a conversion whose lease
  is held (:func:`is_live`), whichever process runs it.
* **a store lock** (``<store>.lock`` beside a store directory, :func:`store_lock`): shared
  by every process adding to the store, exclusive for one removing from it, so that a sweep
  of the shared-file store never deletes an object another process is linking to.
* **a files lease** (``locks/versions/<name>-<token>.lock``, :class:`FilesLease`): shared by
  every process running a live child from version directories ``<name>-<token>``, exclusive
  (never waiting, :func:`deleting`) for whoever deletes them, so that a removal in one
  process never deletes the files another process's child runs from: it leaves them, and a
  later sweep deletes them once the child has stopped (or its process died).

``flock`` locks belong to an open file description, so two holders in one process exclude
each other as two processes do; a lock is never taken twice on one path by one holder.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from metaserver.settings import Settings

__all__ = [
    "ConversionLease",
    "FilesGoneError",
    "FilesLease",
    "conversion_lock",
    "deleting",
    "is_live",
    "server_lock",
    "store_lock",
    "versions_leases",
]

# How often a waiting conversion tries its source lock again: polled, so that waiting stays
# cancellable (a thread blocked in flock could not be stopped).
_POLL_SECONDS = 0.2


def _locks(settings: Settings, kind: str) -> Path:
    directory = settings.home / "locks" / kind
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def _named(directory: Path, name: str) -> Path:
    """``directory/<name>.lock``, where ``name`` must be one file name: a lock is never made
    outside its directory, whatever a caller was given."""
    if not name or "/" in name or "\0" in name or name in (".", "..") or len(name) > 200:
        raise ValueError(f"not a lock name: {name[:60]!r}")
    return directory / f"{name}.lock"


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


@contextlib.contextmanager
def server_lock(settings: Settings, name: str) -> Iterator[None]:
    """Hold the lock of server ``name`` (blocking): registration, removal and their cleanup."""
    fd = _open(_named(_locks(settings, "servers"), name))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def store_lock(store: Path, *, exclusive: bool) -> Iterator[bool]:
    """Hold the lock of the store directory ``store``: shared (waiting for an exclusive
    holder) to add to it, exclusive (never waiting) to remove from it.

    Yields:
        Whether the lock is held: an exclusive one is not while anyone adds, and whoever
        removes then leaves it for a later turn rather than stall an addition.
    """
    store.parent.mkdir(parents=True, exist_ok=True)
    fd = _open(store.with_name(f"{store.name}.lock"))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB if exclusive else fcntl.LOCK_SH)
        except BlockingIOError:
            yield False
        else:
            yield True
    finally:
        os.close(fd)


@contextlib.asynccontextmanager
async def conversion_lock(settings: Settings, name: str) -> AsyncIterator[bool]:
    """Hold the conversion lock of server ``name``, waiting (cancellably) while another
    conversion, in this process or another, holds it.

    Yields:
        Whether this conversion had to wait for another one.
    """
    fd = _open(_named(_locks(settings, "conversions-of"), name))
    waited = False
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = True
                await asyncio.sleep(_POLL_SECONDS)
        yield waited
    finally:
        os.close(fd)


class ConversionLease:
    """The mark of a live conversion ``token``: held from creation until :meth:`release`."""

    def __init__(self, settings: Settings, token: str) -> None:
        self.path = _locks(settings, "conversions") / f"{token}.lock"
        self._fd: int | None = _open(self.path)
        fcntl.flock(self._fd, fcntl.LOCK_EX)  # a fresh token: nobody else holds it

    def release(self) -> None:
        """End the lease (idempotent). The file goes first, so nobody finds it held later."""
        if self._fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None


def is_live(settings: Settings, token: str) -> bool:
    """Whether a conversion holding lease ``token`` is running, in any process."""
    path = settings.home / "locks" / "conversions" / f"{token}.lock"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)  # never created here
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


class FilesGoneError(RuntimeError):
    """The version directories a child would run from are being deleted (a removal)."""


def versions_leases(settings: Settings) -> Path:
    """The directory of the files leases (``<entry>.lock`` for version entry ``<entry>``)."""
    return _locks(settings, "versions")


class FilesLease:
    """A shared hold on version entries ``names`` (``<name>-<token>``) while a child runs
    from their files; the kernel ends it when the holding process dies.

    Raises:
        FilesGoneError: a deletion of one of them holds it (:func:`deleting`).
    """

    def __init__(self, settings: Settings, names: set[str]) -> None:
        directory = versions_leases(settings)
        self._fds: list[int] = []
        try:
            for name in sorted(names):
                fd = _open(_named(directory, name))
                self._fds.append(fd)
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise FilesGoneError(f"the files of {name} are being deleted") from None
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        """End the lease (idempotent). Only once the child has exited: its files may go."""
        fds, self._fds = self._fds, []
        for fd in fds:
            os.close(fd)


@contextlib.contextmanager
def deleting(settings: Settings, name: str) -> Iterator[bool]:
    """Hold version entry ``name`` exclusively, never waiting, to delete its files.

    Yields:
        Whether no live child holds it (its files may be deleted while the block runs;
        a child that would start from them meanwhile is refused, :class:`FilesGoneError`).
        The lease file goes on the way out when held: the entry's files are gone.
    """
    path = _named(versions_leases(settings), name)
    fd = _open(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            # Unlinked while held: whoever opened it before fails to share it and is told
            # the files are gone; whoever opens it later makes a new one, finds no files.
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
    finally:
        os.close(fd)
