"""An environment's compiled bytecode names its sources where a served tool sees them.

uv compiles an environment at its host path, and each ``.pyc`` keeps that path (under the
home) as its code's file name. A served server sees its environment at ``/venv``
(``children/launch.VENV_ALIAS``); the import system corrects the name of a module it loads,
but code that reads a ``.pyc`` itself saw the host path (issue 28). Once the installs are
done, ``probe/bytecode_paths.py`` rewrites each file in the sandbox (the files are the
install's, and unmarshalling is not safe against crafted data) to name ``/venv/...``, with
the environment's own interpreter (marshal's format is its version's). The rewritten files
are alike across environments, so the shared-file store shares them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from metaserver.children.launch import VENV_ALIAS
from metaserver.sandbox import Policy, Sandbox

logger = logging.getLogger(__name__)

SCRIPT = Path(__file__).parents[2] / "probe" / "bytecode_paths.py"


async def name_bytecode(venv: Path, workdir: Path, sandbox: Sandbox, timeout: float) -> int | None:
    """Rename the bytecode of ``venv`` (writable by the sandbox user) to ``/venv``'s paths.

    Returns:
        How many files were rewritten, or None when the step failed: a failure costs only
        the names, so it is logged and the build goes on.
    """
    python = venv / "bin" / "python"
    policy = Policy(
        workdir=workdir,
        timeout=timeout,
        readable=(SCRIPT.parent,),
        writable=(venv,),
        kind="run",
    )
    argv = [str(python), "-I", "-S", str(SCRIPT), str(venv), str(VENV_ALIAS)]
    result = await sandbox.run(argv, policy)
    lines = result.stdout.split()
    if not result.ok or not lines or not lines[-1].isdigit():
        logger.warning("environment: bytecode keeps its build paths: %s", result.tail(3))
        return None
    return int(lines[-1])
