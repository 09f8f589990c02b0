"""The agents' prompts, kept as text files shipped in the package.

Each ``<name>.md`` holds a ``[system]`` section and a ``[user]`` section. The user section is
a :class:`string.Template` (``$name`` placeholders), so JSON braces in a prompt need no
escaping. Editing a prompt needs no code change; a placeholder the code does not fill is an
error at load time, not a silently odd prompt.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from string import Template

from metaserver.models.base import Message

_SECTION = re.compile(r"^\[(system|user)\][ \t]*$", re.M)


@functools.cache
def _load(name: str) -> tuple[str, Template]:
    text = resources.files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    # split() gives [preamble, "system", body, "user", body]; the preamble is a comment.
    sections = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    if set(sections) != {"system", "user"}:
        raise ValueError(f"prompt {name}.md needs a [system] and a [user] section")
    return sections["system"], Template(sections["user"])


def render(prompt: str, /, **values: str) -> list[Message]:
    """The system and user messages of ``prompt`` (a file name), its placeholders filled.

    Raises:
        KeyError: the prompt names a placeholder that ``values`` lacks.
    """
    system, user = _load(prompt)
    return [
        Message(role="system", content=system),
        Message(role="user", content=user.substitute(values)),
    ]
