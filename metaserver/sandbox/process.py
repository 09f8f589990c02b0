"""The ``process`` backend: a plain child with resource limits and a cleared environment.

It confines resources, not access: the child can read what the user running metaserver can
read and can reach the network. Use it only where no stronger backend works.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from metaserver.sandbox.base import Command, Policy, Sandbox, base_environment

LAUNCHER = Path(__file__).with_name("launcher.py")


class ProcessSandbox(Sandbox):
    name = "process"

    def limit_arguments(self) -> list[str]:
        mb = 1024 * 1024
        return [
            f"as={self.limits.memory_mb * mb}",
            f"cpu={self.limits.cpu_seconds}",
            f"nofile={self.limits.open_files}",
            f"fsize={self.limits.file_size_mb * mb}",
            "core=0",
        ]

    def wrap(self, argv: Sequence[str], policy: Policy) -> Command:
        launcher = [sys.executable, "-I", str(LAUNCHER), *self.limit_arguments(), "--"]
        return Command(argv=[*launcher, *argv], env=base_environment(policy), cwd=policy.workdir)
