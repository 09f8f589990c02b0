"""Files as arguments (codec ``file``): a parameter that reads a file takes the file's
content or a path inside the server's work directory.

Forms: ``"work://NAME"`` or ``"NAME"`` (a path under work/, as ``files.work_uri`` writes
it, with or without the server's name first); ``{"content": TEXT, "name": "data.csv"}``;
``{"base64": DATA, "name": "image.png"}``. Content is written once, by its hash, under
``work/uploads/`` (the name's extension kept, since readers choose a format by it), and the
callable gets that path. Confinement to work/ is decode.py's (``path`` codec). Standard
library only: this module is copied into generated servers.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from pathlib import Path
from typing import Any

__all__ = ["MAX_UPLOAD_BYTES", "UPLOADS", "WORK_SCHEME", "file_argument"]

MAX_UPLOAD_BYTES = 20_000_000
UPLOADS = "uploads"
WORK_SCHEME = "work://"
_SAFE_NAME = re.compile(r"[^\w.-]+")


def file_argument(value: Any, root: Path) -> str:
    """The path (relative to ``root``, the work directory) that ``value`` names or that
    its content was written to. Raises ValueError for another object or a size past
    ``MAX_UPLOAD_BYTES`` (decode.py passes lists and numbers on as they are: a parameter
    typed as a file by its name alone may take them)."""
    if isinstance(value, str):
        return _work_path(value, root)
    if isinstance(value, dict) and ("content" in value or "base64" in value):
        return _upload(value, root)
    raise ValueError(
        'a file is a path in the work directory ("work://name"), {"content": text} '
        'or {"base64": data}, each with an optional "name"'
    )


def _work_path(text: str, root: Path) -> str:
    if not text.startswith(WORK_SCHEME):
        return text
    rest = text[len(WORK_SCHEME) :].lstrip("/")
    first, _, after = rest.partition("/")
    # ``work://<server>/<path>`` (files.work_uri) or ``work://<path>``: whichever exists.
    if after and not (root / rest).exists() and (root / after).exists():
        return after
    return rest or first


def _upload(value: dict[str, Any], root: Path) -> str:
    if "content" in value:
        if not isinstance(value["content"], str):
            raise ValueError("content is the file's text")
        data = value["content"].encode("utf-8")
    else:
        if not isinstance(value["base64"], str):
            raise ValueError("base64 is the file's bytes, base64-encoded")
        if len(value["base64"]) > MAX_UPLOAD_BYTES * 4 // 3 + 4:
            raise ValueError(f"a file is at most {MAX_UPLOAD_BYTES} bytes")
        try:
            data = base64.b64decode(value["base64"], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"not base64: {exc}") from None
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"a file is at most {MAX_UPLOAD_BYTES} bytes")
    name = value.get("name") if isinstance(value.get("name"), str) else ""
    name = _SAFE_NAME.sub("_", Path(name).name).lstrip(".") or "file"
    digest = hashlib.sha256(data).hexdigest()[:16]
    relative = f"{UPLOADS}/{digest}-{name}"
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.is_file() or target.read_bytes() != data:
        target.write_bytes(data)
    return relative
