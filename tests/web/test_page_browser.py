"""The registry page in a real headless Chromium (Debian's, driven by Playwright): sign in
with the token, start a conversion and watch it reach "registered", cancel another, see the
server, search for a task and get its tool first, open its evidence, call it from the form
and see the value. Each view's screenshot is checked non-blank and saved under
docs/screenshots/ for the README.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fake_children import fast_settings
from fixture_repos import make_calc_repo
from serving import serving_http

from metaserver.contracts import ConversionReport, Failure
from metaserver.registry.failed import keep_failed
from metaserver.runtime.phash import grayscale
from metaserver.settings import Settings

pytestmark = pytest.mark.integration

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
TOKEN = "browser-token-7"


def _chromium() -> str:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs it with apt")
        pytest.skip("no chromium here (apt-get install chromium)")
    return CHROMIUM


def _non_blank(png: bytes) -> None:
    width, height, gray = grayscale(png)
    background = max(set(gray[::97]), key=gray[::97].count)
    drawn = sum(1 for value in gray if abs(value - background) > 24)
    assert width > 300 and height > 200
    assert len(set(gray)) > 16, "a screenshot of almost one colour"
    assert drawn > 0.003 * width * height, "a screenshot with next to nothing drawn"


async def _shot(page: object, name: str) -> None:
    shot = page.screenshot  # type: ignore[attr-defined]
    png: bytes = await shot(path=str(SHOTS / f"{name}.png"), full_page=True)
    _non_blank(png)


def _kept_failure(settings: Settings, source: Path) -> None:
    """A failed conversion as the pipeline keeps one (registry/failed.py)."""
    report = ConversionReport(
        server="brokenpack",
        source=str(source),
        failure=Failure(type="import_error", detail=f"cannot import brokenpack from {source}"),
    )
    keep_failed(settings, report, "0badc0de")


async def test_the_page_end_to_end(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright, expect

    executable = _chromium()
    SHOTS.mkdir(parents=True, exist_ok=True)
    calc = make_calc_repo(tmp_path / "calc")
    other = make_calc_repo(tmp_path / "other", name="otherpack", package="otherpack")
    home = fast_settings(tmp_path / "home")
    settings = Settings.model_validate({**home.model_dump(), "auth": {"token": TOKEN}})
    _kept_failure(settings, tmp_path / "broken")

    async with serving_http(settings) as url, async_playwright() as playwright:
        base = url.removesuffix("/mcp")
        browser = await playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        page = await browser.new_page(viewport={"width": 1200, "height": 760})
        seen: list[str] = []
        page.on("response", lambda response: seen.append(response.url))
        await page.goto(base + "/")

        # Signed out: the form, no data.
        await expect(page.locator("#signin")).to_be_visible()
        assert await page.locator("#main").inner_text() == ""
        await _shot(page, "sign-in")
        await page.fill("#token", "wrong")
        await page.click("#signin-form button")
        await expect(page.locator("#signin-error")).to_be_visible()
        await page.fill("#token", TOKEN)
        await page.click("#signin-form button")
        await expect(page.locator("#servers")).to_be_visible()
        assert await page.evaluate("sessionStorage.getItem('metaserver-token')") == TOKEN
        assert all(TOKEN not in address for address in seen), "the token went into an address"

        # A conversion started from the page, watched to its end.
        await page.click("nav >> text=Conversions")
        await page.fill("form.convert input[name=source]", str(calc))
        await page.click("form.convert button")
        running = page.locator("#conversions .stages li.current")
        await expect(running.first).to_be_visible(timeout=60_000)
        await _shot(page, "conversion-running")
        registered = page.locator("[data-state=succeeded]")
        await expect(registered).to_contain_text("registered calcpack", timeout=600_000)

        # Another, cancelled while it runs. The view reloads each second meanwhile, and
        # keeps what the user holds: the Cancel button (a click straddling a reload must
        # reach it) and text typed into the start form.
        await page.fill("form.convert input[name=source]", str(other))
        await page.click("form.convert button")
        cancel = await page.locator("button.cancel").first.element_handle()
        source = page.locator("form.convert input[name=source]")
        await source.fill("typed meanwhile")
        seconds = page.locator("#conversions tbody tr").first.locator("td").nth(4)
        shown_first = await seconds.inner_text()
        await expect(seconds).not_to_have_text(shown_first, timeout=30_000)
        assert await cancel.evaluate("button => button.isConnected")
        await expect(source).to_have_value("typed meanwhile")
        await cancel.click()
        await expect(page.locator("[data-state=cancelled]")).to_be_visible(timeout=120_000)
        await _shot(page, "conversions")

        # The converted server.
        await page.click("nav >> text=Servers")
        await expect(page.locator("#servers")).to_contain_text("calcpack")
        await _shot(page, "servers")
        await page.click("#servers >> text=calcpack")
        await expect(page.locator("#server .tools")).to_contain_text("fibonacci")
        await _shot(page, "server")

        # Search for a task: its tool first.
        await page.fill("#search input", "add two integers")
        await page.click("#search button")
        first = page.locator("#found table.hits tbody tr").first
        await expect(first).to_contain_text("calcpack / add")
        await _shot(page, "search")

        # Its evidence, then a call from the form (filled with the proven arguments).
        await first.locator("a").click()
        await expect(page.locator("#tool h2")).to_contain_text("add")
        await page.click("#evidence summary")
        evidence = page.locator("#evidence table.evidence")
        await expect(evidence).to_contain_text("expected-value")
        await page.fill("#arg-a", "20")
        await page.fill("#arg-b", "22")
        await page.click("form.try button")
        # The first call starts the server's child (seconds on a loaded machine).
        await expect(page.locator("#result #value")).to_have_text("42", timeout=120_000)
        await _shot(page, "tool")

        # Failed conversions, with their reports.
        await page.click("nav >> text=Failed")
        await expect(page.locator("#failed")).to_contain_text("import_error")
        await page.click("#failed >> text=brokenpack-0badc0de")
        await expect(page.locator("#failed-report")).to_contain_text("cannot import brokenpack")
        await _shot(page, "failed")

        # No host path on any view.
        for view in ("#/servers", "#/conversions", "#/failed", "#/failed/brokenpack-0badc0de"):
            await page.goto(base + "/" + view)
            await page.wait_for_timeout(300)
            text = await page.content()
            assert str(tmp_path) not in text, view

        # Signed out again: no data left on the page.
        await page.click("#signout")
        await expect(page.locator("#signin")).to_be_visible()
        assert await page.locator("#main").inner_text() == ""
        await browser.close()
