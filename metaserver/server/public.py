"""What a client may see of this machine: messages and reports without host paths.

A client learns where things are only relative to the metaserver home
(``$METASERVER_HOME/servers/...``); any other absolute path (an interpreter, a ``sys.path``
entry, a file under /tmp or another user's home) becomes :data:`PLACEHOLDER`. Tracebacks are
cut to their last line, and messages are bounded. The CLI, run by the local user, shows
paths as they are; only what the meta-server answers goes through here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

PLACEHOLDER = "<path>"
MAX_MESSAGE = 2000
_TRACEBACK = "Traceback (most recent call last)"
_HOME = "$METASERVER_HOME"

# An absolute POSIX path: a "/" that does not continue a word, a relative path, a URL's
# "//" or $METASERVER_HOME, followed by at least one name.
_ABSOLUTE_PATH = re.compile(r"(?<![\w./\\$~-])~?/[\w.+@%~-]+(?:/[\w.+@%~-]*)*")


def public_text(text: str, home: Path) -> str:
    """``text`` with the home's absolute paths as ``$METASERVER_HOME/...`` and every other
    absolute path as :data:`PLACEHOLDER` (no length bound, no traceback handling)."""
    roots = {str(home), str(home.resolve())}
    for root in sorted(roots, key=len, reverse=True):
        if root != "/":
            text = _under_root(text, root)
    return _ABSOLUTE_PATH.sub(PLACEHOLDER, text)


def _under_root(text: str, root: str) -> str:
    # Only whole components: /home/x/data must not turn /home/x/data2 into $HOME2.
    return re.sub(re.escape(root) + r"(?![\w.-])", lambda _: _HOME, text)


def public_message(text: str, home: Path) -> str:
    """``text`` made fit for a client: no traceback, no host path, bounded.

    Args:
        text: a message from a child or from metaserver itself.
        home: the metaserver home, whose paths are shown as ``$METASERVER_HOME/...``.
    """
    if _TRACEBACK in text:
        # The exception line (the last one) says what went wrong; the frames say where, on
        # this host, which the client has no use for.
        lines = [line for line in text.splitlines() if line.strip()]
        text = lines[-1].strip() if lines else "internal error"
    text = public_text(text, home)
    if len(text) > MAX_MESSAGE:
        text = text[:MAX_MESSAGE] + " [truncated]"
    return text


def public_report(report: dict[str, Any], home: Path) -> dict[str, Any]:
    """A conversion report (as JSON) for a client: every string scrubbed of host paths, but
    ``source``, which the client gave (a local directory is its own path)."""
    scrubbed: dict[str, Any] = {
        key: value if key == "source" else _public_value(value, home)
        for key, value in report.items()
    }
    return scrubbed


def _public_value(value: Any, home: Path) -> Any:
    if isinstance(value, str):
        return public_text(value, home)
    if isinstance(value, dict):
        return {key: _public_value(item, home) for key, item in value.items()}
    if isinstance(value, list):
        return [_public_value(item, home) for item in value]
    return value
