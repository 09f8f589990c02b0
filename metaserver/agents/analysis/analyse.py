"""What the package offers, as seen from inside its own environment (the probe).

The probe (``probe/__main__.py``) imports the package in the environment's interpreter, through
the sandbox; metaserver never imports target code into its own process.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from pydantic import ValidationError as PydanticValidationError

from metaserver.agents.analysis.notebooks import add_notebooks
from metaserver.agents.analysis.scripts.find import add_scripts
from metaserver.agents.repo_docs.guides import guide_sessions
from metaserver.agents.repo_docs.test_sessions import suite_sessions
from metaserver.contracts import CodeReport, Environment, Workspace
from metaserver.exceptions import AnalysisError, SandboxTimeout, UntoolableError
from metaserver.sandbox import Policy, Sandbox
from metaserver.settings import Settings

PROBE = Path(__file__).parents[2] / "probe" / "__main__.py"
# The probe's own budget, as a share of its sandbox limit (``timeouts.probe``): past it the
# probe stops reading and writes what it has (probe/budget.py). The rest of the limit
# is for finishing the callable at hand and writing the report (sympy's 35k candidates are
# a few seconds of JSON), so that a very large library gives a partial candidate list
# rather than a failed conversion; the limit itself stays the last guard.
PROBE_BUDGET_SHARE = 0.75

logger = logging.getLogger(__name__)


# Install the distributions of these missing top-level modules; True when it did.
Installer = Callable[[list[str]], Awaitable[bool]]
_MISSING_MODULE = re.compile(r"No module named '([A-Za-z0-9_.]+)'")


async def probe_package(
    workspace: Workspace,
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    install: Installer | None = None,
) -> CodeReport:
    """Run the probe and return its CodeReport.

    A package that imports a module it does not declare fails at the probe; with
    ``install``, those modules' distributions are installed (the validation repair's
    install, repair/imports.py) and the probe runs once more.

    Raises:
        AnalysisError: the probe crashed or nothing could be imported.
        UntoolableError: the package imports but exposes no callable that can be a tool.
        SandboxTimeout: the import did not finish in time.
    """
    report = await _probe(workspace, environment, settings, sandbox)
    missing = missing_modules(report)
    if missing and install is not None and await install(missing):
        report = await _probe(workspace, environment, settings, sandbox)
    return _finish(report, workspace)


def missing_modules(report: CodeReport) -> list[str]:
    """Top-level modules a package's own import needed and the environment lacks; never the
    package's own (a distribution of that name on the index would be someone else's).

    Only a package that does not import at all counts: a submodule that needs an optional
    extra (a plotting backend) leaves the rest of the package to tools, and installing a
    framework for it would cost more than it gives.
    """
    own = set(report.packages)
    found: list[str] = []
    for skipped in report.skipped:
        match = _MISSING_MODULE.search(skipped.reason)
        if skipped.target not in own or not skipped.reason.startswith("import failed"):
            continue
        if match is None:
            continue
        top = match.group(1).partition(".")[0]
        if top not in own and top not in found:
            found.append(top)
    return found


async def _probe(
    workspace: Workspace, environment: Environment, settings: Settings, sandbox: Sandbox
) -> CodeReport:
    """The probe's report, as it wrote it."""
    # The conversion's own scratch (``.<name>-<token>.probe-*``, registry/files.entry_of):
    # another process's sweep keeps it while this conversion lives. As ``probe-<random>`` it
    # read as a dead conversion's entry and was deleted under a running probe (the soak).
    venv = environment.venv
    workdir = Path(tempfile.mkdtemp(prefix=f".{venv.name}.probe-", dir=venv.parent))
    try:
        output = workdir / "report.json"
        argv = [str(environment.python_path), "-I", str(PROBE), "--output", str(output)]
        argv += ["--budget", f"{settings.timeouts.probe * PROBE_BUDGET_SHARE:.1f}"]
        guides = guide_sessions(workspace.path)
        if guides:  # README sessions: examples of methods on receivers the README builds
            (workdir / "guides.json").write_text(json.dumps(guides))
            argv += ["--guides", str(workdir / "guides.json")]
        tests = suite_sessions(workspace.path, guides)
        if tests:  # the tests' sessions: methods proven on receivers the tests build
            (workdir / "tests.json").write_text(json.dumps(tests))
            argv += ["--tests", str(workdir / "tests.json")]
        if workspace.distribution:
            argv += ["--distribution", workspace.distribution]
        if environment.strategy == "requirements+path":
            # Only then is the tree itself the package; otherwise it would shadow the
            # installed (possibly compiled) distribution.
            argv += ["--path", str(workspace.path)]
        policy = Policy(
            workdir=workdir,
            timeout=settings.timeouts.probe,
            readable=(workspace.path, environment.venv, PROBE.parent),
            writable=(workdir,),
            kind="probe",
            # The conversion's own uid: its environment and server directory share this name.
            tenant=environment.venv.name,
        )
        started = time.monotonic()
        result = await sandbox.run(argv, policy)
        # Its time against its limit: how near a large library runs to its budget.
        logger.info(
            "analysis: the probe took %.1f s (budget %s s, limit %.0f s)",
            time.monotonic() - started,
            argv[argv.index("--budget") + 1],
            policy.timeout,
        )
        if result.timed_out:
            raise SandboxTimeout(f"importing the package took over {policy.timeout:.0f}s")
        if not result.ok or not output.exists():
            raise AnalysisError(f"the analysis probe failed: {result.tail(8)}")
        try:
            report = CodeReport.model_validate(json.loads(output.read_text()))
        except (ValueError, PydanticValidationError) as exc:
            raise AnalysisError(f"the analysis probe wrote an unreadable report: {exc}") from exc
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for unread in report.unread:
        logger.warning("analysis: %s: %s", unread.target, unread.reason)
    return report


def _finish(report: CodeReport, workspace: Workspace) -> CodeReport:
    # Command-line entry points, read statically (issue #4): tools of their own.
    report = add_scripts(report, workspace.path)
    # Executed notebooks, read statically too (issue #14): a tool each.
    report = add_notebooks(report, workspace.path)
    if not report.packages and not report.candidates:
        raise AnalysisError("no importable top-level package was found in the environment")
    failed = {s.target: s.reason for s in report.skipped if s.reason.startswith("import failed")}
    if not report.candidates and all(package in failed for package in report.packages):
        # Nothing imported at all: an import error, not a package without tools.
        reasons = "; ".join(f"{package}: {failed[package]}" for package in report.packages)
        raise AnalysisError(f"the package could not be imported ({reasons})")
    if not report.candidates:
        reasons = "; ".join(f"{s.target}: {s.reason}" for s in report.skipped[:5])
        raise UntoolableError(f"no callable could become a tool ({reasons or 'none found'})")
    return report
