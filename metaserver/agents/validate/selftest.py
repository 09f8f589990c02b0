"""Replaying a generated server's own tests/ with the environment's Python.

The tests hold the validation calls; running them proves the directory is self-contained
(it needs nothing of metaserver) and that each tool answers as it did when validated.
"""

from __future__ import annotations

import re
from pathlib import Path

from metaserver.agents.environment.build import SELFTEST_PACKAGES
from metaserver.agents.environment.dependencies import add_packages
from metaserver.agents.environment.strategies import installed_version
from metaserver.children.launch import workspace_paths
from metaserver.contracts import Environment
from metaserver.sandbox import Policy, RunResult, Sandbox
from metaserver.settings import Settings

__all__ = [
    "SELFTEST_PACKAGES",
    "SELFTEST_PASSES",
    "failed_tool_reasons",
    "failed_tool_tests",
    "run_generated_tests",
    "selftest_timeout",
]


def selftest_timeout(settings: Settings, tools: int) -> float:
    """The time the server's own tests get: its start, then ten tool calls' limit, or one
    for every third tool when there are more (a server of 55 tools, each replayed with its
    session, outgrew the fixed ten calls on a loaded machine: colour-science 0.4.7)."""
    return settings.timeouts.server_start + max(10, tools // 3) * settings.timeouts.tool_call


async def run_generated_tests(
    server_dir: Path,
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    tools: int = 0,
) -> RunResult:
    """Install pytest into the environment if needed, then run ``server_dir/tests`` (the
    replays of ``tools`` tools) within ``selftest_timeout``."""
    missing = [p for p in SELFTEST_PACKAGES if installed_version(environment.lock, p) is None]
    if missing:  # an environment whose requirements kept them out at build time
        await add_packages(environment, missing, settings, sandbox)
    workdir = server_dir / "work"
    policy = Policy(
        workdir=workdir,
        timeout=selftest_timeout(settings, tools),
        # A requirements+path environment imports the workspace: it must be readable too.
        readable=(server_dir, environment.venv, *workspace_paths(environment.venv)),
        writable=(workdir,),
        env={
            "FASTMCP_LOG_LEVEL": "WARNING",
            "FASTMCP_SHOW_SERVER_BANNER": "false",
            # The tests use pytest alone; a repository's plugins (installed with it) would
            # only slow each start, or fail it.
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            # A call that hangs fails its own test at validation's limit, not the whole run.
            "METASERVER_TEST_CALL_TIMEOUT": str(2 * settings.timeouts.tool_call),
            # Wide enough that each failure's reason is not cut in pytest's summary.
            "COLUMNS": "400",
        },
        tenant=server_dir.name,  # the uid the server itself runs as
    )
    argv = [str(environment.python_path), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    return await sandbox.run([*argv, str(server_dir / "tests")], policy)


SELFTEST_PASSES = 3
"""How often the server's own tests run, each after leaving out the tools whose replay
failed in the run before."""
MAX_REASON = 300

_FAILED_TOOL_TEST = re.compile(
    r"^FAILED \S*test_tools\.py::test_tool_answers_as_validated\[(\S+)\](?: - (.*))?$", re.M
)


def failed_tool_tests(output: str) -> set[str]:
    """The tools whose replay failed in the generated tests' pytest summary
    (``FAILED ../tests/test_tools.py::test_tool_answers_as_validated[NAME]``)."""
    return set(failed_tool_reasons(output))


def failed_tool_reasons(output: str) -> dict[str, str]:
    """Each tool whose replay failed, with the reason pytest's summary gives
    (``FAILED ...[NAME] - AssertionError: ...``, at most ``MAX_REASON`` characters; empty
    when it gives none)."""
    return {
        name: " ".join((reason or "").split())[:MAX_REASON]
        for name, reason in _FAILED_TOOL_TEST.findall(output)
    }
