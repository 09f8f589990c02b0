"""A hostile repository converted by the real pipeline, on each backend that works here.

Each attack must fail or be bounded, the conversion must finish and say so, the host's
canaries must be untouched, and the meta-server must keep answering other servers' calls.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import stat
from pathlib import Path
from typing import Any

import pytest
from fixture_repos import make_calc_repo
from hostile_repo import make_hostile_repo

from metaserver.children.pool import ChildPool
from metaserver.pipeline import convert
from metaserver.registry import Registry
from metaserver.sandbox import get_sandbox
from metaserver.settings import SandboxSettings, Settings, TimeoutSettings

pytestmark = pytest.mark.integration


def _settings(base: Path, backend: str) -> Settings:
    """Settings whose paths a switched uid can reach when the backend has no mount namespace."""
    options: dict[str, Any] = {
        "home": base / "home",
        "sandbox": SandboxSettings(backend=backend),  # type: ignore[arg-type]
        # The default call budget, not a shorter one: a server imports its module at the
        # first call, and this module's import forks a thousand processes; where nothing
        # stops them (the process backend when it must run as root) that took 4 s for a bare
        # interpreter at load 8, and more than 6 s in a server, so the first honest tools
        # timed out on a busy machine.
        "timeouts": TimeoutSettings(tool_call=30, server_start=60),
        "max_rounds": 1,
    }
    if backend == "process":
        options["python"] = "/usr/bin/python3"
        options["uv_cache_dir"] = base / "uv-cache"
    return Settings(**options)


def _result(report: dict[str, Any], tool: str) -> Any:
    for item in report["tools"]:
        if item["name"] == tool:
            return item
    raise AssertionError(f"no tool {tool} in {[t['name'] for t in report['tools']]}")


@pytest.fixture
def world_traversable_base() -> Any:
    """A base directory outside root-only paths (the process backend cannot re-expose them)."""
    base = Path(f"/tmp/metaserver-hostile-{secrets.token_hex(4)}")
    base.mkdir(mode=0o755)
    yield base
    import shutil

    shutil.rmtree(base, ignore_errors=True)


async def test_hostile_repository_is_confined(
    backend: str, world_traversable_base: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    base = world_traversable_base
    token = secrets.token_hex(6)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    home_canary = Path.home() / f".metaserver-canary-{token}"
    tmp_canary = Path(f"/tmp/metaserver-canary-{token}")
    for canary in (home_canary, tmp_canary):
        canary.write_text(f"canary {token}")
        canary.chmod(0o644)
    outside = [
        str(Path.home() / f"hostile-written-{token}"),
        f"/tmp/hostile-written-{token}",
        str(base / "home" / f"hostile-written-{token}"),
    ]
    markers = [f"secret-{token}", f"aws-{token}"]
    monkeypatch.setenv("METASERVER_AUTH__TOKEN", markers[0])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", markers[1])
    sandbox = get_sandbox(SandboxSettings(backend=backend))  # type: ignore[arg-type]
    confined_fs = backend != "process"
    try:
        repo = make_hostile_repo(
            tmp_path / "hostile",
            port=listener.getsockname()[1],
            canaries=[str(home_canary), str(tmp_canary)],
            outside=outside,
            markers=markers,
            dangerous=True,
        )
        settings = _settings(base, backend)
        report = (await convert(f"file://{repo}", settings=settings)).model_dump(mode="json")

        for item in report["tools"]:  # printed first: the evidence when an assertion fails
            print("tool", item["name"], item["status"], item["evidence"], item.get("error"))
        print("seconds:", report["seconds"], "rounds:", report["rounds"])
        # The conversion finished and reports the honest tools and the bounded hostile ones.
        assert report["status"] == "success", report["failure"]
        for honest in ("add", "multiply", "shout"):
            assert _result(report, honest)["status"] == "passed"
        outcomes = _result(report, "attack_report")["evidence"]["result"]
        print("attack outcomes:", outcomes)
        assert outcomes["tcp_host_listener"].startswith("failed"), outcomes
        assert outcomes["environment_secrets"].startswith("failed"), outcomes
        assert "METASERVER" not in outcomes["environment_secrets"]
        assert outcomes["uid"] != 0 or not confined_fs
        switched = outcomes["uid"] != 0 and sandbox.identity.switch
        if confined_fs or switched:
            assert outcomes["write_environment"].startswith("failed"), outcomes
            assert outcomes["read_canary_0"].startswith("failed"), outcomes  # host home
            assert outcomes["write_outside_0"].startswith("failed"), outcomes
        if confined_fs:
            assert outcomes["read_canary_1"].startswith("failed"), outcomes  # host /tmp
            assert outcomes["write_package_dir"].startswith("failed"), outcomes
        if confined_fs or switched:
            # An unprivileged uid meets the process limit long before a thousand.
            assert outcomes["fork_many"].startswith("failed: OSError: stopped after"), outcomes
        else:
            assert outcomes["fork_many"] in ("succeeded: started 1000",) or outcomes[
                "fork_many"
            ].startswith("failed"), outcomes
        memory = _result(report, "eat_memory")
        assert "allocated" not in str(memory["evidence"].get("result")), memory
        spin = _result(report, "zz_spin")
        assert spin["status"] in ("failed", "dropped"), spin

        # Host side: nothing reached the listener, canaries untouched, nothing written.
        with pytest.raises(BlockingIOError):
            listener.accept()
        for canary in (home_canary, tmp_canary):
            assert canary.read_text() == f"canary {token}"
        if confined_fs:
            assert not any(Path(p).exists() for p in outside), outside
        elif switched:
            assert not Path(outside[0]).exists()

        # Another server keeps answering while the hostile one misbehaves.
        calc = make_calc_repo(tmp_path / "calc")
        calc_report = await convert(f"file://{calc}", settings=settings)
        assert calc_report.status == "success", calc_report.failure
        registry = Registry(settings.registry_path)
        pool = ChildPool(settings)
        try:
            hostile = registry.get(report["server"])
            names = {t.name for t in hostile.tools}
            results: dict[str, Any] = {}
            for tool in ("zz_spin", "fork_many", "eat_memory", "kill_parent"):
                if tool in names:
                    raw = await pool.call(hostile, tool, {})
                    results[tool] = (raw.is_error, str(raw.content)[:200])
            print("hostile calls through the pool:", results)
            answer = await pool.call(registry.get(calc_report.server), "add", {"a": 2, "b": 3})
            assert not answer.is_error and answer.structured_content == {"result": 5}
            again = await pool.call(hostile, "add", {"a": 1, "b": 1})
            assert not again.is_error
        finally:
            await pool.close()
        assert os.getpid() > 0  # we are alive: killing the parent did not reach us
        if not (confined_fs or switched):
            pytest.skip(
                "process backend ran the children as root (a path they need is not reachable "
                "by the sandbox uid): file-system attacks are not confined there; network, "
                "secrets, memory, CPU and liveness were checked"
            )
    finally:
        listener.close()
        for canary in (home_canary, tmp_canary):
            canary.unlink(missing_ok=True)
        for path in outside:
            if Path(path).exists() and stat.S_ISREG(Path(path).stat().st_mode):
                Path(path).unlink()
        await asyncio.sleep(0)
