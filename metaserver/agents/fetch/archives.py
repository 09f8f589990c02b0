"""Unpacking source archives (a downloaded sdist or wheel, or a local archive source) safely.

Archives are untrusted: member count and unpacked size are capped, tar members go through the
``data`` extraction filter, and zip member names are checked, so that nothing lands outside the
extraction directory; the project root (the single top directory) then becomes the workspace.
An unsafe member is the archive's fault, not the network's: a :class:`SourceError` (exit 2).
"""

from __future__ import annotations

import re
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from metaserver.exceptions import FetchError, SourceError

MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
_MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024
_MAX_MEMBERS = 200_000


def unpack_archive(archive: Path, filename: str, work: Path, dest: Path) -> None:
    """Unpack into ``work``, then move the project root (the single top directory) to dest."""
    work.mkdir()
    if filename.lower().endswith((".zip", ".whl")):
        _extract_zip(archive, filename, work)
    else:
        _extract_tar(archive, filename, work)
    entries = list(work.iterdir())
    only = entries[0] if len(entries) == 1 else None
    root = only if only is not None and only.is_dir() and not only.is_symlink() else work
    root.rename(dest)


def _check_archive_size(filename: str, members: int, unpacked: int) -> None:
    if members > _MAX_MEMBERS:
        raise FetchError(f"{filename} has more than {_MAX_MEMBERS} members")
    if unpacked > _MAX_UNPACKED_BYTES:
        raise FetchError(f"{filename} unpacks to more than {_MAX_UNPACKED_BYTES // 2**30} GiB")


def _extract_tar(archive: Path, filename: str, work: Path) -> None:
    try:
        with tarfile.open(archive, "r:*") as tar:
            members = tar.getmembers()
            _check_archive_size(filename, len(members), sum(m.size for m in members if m.isreg()))
            for member in members:
                # The "data" filter would strip a leading "/" and go on: an archive with
                # absolute members is crafted, not a project, and is refused as such.
                _check_member_name(filename, member.name)
            # The "data" filter refuses absolute paths, "..", links out of the tree, devices,
            # and drops set-uid bits: the archive is untrusted.
            tar.extractall(work, filter="data")
    except tarfile.FilterError as err:
        raise SourceError(f"unsafe member in {filename}: {err}") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        raise FetchError(f"could not unpack {filename}: {_one_line(err)}") from None


def _extract_zip(archive: Path, filename: str, work: Path) -> None:
    try:
        with zipfile.ZipFile(archive) as zipped:
            infos = zipped.infolist()
            _check_archive_size(filename, len(infos), sum(i.file_size for i in infos))
            for info in infos:
                _check_member_name(filename, info.filename)
            zipped.extractall(work)  # noqa: S202 - every member name was checked above
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error, OSError) as err:
        raise FetchError(f"could not unpack {filename}: {_one_line(err)}") from None


def _one_line(err: BaseException) -> str:
    """``err``'s text on one line: tarfile's ``r:*`` puts each method it tried on a line of
    its own (``- method gz: ReadError('empty file')``)."""
    lines = (line.strip().removeprefix("- ") for line in str(err).splitlines())
    return "; ".join(line for line in lines if line).replace(":;", ":")


def _check_member_name(filename: str, member: str) -> None:
    """Refuse a zip member that would land outside the extraction directory."""
    path = PurePosixPath(member)
    unsafe = (
        not member
        or "\\" in member
        or "\x00" in member
        or path.is_absolute()
        or re.match(r"^[A-Za-z]:", member) is not None
        or ".." in path.parts
    )
    if unsafe:
        raise SourceError(f"unsafe member in {filename}: {member!r}")
