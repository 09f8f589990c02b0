"""Applies resource limits, then replaces itself with the confined command.

Run as a script by the ``process`` backend (``python -I launcher.py LIMITS -- ARGV``): it
imports nothing of metaserver, so it works with any Python 3 interpreter.
"""

import os
import resource
import sys


def main(argv: list[str]) -> None:
    split = argv.index("--")
    limits, command = argv[:split], argv[split + 1 :]
    pairs = dict(item.split("=", 1) for item in limits)
    table = {
        "as": resource.RLIMIT_AS,
        "cpu": resource.RLIMIT_CPU,
        "nofile": resource.RLIMIT_NOFILE,
        "fsize": resource.RLIMIT_FSIZE,
        "nproc": resource.RLIMIT_NPROC,
        "core": resource.RLIMIT_CORE,
    }
    for key, value in pairs.items():
        if key == "setsid":
            os.setsid()
            continue
        limit = int(value)
        _soft, hard = resource.getrlimit(table[key])
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(table[key], (limit, limit))
    os.execvpe(command[0], command, os.environ)  # noqa: S606 - exec, not a shell


if __name__ == "__main__":
    main(sys.argv[1:])
