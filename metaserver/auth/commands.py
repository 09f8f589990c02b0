"""``metaserver token create|list|revoke`` and ``metaserver audit``, and the audit rows of
the command line's own actions (:func:`audited`).

Whoever can run these commands holds the home (its registry file is mode 0600): that is the
admin, so the commands need no token of their own. Their audit name is ``local:<login>``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from metaserver.auth.roles import ROLES
from metaserver.exceptions import MetaServerError, UserError
from metaserver.settings import Settings

if TYPE_CHECKING:
    from metaserver.auth.audit import AuditEvent, AuditLog

# The registry and audit modules are imported by the functions that use them: they pull in
# pydantic models, which `metaserver --help` never needs (cli.py's rule).

Handler = Callable[[argparse.Namespace, Settings], int]

# What the command line's own actions are called in the audit log, and the argument naming
# the server each acts on.
_AUDITED = {
    "convert": ("convert", "name"),
    "add": ("add", "name"),
    "remove": ("remove", "server"),
    "call": ("call", "server"),
}
_SINCE = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def add_commands(commands: Any) -> None:
    """Add ``token`` and ``audit`` to the ``metaserver`` subcommands."""
    token = commands.add_parser("token", help="tokens for people and services (HTTP)")
    actions = token.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create", help="make a token; it is printed alone on stdout, this once"
    )
    create.add_argument("name", metavar="NAME", help="who it is for (a-z, 0-9, '.', '_', '-')")
    create.add_argument(
        "--scope",
        choices=ROLES,
        required=True,
        help="call: search and call; convert: also convert and add; admin: also remove",
    )
    create.add_argument(
        "--servers", metavar="GLOB", help="only servers matching GLOB (several: 'a-*,b')"
    )
    create.add_argument("--expires", type=float, metavar="DAYS", help="expire after DAYS")
    listing = actions.add_parser("list", help="the tokens (never the tokens themselves)")
    listing.add_argument("--json", action="store_true")
    revoke = actions.add_parser("revoke", help="revoke a token (its next request gets 401)")
    revoke.add_argument("name", metavar="NAME")

    audit = commands.add_parser("audit", help="who did what, when, with what outcome")
    audit.add_argument(
        "--since", metavar="WHEN", help="a time (2026-12-01, 2026-12-01T09:30) or an age (90m, 2d)"
    )
    audit.add_argument("--who", metavar="NAME", help="one principal only (a token's name, ...)")
    audit.add_argument("--json", action="store_true", help="a JSON list of rows")


def handlers() -> dict[str, Handler]:
    """The handlers of the commands :func:`add_commands` adds."""
    return {"token": _token, "audit": _audit}


def audited(command: str, handler: Handler) -> Handler:
    """``handler``, writing one audit row per run when ``command`` changes or calls
    something (convert, add, remove, call)."""
    if command not in _AUDITED:
        return handler
    action, argument = _AUDITED[command]

    def run(args: argparse.Namespace, settings: Settings) -> int:
        from metaserver.auth.audit import local_user

        log = _log(settings)
        started = time.monotonic()
        target = getattr(args, argument, None)
        arguments = {k: v for k, v in vars(args).items() if k not in ("json", "verbose")}
        outcome, detail = "error", None
        try:
            code = handler(args, settings)
            outcome = "ok" if code == 0 else "error"
            return code
        except MetaServerError as exc:
            detail = type(exc).__name__
            raise
        finally:
            # A command refused before it touched anything (a bad source in a new home)
            # leaves no home behind, not even an audit row.
            if settings.registry_path.exists():
                log.record(
                    local_user(),
                    action,
                    "ok" if outcome == "ok" else "error",
                    target=target if isinstance(target, str) else None,
                    seconds=time.monotonic() - started,
                    arguments=arguments,
                    detail=detail,
                )

    return run


def _log(settings: Settings) -> AuditLog:
    from metaserver.auth.audit import AuditLog
    from metaserver.registry.store import Registry

    return AuditLog(Registry(settings.registry_path), settings.auth.audit_retention_days)


def _token(args: argparse.Namespace, settings: Settings) -> int:
    from metaserver.auth.audit import local_user
    from metaserver.auth.tokens import TokenStore
    from metaserver.registry.store import Registry

    store, log = TokenStore(Registry(settings.registry_path)), _log(settings)
    if args.action == "create":
        token = store.create(args.name, args.scope, args.servers, args.expires)
        log.record(
            local_user(),
            "token create",
            "ok",
            target=args.name,
            arguments={"scope": args.scope, "servers": args.servers, "expires": args.expires},
        )
        print(token)
        print(
            f"metaserver: token {args.name!r} ({args.scope}) created; it is not shown again. "
            "A server started before the first token was created must be restarted.",
            file=sys.stderr,
        )
        return 0
    if args.action == "revoke":
        store.revoke(args.name)
        log.record(local_user(), "token revoke", "ok", target=args.name)
        print(f"metaserver: token {args.name!r} revoked", file=sys.stderr)
        return 0
    now = time.time()
    rows = [
        {
            "name": info.name,
            "scope": info.role,
            "servers": info.servers,
            "created": _iso(info.created_at),
            "expires": _iso(info.expires_at) if info.expires_at is not None else None,
            "expired": info.expired(now),
        }
        for info in store.list()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no tokens; `metaserver token create NAME --scope call` makes one")
    for row in rows:
        expiry = "never" if row["expires"] is None else row["expires"]
        state = " (expired)" if row["expired"] else ""
        print(
            f"{row['name']:24} {row['scope']:8} servers={row['servers'] or '*'} "
            f"expires={expiry}{state}"
        )
    return 0


def _audit(args: argparse.Namespace, settings: Settings) -> int:
    since = parse_since(args.since) if args.since is not None else None
    events = _log(settings).events(since, args.who)
    if args.json:
        print(json.dumps([event.as_json() for event in events], indent=2))
        return 0
    for event in events:
        print(_line(event))
    if not events:
        print("no audit rows match", file=sys.stderr)
    return 0


def _line(event: AuditEvent) -> str:
    target = f" {event.target}" if event.target else ""
    detail = f" ({event.detail})" if event.detail else ""
    return (
        f"{_iso(event.at)} {event.who} {event.action}{target} {event.outcome}{detail} "
        f"{event.seconds:.2f}s"
    )


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_since(text: str, now: float | None = None) -> float:
    """``--since`` as epoch seconds: an age (``90m``, ``2d``: before ``now``) or an ISO 8601
    date or time (UTC when no zone is given).

    Raises:
        UserError: neither.
    """
    age = _SINCE.fullmatch(text.strip())
    if age is not None:
        return (time.time() if now is None else now) - float(age[1]) * _UNIT[age[2]]
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(
            f"--since {text!r}: give an age (30m, 12h, 7d) or a date (2026-12-01T09:30)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()
