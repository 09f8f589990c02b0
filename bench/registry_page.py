"""The registry page's first paint with 20,000 tools registered (issue 33: at most 1 s).

Fills a registry with 1,000 servers of 20 tools (bench/registry_scale.py's fill: 20 servers
registered, the others copies of their rows), serves it with `metaserver serve --transport
http`, and prints, over several fresh page loads in headless Chromium with the token in
session storage: the first contentful paint and the time until the first page of the servers
table is drawn (both from navigation start); then the fragments' own times over HTTP (the
servers page, a server, a tool, a search). Without Chromium it prints the HTTP figures only.

    uv run python bench/registry_page.py [--servers 1000] [--tools 20] [--loads 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from registry_scale import populate

from metaserver.settings import Settings

METASERVER = str(Path(sys.executable).with_name("metaserver"))
TOKEN = secrets.token_hex(8)
TARGET_MS = 1000.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve(home: Path, port: int) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METASERVER_")}
    env.update(METASERVER_HOME=str(home), METASERVER_AUTH__TOKEN=TOKEN)
    command = [METASERVER, "serve", "--transport", "http", "--port", str(port)]
    return subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)


def wait_up(base: str, deadline: float = 120.0) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            if httpx.get(base + "/", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("the meta-server did not start")


async def browser_loads(base: str, loads: int) -> tuple[list[float], list[float]] | None:
    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    from playwright.async_api import async_playwright

    paints, tables = [], []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
        )
        for _ in range(loads):
            context = await browser.new_context(viewport={"width": 1200, "height": 760})
            await context.add_init_script(f"sessionStorage.setItem('metaserver-token', {TOKEN!r})")
            page = await context.new_page()
            await page.goto(base + "/")
            await page.wait_for_selector("#servers table")
            drawn = await page.evaluate(
                "new Promise(r => requestAnimationFrame(() => r(performance.now())))"
            )
            paint = await page.evaluate(
                "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
            )
            tables.append(float(drawn))
            paints.append(float(paint))
            await context.close()
        await browser.close()
    return paints, tables


def http_times(base: str, rounds: int = 10) -> dict[str, list[float]]:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    routes = {
        "servers page": "/ui/servers",
        "servers page 20": "/ui/servers?page=20",
        "a server": "/ui/server/srv0500",
        "a tool": "/ui/tool/srv0500/add",
        "search": "/ui/search?q=convert+units+of+a+quantity",
    }
    times: dict[str, list[float]] = {name: [] for name in routes}
    with httpx.Client(base_url=base, headers=auth, timeout=60) as http:
        for name, route in routes.items():
            http.get(route).raise_for_status()  # warm: the first search loads the model
            for _ in range(rounds):
                started = time.perf_counter()
                http.get(route).raise_for_status()
                times[name].append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--tools", type=int, default=20)
    parser.add_argument("--loads", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="metaserver-page-") as scratch:
        home = Path(scratch) / "home"
        started = time.perf_counter()
        populate(Settings(home=home), options.servers, options.tools, random.Random(7), 20)  # noqa: S311
        print(
            f"registry: {options.servers} servers, {options.servers * options.tools} tools "
            f"(filled in {time.perf_counter() - started:.1f} s)"
        )
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = serve(home, port)
        try:
            wait_up(base)
            loads = asyncio.run(browser_loads(base, options.loads))
            if loads is None:
                print("no chromium: first paint not measured")
            else:
                paints, tables = loads
                verdict = "ok" if max(tables) <= TARGET_MS else "OVER"
                print(
                    f"first contentful paint  median {statistics.median(paints):6.0f} ms  "
                    f"max {max(paints):6.0f} ms"
                )
                print(
                    f"servers table drawn     median {statistics.median(tables):6.0f} ms  "
                    f"max {max(tables):6.0f} ms  (target <= {TARGET_MS:.0f} ms: {verdict})"
                )
            for name, samples in http_times(base).items():
                print(
                    f"GET {name:<16} median {statistics.median(samples):6.1f} ms  "
                    f"max {max(samples):6.1f} ms"
                )
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
