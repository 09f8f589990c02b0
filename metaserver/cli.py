"""The ``metaserver`` command line (contract in docs/ARCHITECTURE.md, "Contracts").

Exit codes: 0 success; 1 the conversion or the tool call failed; 2 bad usage, a bad source, or
an unknown server or tool. stdout carries only results (the report with ``--json``; with
``--json``, an error is a JSON object ``{"status": "error", "error": ..., "exit_code": ...}``);
logs go to stderr.

Each command imports what it needs inside its own function, for start-up speed: the pipeline,
the server and the registry's search pull in pydantic models, FastMCP and numpy, which
``metaserver --help`` or ``metaserver remove`` never need.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metaserver import __version__
from metaserver.auth.commands import add_commands, audited
from metaserver.auth.commands import handlers as auth_handlers
from metaserver.exceptions import MetaServerError, NotFoundError, UserError
from metaserver.input_limits import check_query, load_json
from metaserver.settings import Settings, unknown_variables

if TYPE_CHECKING:
    from metaserver.registry.records import ServerRecord, VersionSummary

logger = logging.getLogger("metaserver")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="metaserver", description="Turn code repositories into validated MCP servers."
    )
    parser.add_argument("--version", action="version", version=f"metaserver {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    convert = commands.add_parser("convert", help="convert SOURCE and register the server")
    convert.add_argument(
        "source",
        metavar="SOURCE",
        help="git URL, directory, source archive, pypi:NAME[==V], or a paper (.pdf, .md, .txt) "
        "that links the repository",
    )
    convert.add_argument("--ref", help="git branch, tag or commit")
    convert.add_argument(
        "--repo-url",
        metavar="URL",
        help="for a paper SOURCE: the repository to convert (a git URL or a local directory), "
        "instead of the links found in the paper",
    )
    convert.add_argument("--name", help="server name (default: from the project)")
    convert.add_argument("--max-tools", type=int, metavar="N", help="tools at most (default 12)")
    convert.add_argument("--json", action="store_true", help="print only the JSON report")
    convert.add_argument(
        "--bundle", metavar="DIR", help="convert offline from a `metaserver bundle` directory"
    )

    serve = commands.add_parser("serve", help="run the meta-server")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=8765)
    serve.add_argument(
        "--log-format",
        choices=["text", "json"],
        default="text",
        help="stderr log lines as text or one JSON object a line (both with the trace id)",
    )

    listing = commands.add_parser("list", help="registered servers and tools")
    listing.add_argument("--query", help="rank tools by relevance to this text")
    listing.add_argument("--json", action="store_true")

    call = commands.add_parser("call", help="call a generated tool (sandboxed)")
    call.add_argument("server", metavar="SERVER", help="NAME (its newest version) or NAME@VERSION")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", default="{}", metavar="JSON_ARGS")
    call.add_argument("--json", action="store_true", help="print the raw JSON result")

    bundle = commands.add_parser(
        "bundle", help="prepare what an offline machine needs to convert SOURCEs"
    )
    bundle.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="as for convert: git URL, directory, source archive, pypi:NAME[==V], or a paper",
    )
    bundle.add_argument("--output", required=True, metavar="DIR", help="an empty directory")
    bundle.add_argument(
        "--repo-url",
        metavar="URL",
        help="for a paper SOURCE: the repository to bundle (a git URL or a local directory), "
        "instead of the links found in the paper",
    )
    bundle.add_argument(
        "--python", metavar="X.Y", help="the offline machine's Python (default: this one's)"
    )

    batch = commands.add_parser("batch", help="convert every SOURCE listed in FILE")
    batch.add_argument("file", metavar="FILE", help="one SOURCE a line; # comments")
    batch.add_argument("--executor", choices=["local", "ray"], default="local")
    batch.add_argument(
        "--concurrency", type=int, metavar="N", help="conversions at once (default: by cores)"
    )
    batch.add_argument("--json", action="store_true", help="print only the JSON list of results")

    run = commands.add_parser("run", help="serve one registered server over stdio, sandboxed")
    run.add_argument("server", metavar="SERVER", help="NAME (its newest version) or NAME@VERSION")

    add = commands.add_parser(
        "add",
        help="register an existing MCP server (stdio command or streamable HTTP URL)",
        usage="metaserver add NAME [--allow-network] -- COMMAND [ARGS...]\n"
        '       metaserver add NAME --url URL [--header "K: V"]...',
        description="Register an existing MCP server: its tools are listed through an MCP "
        "client, checked, indexed for search, and callable as NAME_TOOL, by call_generated and "
        "by `metaserver call`. A stdio COMMAND runs in the sandbox like a generated server, "
        "with no network unless --allow-network; no shell is involved, and files on its "
        "command line must be absolute paths (they are bound read-only). An HTTP server is "
        "called at URL with the given headers, whose values are kept secret. Exit 2 when the "
        "server cannot be added (nothing is registered then).",
    )
    add.add_argument("name", metavar="NAME", help="the server's name (a-z, 0-9, '-', '_')")
    add.add_argument("--url", help="a streamable HTTP server's http(s) URL")
    add.add_argument(
        "--header",
        action="append",
        default=[],
        metavar='"K: V"',
        help="HTTP: a header to send with every request (repeatable; the value is a secret)",
    )
    add.add_argument(
        "--allow-network", action="store_true", help="stdio: let the command reach the network"
    )
    add.add_argument(
        "server_command",
        nargs="*",
        metavar="COMMAND",
        help="after --: the stdio server's command",
    )

    export = commands.add_parser(
        "export", help="a registered server as a change to the repository it came from"
    )
    export.add_argument(
        "server", metavar="SERVER", help="NAME (its newest version) or NAME@VERSION"
    )
    target = export.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "--patch", metavar="FILE", help="write a git format-patch mail (- for stdout)"
    )
    target.add_argument("--branch", metavar="NAME", help="commit it on a new branch of --repo")
    target.add_argument(
        "--dir", metavar="DIR", help="write its files (an empty or new DIR), any source"
    )
    export.add_argument("--repo", metavar="DIR", help="with --branch: a clone of the repository")

    remove = commands.add_parser("remove", help="unregister a server and delete its files")
    remove.add_argument("server", metavar="SERVER", help="NAME (every version) or NAME@VERSION")
    add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv, server_command = _split_add_command(list(sys.argv[1:] if argv is None else argv))
    args = build_parser().parse_args(argv)
    if server_command is not None:
        args.server_command = [*args.server_command, *server_command]
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
    )
    for noisy in ("httpx", "httpx2", "mcp", "fastmcp", "git", "docket"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # Analysis parses repositories' code, docs and notebooks with `ast`: their invalid escapes
    # and literals ("invalid decimal literal") warned on stderr by the dozen, about code that
    # is not the user's to fix. metaserver's own modules are compiled at install.
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    from metaserver.sandbox.scratch import remove_on_sigterm

    remove_on_sigterm()  # a SIGTERM leaves no seccomp or proxy directory in /tmp
    try:
        settings = _settings()
        if args.command in _WRITES_HOME:
            _check_home(settings.home)
        handler = {
            "convert": _convert,
            "serve": _serve,
            "list": _list,
            "call": _call,
            "remove": _remove,
            "add": _add,
            "batch": _batch,
            "run": _run,
            "bundle": _bundle,
            "export": _export,
            **auth_handlers(),
        }[args.command]
        return audited(args.command, handler)(args, settings)
    except (NotFoundError, UserError) as exc:
        return _fail(args, exc, EXIT_USAGE)
    except MetaServerError as exc:
        return _fail(args, exc, EXIT_FAILED)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): nothing left to tell it, and Python would
        # complain again when flushing stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except Exception as exc:
        # No input ends in a traceback: a failure nobody foresaw still says what it was (and
        # -v logs where).
        logger.debug("unexpected failure", exc_info=True)
        return _fail(args, RuntimeError(f"internal error: {type(exc).__name__}: {exc}"), 1)


def _split_add_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """For ``add``: the words after ``--`` are the server's command, kept apart from argparse,
    which takes a ``*`` positional as soon as it sees NAME and would refuse them after an
    option (``add NAME --allow-network -- COMMAND``)."""
    first = next((word for word in argv if not word.startswith("-")), None)
    if first != "add" or "--" not in argv:
        return argv, None
    split = argv.index("--")
    return argv[:split], argv[split + 1 :]


def _port(text: str) -> int:
    """A TCP port to bind, for argparse (which then reports a bad one as usage, exit 2)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (1-65535)")
    return port


