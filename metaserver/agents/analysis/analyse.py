"""Analysis stage: what the package offers, as seen from inside its own environment.

The probe (``probe_script.py``) imports the package in the environment's interpreter, through
the sandbox; metaserver never imports target code into its own process.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from pydantic import ValidationError as PydanticValidationError

from metaserver.agents.analysis.notebooks import add_notebooks
from metaserver.agents.analysis.scripts.find import add_scripts
from metaserver.contracts import CodeReport, Environment, Workspace
from metaserver.exceptions import AnalysisError, SandboxTimeout, UntoolableError
from metaserver.sandbox import Policy, Sandbox
from metaserver.settings import Settings

PROBE = Path(__file__).with_name("probe") / "probe_script.py"


async def analyse(
    workspace: Workspace, environment: Environment, settings: Settings, sandbox: Sandbox
) -> CodeReport:
    """Run the probe and return its CodeReport.

    Raises:
        AnalysisError: the probe crashed or nothing could be imported.
        UntoolableError: the package imports but exposes no callable that can be a tool.
        SandboxTimeout: the import did not finish in time.
    """
    workdir = Path(tempfile.mkdtemp(prefix="probe-", dir=environment.venv.parent))
    try:
        output = workdir / "report.json"
        argv = [str(environment.python_path), "-I", str(PROBE), "--output", str(output)]
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
        result = await sandbox.run(argv, policy)
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
