"""``metaserver export``: a registered server as a change to the repository it was converted
from (issue 35; ARCHITECTURE.md decision 31). Door: :func:`load_change`, then
:func:`format_patch`, :func:`make_branch` or :func:`write_files`."""

from metaserver.export.origin import load_origin, require_commit
from metaserver.export.patch import format_patch, make_branch, write_files
from metaserver.export.tree import Change, build_change
from metaserver.settings import Settings

__all__ = [
    "Change",
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