# The commands that write to the home: each checks first that it can be made, so that one
# that cannot is said at once (a home under /proc or /sys was an internal error, or "0 MB
# free"), and leaves nothing: the home is made when something is written to it.
_WRITES_HOME = frozenset({"convert", "batch", "add", "remove", "serve", "token"})


def _check_home(home: Path) -> None:
    """Make, then remove, the first missing directory of ``home``, or a UserError."""
    missing = [place for place in (home, *home.parents) if not place.exists()]
    if not missing:
        return
    try:
        missing[-1].mkdir()
    except FileExistsError:
        return  # another process made it meanwhile
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise UserError(
            f"invalid settings: METASERVER_HOME: cannot make {home}: {reason}"
        ) from None
    with contextlib.suppress(OSError):
        missing[-1].rmdir()


def _settings() -> Settings:
    """The settings from the environment, or a UserError naming each bad variable (pydantic's
    own text would echo the values, a token among them)."""
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    for variable in unknown_variables(os.environ):
        # Warned, not refused: a variable of a newer or older metaserver must not stop this one.
        print(f"metaserver: warning: {variable} is not a setting; it is ignored", file=sys.stderr)
    try:
        return Settings()
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            variable = "METASERVER_" + "__".join(str(part) for part in error["loc"]).upper()
            message = str(error["msg"]).removeprefix("Value error, ")
            problems.append(f"{variable}: {message}")
        raise UserError("invalid settings: " + "; ".join(problems)) from None
    except SettingsError as exc:
        # pydantic-settings chains the parser's error: its first line names the variable.
        raise UserError(f"invalid settings: {str(exc).splitlines()[0]}") from None


