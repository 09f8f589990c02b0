"""The analysis stage as the pipeline calls it: the probe's CodeReport, then how the
repository's own text uses what it found (static: nothing is imported)."""

from __future__ import annotations

from metaserver.agents.analysis.analyse import Installer, probe_package
from metaserver.agents.repo_docs.data_flow import reaching_names
from metaserver.agents.repo_docs.file_arguments import file_parameters
from metaserver.agents.repo_docs.usage import Usage, method_names, mine_usage, usage_names
from metaserver.contracts import CodeReport, Environment, Workspace
from metaserver.sandbox import Sandbox
from metaserver.settings import Settings


async def analyse(
    workspace: Workspace,
    environment: Environment,
    settings: Settings,
    sandbox: Sandbox,
    install: Installer | None = None,
) -> tuple[CodeReport, Usage]:
    """What the package offers (:func:`probe_package`, with ``install`` for what its import
    lacked) and how its README, docs, tests and examples call it.

    Raises:
        AnalysisError: the probe crashed or nothing could be imported.
        UntoolableError: the package imports but exposes no callable that can be a tool.
        SandboxTimeout: the import did not finish in time.
    """
    code = await probe_package(workspace, environment, settings, sandbox, install)
    usage = mine_usage(
        workspace.path,
        usage_names(code),
        method_names(code),
        code.packages,
        file_parameters(code),
        reaching_names(code.candidates),
    )
    return code, usage
