"""Principals and what their role lets them do.

Three roles, each including the one before: ``call`` may search and call tools, ``convert``
may also convert repositories and add servers, ``admin`` may also remove servers (tokens are
managed on the command line, by whoever holds the home). A principal may carry a server glob
(``stats-*``, or several joined by commas): it sees and calls only the servers it matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal, get_args

Role = Literal["call", "convert", "admin"]
ROLES: tuple[Role, ...] = get_args(Role)
Via = Literal["local", "operator", "token", "oauth"]

# The meta-tools that need more than ``call``; every other tool (the searches, calls, status
# and the direct ``<server>_<tool>`` tools) needs ``call``.
TOOL_ROLES: dict[str, Role] = {
    "convert_repo": "convert",
    "cancel_conversion": "convert",
    "add_server": "convert",
    "remove_server": "admin",
}


def grants(role: Role) -> list[Role]:
    """The roles ``role`` includes, itself last (``convert`` -> ``call``, ``convert``)."""
    return list(ROLES[: ROLES.index(role) + 1])


def role_needed(tool: str) -> Role:
    """The role a call of ``tool`` needs."""
    return TOOL_ROLES.get(tool, "call")


def check_glob(glob: str) -> str:
    """``glob`` when it is a usable server glob (comma-separated patterns of server-name
    characters and ``*?[]``), else ValueError."""
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-_.*?[]!")
    patterns = [part.strip() for part in glob.split(",")]
    if not glob.strip() or any(not p or not set(p.lower()) <= allowed for p in patterns):
        raise ValueError(f"{glob!r} is not a server glob (e.g. 'stats-*' or 'a,b-*')")
    return ",".join(patterns)


@dataclass(frozen=True)
class Principal:
    """Who a request acts for.

    Attributes:
        name: unique among principals: a token's name, ``oauth:<sub>``, ``operator`` (the
            static token) or ``local`` (stdio, or HTTP with no authentication configured).
        role: what it may do.
        servers: a server glob, or None for every server.
        via: how it was authenticated.
    """

    name: str
    role: Role
    servers: str | None = None
    via: Via = "token"

    def may(self, role: Role) -> bool:
        """Whether this principal's role includes ``role``."""
        return ROLES.index(self.role) >= ROLES.index(role)

    def sees(self, server: str) -> bool:
        """Whether ``server`` (a name, or ``name@version``) is within this principal's glob."""
        if self.servers is None:
            return True
        name = server.split("@", 1)[0]
        return any(fnmatchcase(name, pattern) for pattern in self.servers.split(","))


LOCAL = Principal("local", "admin", None, "local")
OPERATOR = Principal("operator", "admin", None, "operator")
RESERVED_NAMES = frozenset({LOCAL.name, OPERATOR.name})