def _fail(args: argparse.Namespace, exc: Exception, code: int) -> int:
    """Say why on stderr, and, for ``--json``, as a JSON object on stdout too: a script
    reading stdout learns what went wrong rather than getting nothing to parse."""
    # One line: a message that spans lines (a subprocess's output) is joined.
    print(f"metaserver: {' '.join(str(exc).split())}", file=sys.stderr)
    if getattr(args, "json", False):
        error = {"status": "error", "error": str(exc), "exit_code": code}
        print(json.dumps(error, indent=2))
    return code


def _convert(args: argparse.Namespace, settings: Settings) -> int:
    from metaserver.pipeline import convert

    if args.max_tools is not None and args.max_tools < 1:
        raise UserError("--max-tools must be at least 1")
    if args.bundle is not None:
        from pathlib import Path

        index = settings.index.model_copy(update={"bundle": Path(args.bundle)})
        settings = settings.model_copy(update={"index": index})
    report = asyncio.run(
        convert(
            args.source,
            settings=settings,
            ref=args.ref,
            name=args.name,
            max_tools=args.max_tools,
            repo_url=args.repo_url,
        )
    )
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        print(_report_text(report.model_dump(mode="json")))
    return EXIT_OK if report.status == "success" else EXIT_FAILED


def _report_text(report: dict[str, Any]) -> str:
    lines = [
        f"server {report['server']}: {report['status']} "
        f"({report['tools_passed']} tools passed, {report['seconds'].get('total', 0):.1f}s)"
    ]
    if report["failure"]:
        lines.append(f"failure: {report['failure']['type']}: {report['failure']['detail']}")
    for tool in report["tools"]:
        check = (tool.get("evidence") or {}).get("check", "-")
        detail = f"  ({tool['error']})" if tool.get("error") else ""
        lines.append(f"  {tool['status']:8} {tool['name']:28} {check}{detail}")
    by_check = report.get("passed_by_check") or {}
    if by_check:
        lines.append("proved by: " + ", ".join(f"{k} {v}" for k, v in by_check.items()))
    stages = ", ".join(f"{k} {v:.1f}s" for k, v in report["seconds"].items())
    lines.append(f"seconds: {stages}")
    if report["output_dir"]:
        lines.append(f"output: {report['output_dir']}")
    return "\n".join(lines)


