"""SearchWarmer: the index reread after each registration, once the process has searched."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fake_children import fast_settings, register_fake

from metaserver.registry import lexical
from metaserver.registry.search import search_tools
from metaserver.registry.store import Registry
from metaserver.server.warm_search import SearchWarmer

TESTS = Path(__file__).resolve().parent.parent


async def _warmed_to(warmer: SearchWarmer, generation: int | None) -> None:
    for _ in range(600):
        if generation is not None and warmer.warmed == generation:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not warmed to generation {generation} (at {warmer.warmed})")


async def test_nothing_is_warmed_before_a_search(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    warmer = SearchWarmer(settings.registry_path, interval=0.01)
    task = asyncio.create_task(warmer.run())
    try:
        await asyncio.sleep(0.3)
        assert warmer.warmed is None  # a meta-server nobody searches loads nothing
        assert not lexical.wait(settings.registry_path, 1)
    finally:
        task.cancel()


async def test_a_registration_here_is_warmed_and_found(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    warmer = SearchWarmer(settings.registry_path, interval=0.01)
    task = asyncio.create_task(warmer.run())
    try:
        warmer.searched()
        await _warmed_to(warmer, warmer.generation())
        before = warmer.warmed
        register_fake(settings, "gamma")
        await _warmed_to(warmer, warmer.generation())
        assert warmer.warmed != before
        assert lexical.wait(settings.registry_path, 1)  # the BM25 index read, in memory
        hits = search_tools(Registry(settings.registry_path), "gamma_split_words", limit=3)
        assert (hits[0].server, hits[0].tool) == ("gamma", "split_words")
    finally:
        task.cancel()


@pytest.mark.integration
async def test_a_registration_by_another_process_is_warmed(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    register_fake(settings, "alpha")
    warmer = SearchWarmer(settings.registry_path, interval=0.01)
    task = asyncio.create_task(warmer.run())
    try:
        warmer.searched()
        await _warmed_to(warmer, warmer.generation())
        before = warmer.warmed
        script = textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(TESTS)!r})
            from fake_children import fast_settings, register_fake
            register_fake(fast_settings({str(settings.home)!r}), "delta")
            """
        )
        subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
        await _warmed_to(warmer, warmer.generation())
        assert warmer.warmed != before
        hits = search_tools(Registry(settings.registry_path), "delta_add", limit=3)
        assert (hits[0].server, hits[0].tool) == ("delta", "add")
    finally:
        task.cancel()
