"""``metaserver export``: a registered server as a change to the repository it was converted
from (issue 35; ARCHITECTURE.md decision 31). Door: :func:`load_change`, then
:func:`format_patch`, :func:`make_branch` or :func:`write_files`."""

import base64
from typing import Any, Literal

from metaserver.export.origin import load_origin, require_commit
from metaserver.export.patch import format_patch, make_branch, write_files
from metaserver.export.tree import Change, build_change
from metaserver.settings import Settings

ExportFormat = Literal["patch", "files"]

__all__ = [
    "Change",
    "ExportFormat",
    "export_answer",
    "format_patch",
    "load_change",
    "make_branch",
    "patch_text",
    "write_files",
]


def load_change(settings: Settings, ref: str) -> Change:
    """The change that adds registered version ``ref``'s server to its source tree.

    Raises:
        NotFoundError: no such server or version.
        UserError: an added server, or one whose files are gone.
    """
    return build_change(load_origin(settings, ref))


def patch_text(settings: Settings, ref: str) -> str:
    """``ref``'s change as a ``git format-patch`` mail.

    Raises:
        UserError: as :func:`load_change`, and for a source that was no git repository
            (which exports as files only: there is no commit for a patch to apply on).
    """
    origin = load_origin(settings, ref)
    require_commit(origin, "a patch")
    return format_patch(build_change(origin))


def export_answer(settings: Settings, ref: str, form: ExportFormat) -> dict[str, Any]:
    """What the ``export_server`` meta-tool answers: ``patch``, the format-patch text (for a
    client that opens the pull request itself); ``files``, each file of the change by its
    repository path (text, or base64 for a binary data file), for any source.

    Raises:
        UserError: as :func:`patch_text` (``files`` needs no commit).
    """
    origin = load_origin(settings, ref)
    answer: dict[str, Any] = {"server": origin.record.ref, "commit": origin.commit}
    if form == "patch":
        require_commit(origin, "a patch")
        change = build_change(origin)
        return answer | {"folder": change.folder, "patch": format_patch(change)}
    change = build_change(origin)
    files: list[dict[str, str]] = []
    for path, data in change.files.items():
        try:
            files.append({"path": path, "text": data.decode("utf-8")})
        except UnicodeDecodeError:
            files.append({"path": path, "base64": base64.b64encode(data).decode("ascii")})
    return answer | {"folder": change.folder, "message": change.message, "files": files}