def _bundle(args: argparse.Namespace, settings: Settings) -> int:
    import re
    from pathlib import Path

    from metaserver.bundle.make import current_python, make_bundle

    python = args.python or current_python()
    if not re.fullmatch(r"3\.\d{1,2}", python):
        raise UserError(f"--python {python!r}: give the offline machine's Python as X.Y, e.g. 3.11")
    manifest = asyncio.run(
        make_bundle(args.sources, Path(args.output), settings, python, args.repo_url)
    )
    print(
        f"bundle {args.output}: {len(manifest.sources)} sources, "
        f"{len(manifest.distributions)} distributions for Python {manifest.python}"
    )
    return EXIT_OK


def _batch(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from metaserver.batch.local import default_concurrency
    from metaserver.batch.rows import table
    from metaserver.batch.run import run_batch

    concurrency = args.concurrency if args.concurrency is not None else default_concurrency()
    rows = run_batch(Path(args.file), settings, args.executor, concurrency)
    if args.json:
        print(json.dumps([row.model_dump(mode="json") for row in rows], indent=2))
    else:
        print(table(rows))
    return EXIT_FAILED if any(row.status == "failed" for row in rows) else EXIT_OK


def _run(args: argparse.Namespace, settings: Settings) -> int:
    from metaserver.children.standalone import serve_stdio

    return serve_stdio(settings, args.server)


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from metaserver.sandbox import get_sandbox
    from metaserver.server.app import run

    get_sandbox(settings.sandbox)  # every child it starts is sandboxed: refuse early (exit 2)
    asyncio.run(run(settings, args.transport, args.host, args.port, args.log_format))
    return EXIT_OK


def _list(args: argparse.Namespace, settings: Settings) -> int:
    from metaserver.registry import Registry
    from metaserver.registry.search import search_tools

    check_query(args.query, "--query")
    registry = Registry(settings.registry_path)
    if args.query:
        hits = [h.model_dump(mode="json") for h in search_tools(registry, args.query, limit=20)]
        if args.json:
            print(json.dumps(hits, indent=2))
        else:
            for hit in hits:
                summary = hit["description"].splitlines()[0][:70] if hit["description"] else ""
                print(f"{hit['server']}/{hit['tool']}  {summary}")
        return EXIT_OK
    servers = registry.list_servers()
    versions = {summary.name: summary.versions for summary in registry.summaries()}
    if args.json:
        print(json.dumps([_server_json(s, versions.get(s.name, [])) for s in servers], indent=2))
        return EXIT_OK
    if not servers:
        print("no servers registered", file=sys.stderr)
    for server in servers:
        print(f"{server.name}  ({server.kind}: {server.source}, {len(server.tools)} tools)")
        for version in versions.get(server.name, []):
            newest = "newest" if version.version == server.version_id else "      "
            commit = (version.commit or version.source_version or "-")[:12]
            print(f"  @{version.version:10} {newest} {commit:12} {version.tools} tools")
        for tool in server.tools:
            summary = tool.description.splitlines()[0][:70] if tool.description else ""
            print(f"  {tool.name:28} {summary}")
    return EXIT_OK


def _server_json(server: ServerRecord, versions: list[VersionSummary]) -> dict[str, Any]:
    """A server for ``list --json``: its newest version's tools, and all its versions."""
    return {
        "name": server.name,
        "kind": server.kind,
        "endpoint": None if server.endpoint is None else server.endpoint.public(),
        "source": server.source,
        "commit": server.commit,
        "version": server.version,
        "latest": server.version_id,
        "bytes": server.report.get("bytes"),
        "tools": [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in server.tools
        ],
        "versions": [v.model_dump(mode="json") for v in versions],
    }


def _call(args: argparse.Namespace, settings: Settings) -> int:
    from metaserver.children.oneshot import call_tool

    arguments = _json_arguments(args.arguments)
    if not isinstance(arguments, dict):
        raise UserError("JSON_ARGS must be a JSON object, such as '{\"n\": 3}'")
    ok, value = asyncio.run(call_tool(settings, args.server, args.tool, arguments))
    if not ok:
        print(f"metaserver: {args.tool} failed: {value}", file=sys.stderr)
        return EXIT_FAILED
    print(value if isinstance(value, str) and not args.json else json.dumps(value))
    return EXIT_OK


def _json_arguments(text: str) -> Any:
    """JSON_ARGS parsed within the bounds every surface keeps (:mod:`metaserver.input_limits`),
    or a UserError saying why not."""
    return load_json(text, "JSON_ARGS")


def _add(args: argparse.Namespace, settings: Settings) -> int:
    from metaserver.agents.add.add import add_server
    from metaserver.agents.add.endpoint import header_map, http_endpoint, stdio_endpoint

    if (args.url is None) == (not args.server_command):
        raise UserError("give either -- COMMAND [ARGS...] (a stdio server) or --url URL")
    if args.url is not None:
        if args.allow_network:
            raise UserError("--allow-network is for a stdio server, not --url")
        endpoint = http_endpoint(args.url, header_map(args.header))
    else:
        if args.header:
            raise UserError("--header is for an HTTP server (--url), not a command")
        endpoint = stdio_endpoint(args.server_command, args.allow_network)
    # The MCP client logs each line a failing command prints as an error with a traceback;
    # the one error that matters is the UserError below.
    # The HTTP client logs a reply that is not JSON with a traceback, once per attempt.
    logging.getLogger("mcp.client").setLevel(logging.CRITICAL)
    record = asyncio.run(add_server(settings, args.name, endpoint))
    print(f"added {record.name} ({record.source}): {len(record.tools)} tools")
    for tool in record.tools:
        summary = tool.description.splitlines()[0][:70] if tool.description else ""
        print(f"  {record.name + '_' + tool.name:32} {summary}")
    return EXIT_OK


def _export(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from metaserver.export import load_change, make_branch, patch_text, write_files

    if args.branch is not None and args.repo is None:
        raise UserError("--branch needs --repo DIR, the clone to make the branch in")
    if args.repo is not None and args.branch is None:
        raise UserError("--repo goes with --branch NAME")
    if args.patch is not None:
        text = patch_text(settings, args.server)
        if args.patch == "-":
            sys.stdout.write(text)
        else:
            Path(args.patch).write_text(text, encoding="utf-8")
            print(f"wrote {args.patch}: apply it with git am", file=sys.stderr)
        return EXIT_OK
    change = load_change(settings, args.server)
    if args.branch is not None:
        commit = make_branch(change, Path(args.repo), args.branch)
        print(f"branch {args.branch} at {commit} (on {change.commit})", file=sys.stderr)
        return EXIT_OK
    written = write_files(change, Path(args.dir))
    print(f"wrote {len(written)} files under {args.dir}", file=sys.stderr)
    return EXIT_OK


def _remove(args: argparse.Namespace, settings: Settings) -> int:
    from metaserver.registry.files import unregister

    removed = unregister(settings, args.server)
    versions = ", ".join(record.version_id for record in removed)
    print(f"removed {removed[0].name} (versions {versions})", file=sys.stderr)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
