"""Build environments for every source of a corpus, cold and then warm, and print a table.

    uv run python bench/build_environments.py [CORPUS] [--home DIR] [--keep-uv-cache] [--only N]

"Cold" starts from an empty METASERVER_HOME and, unless ``--keep-uv-cache`` is given, an
empty uv cache inside it, so every distribution is downloaded. "Warm" converts the same
source again with everything the cold run left: nothing is fetched and nothing is built.
Each row times fetch plus environment, the two stages this benchmark is about. Not run by CI.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from metaserver.agents.environment.build import build_environment
from metaserver.agents.fetch import fetch
from metaserver.agents.fetch.source import parse_source
from metaserver.contracts import Environment
from metaserver.exceptions import MetaServerError
from metaserver.sandbox import get_sandbox
from metaserver.settings import Settings

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev.txt"


@dataclass
class Row:
    source: str
    strategy: str = "-"
    python: str = "-"
    cold: float | None = None
    warm: float | None = None
    ok: bool = False
    note: str = ""


def read_corpus(path: Path) -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


async def build_once(source: str, settings: Settings) -> tuple[float, Environment]:
    """Fetch and build one source into fresh paths; the seconds both stages took."""
    token = secrets.token_hex(4)
    started = time.monotonic()
    workspace = await fetch(
        parse_source(source), settings.workspaces_dir / f"bench-{token}", settings
    )
    environment = await build_environment(
        workspace,
        settings.environments_dir / f"bench-{token}",
        settings,
        get_sandbox(settings.sandbox),
    )
    return time.monotonic() - started, environment


async def measure(source: str, settings: Settings) -> Row:
    row = Row(source)
    try:
        row.cold, environment = await build_once(source, settings)
        row.strategy, row.python = environment.strategy, environment.python
        if environment.installed_version != environment.requested_version:
            row.note = f"installed {environment.installed_version}"
        row.warm, again = await build_once(source, settings)
        row.ok = again.cached and again.strategy == environment.strategy
    except MetaServerError as err:
        row.note = str(err).splitlines()[0][:160]
    return row


def table(rows: list[Row]) -> str:
    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    header = ["source", "strategy", "python", "seconds cold", "seconds warm", "ok", "note"]
    body = [
        [r.source, r.strategy, r.python, seconds(r.cold), seconds(r.warm), str(r.ok), r.note]
        for r in rows
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--home", type=Path, help="METASERVER_HOME to use (default: a temp dir)")
    parser.add_argument("--keep-uv-cache", action="store_true", help="use uv's usual cache")
    parser.add_argument("--only", type=int, help="the first N sources only")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    home = args.home or Path(tempfile.mkdtemp(prefix="metaserver-bench-"))
    settings = Settings(home=home, uv_cache_dir=None if args.keep_uv_cache else home / "uv-cache")
    sources = read_corpus(args.corpus)[: args.only]
    rows: list[Row] = []
    for source in sources:
        row = await measure(source, settings)
        rows.append(row)
        print(f"{row.source}: {row.strategy} cold={row.cold} warm={row.warm} ok={row.ok}",
              row.note, file=sys.stderr, flush=True)  # fmt: skip
    print(table(rows))
    print(f"\n{sum(r.ok for r in rows)}/{len(rows)} ok; home {home}")
    if args.home is None:
        shutil.rmtree(home, ignore_errors=True)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
