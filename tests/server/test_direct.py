"""DirectTools: a start mounts by name only, records are read on first use, and every
registration or removal (this process's or another's) is seen by the next sync."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fake_children import TOOLS, fake_record, fast_settings, register_fake

from metaserver.children.pool import ChildPool
from metaserver.registry.store import Registry
from metaserver.server.direct import DirectTools
from metaserver.server.documents import DirectDocuments
from metaserver.settings import Settings

TESTS = Path(__file__).resolve().parent.parent
SERVERS = [f"srv{index:02d}" for index in range(10)]  # past the few read one by one


def _direct(settings: Settings, registry: Registry, list_limit: int = 1000) -> DirectTools:
    pool = ChildPool(settings, registry=registry)
    return DirectTools(pool, settings.home, reserved={"list_tools"}, list_limit=list_limit)


def _home(tmp_path: Path) -> tuple[Settings, Registry]:
    settings = fast_settings(tmp_path / "home")
    for name in SERVERS:
        register_fake(settings, name)
    return settings, Registry(settings.registry_path)


async def test_a_start_mounts_names_and_reads_a_record_on_first_use(tmp_path: Path) -> None:
    settings, registry = _home(tmp_path)
    direct = _direct(settings, registry)
    assert direct.sync(registry)
    assert direct.mounted()["srv03"] == [f"srv03_{tool}" for tool in sorted(TOOLS)]
    assert direct.server_of("srv03_add") == "srv03"
    assert direct.server_of("srv03_nothing") is None
    tool = await direct.get_tool("srv03_add")
    assert tool is not None
    assert tool.parameters["properties"] == TOOLS["add"][1]["properties"]
    assert tool.description == TOOLS["add"][0]
    assert direct.fast_call("srv04_split_words") is not None
    assert direct.fast_call("srv04_nothing") is None
    assert not direct.sync(registry)  # nothing changed: nothing remounted


async def test_a_listing_reads_every_record(tmp_path: Path) -> None:
    settings, registry = _home(tmp_path)
    direct = _direct(settings, registry)
    direct.sync(registry)
    listed = await direct.list_tools()
    assert sorted(t.name for t in listed) == sorted(
        f"{server}_{tool}" for server in SERVERS for tool in TOOLS
    )
    assert all(t.parameters.get("type") == "object" for t in listed)


async def test_changes_before_a_records_first_use(tmp_path: Path) -> None:
    settings, registry = _home(tmp_path)
    direct = _direct(settings, registry)
    direct.sync(registry)
    registry.remove("srv01")  # removed after the start mounted its names
    assert await direct.get_tool("srv01_add") is None
    assert "srv01" not in direct.mounted()
    # Registered anew, with one tool fewer, before its record was read: mounted as it is now.
    old = registry.get("srv02")
    newer = fake_record(settings, "srv02", version="v2").model_copy(
        update={"created_at": old.created_at + 1}
    )
    newer = newer.model_copy(update={"tools": [t for t in newer.tools if t.name != "nap"]})
    registry.register(newer)
    assert await direct.get_tool("srv02_nap") is None
    tool = await direct.get_tool("srv02_add")
    assert tool is not None
    assert "srv02_nap" not in direct.mounted()["srv02"]


@pytest.mark.integration
async def test_another_process_registering_and_removing_is_seen(tmp_path: Path) -> None:
    settings, registry = _home(tmp_path)
    direct = _direct(settings, registry, list_limit=100)
    direct.sync(registry)
    before = {t.name for t in await direct.list_tools()}
    assert "extra_add" not in before
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(TESTS)!r})
        from fake_children import fast_settings, register_fake
        from metaserver.registry.store import Registry
        settings = fast_settings({str(settings.home)!r})
        register_fake(settings, "extra")
        Registry(settings.registry_path).remove("srv05")
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    assert direct.sync(registry)
    after = {t.name for t in await direct.list_tools()}
    assert {f"extra_{tool}" for tool in TOOLS} <= after
    assert not any(name.startswith("srv05_") for name in after)
    assert after - {f"extra_{tool}" for tool in TOOLS} == {
        name for name in before if not name.startswith("srv05_")
    }


async def test_the_tasks_extensions_start_reads_no_record(tmp_path: Path) -> None:
    settings, registry = _home(tmp_path)
    pool = ChildPool(settings, registry=registry)
    documents = DirectDocuments(pool, settings.home)
    direct = DirectTools(pool, settings.home, reserved=set(), documents=documents)
    direct.sync(registry)
    registry.remove("srv07")  # a record read now would find it gone and unmount it
    assert await direct.get_tasks() == []
    assert await documents.get_tasks() == []
    assert "srv07" in direct.mounted()  # nothing was read
    await documents.list_resources()  # a listing of documents reads every record
    assert "srv07" not in direct.mounted()
