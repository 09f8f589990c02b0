"""A package whose functions report what code in a served tool can read of where it runs:
its own file and code objects, a traceback, its environment, and every file it can reach
that holds a given text (issue 28: no path of the home in any of them); and a server that
reads the mount table."""

from __future__ import annotations

import sys
from pathlib import Path

from fixture_repos import make_package_repo

from metaserver.registry.records import ServerRecord, ToolRecord
from metaserver.settings import Settings

PEEK_MODULE = '''\
"""What a tool can read of where it runs: a metaserver test fixture."""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

__all__ = [
    "module_file",
    "code_file",
    "traceback_text",
    "process_view",
    "files_containing",
]

# Files larger than this are not searched (none of a small environment is).
_LARGEST = 20_000_000
_MOST = 40


def module_file() -> str:
    """The file this module was imported from."""
    return __file__


def code_file() -> str:
    """The file a function's code object names."""
    return code_file.__code__.co_filename


def traceback_text() -> str:
    """The text of a caught exception's traceback."""
    try:
        raise ValueError("peek")
    except ValueError:
        return traceback.format_exc()


def process_view() -> str:
    """The process's environment, directory, interpreter paths and command line."""
    main = sys.modules["__main__"]
    return json.dumps(
        {
            "environ": dict(os.environ),
            "cwd": os.getcwd(),
            "argv": sys.argv,
            "orig_argv": getattr(sys, "orig_argv", []),
            "executable": sys.executable,
            "prefix": sys.prefix,
            "path": sys.path,
            "main": getattr(main, "__file__", ""),
            "cmdline": [Path(f"/proc/{p}/cmdline").read_bytes().decode("utf-8", "replace")
                        for p in os.listdir("/proc") if p.isdigit()],
        }
    )


def files_containing(text: str) -> list[str]:
    """Files under the server's folder, the environment and the work directory whose
    bytes hold ``text`` (compiled bytecode included), at most forty."""
    main = getattr(sys.modules["__main__"], "__file__", None) or "."
    # Not /tmp: where the home lies under the host's /tmp, the binds at the home's own paths
    # (bwrap.py) show there, and those name the home by being there.
    roots = {str(Path(main).parent), sys.prefix, os.getcwd()}
    needle = text.encode()
    found = []
    for root in sorted(roots):
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    if os.path.islink(path) or os.path.getsize(path) > _LARGEST:
                        continue
                    with open(path, "rb") as handle:
                        if needle in handle.read():
                            found.append(path)
                except OSError:
                    continue
                if len(found) >= _MOST:
                    return found
    return found
'''


def make_peek_repo(root: Path) -> Path:
    """A git repository of the package ``peekpack`` (:data:`PEEK_MODULE`)."""
    return make_package_repo(root, "peekpack", "peekpack", PEEK_MODULE)


MOUNTS_SCRIPT = """\
from pathlib import Path

from fastmcp import FastMCP

mcp = FastMCP("mounts")


@mcp.tool
def mounts() -> str:
    \"\"\"What /proc shows of the mounts this process sees.\"\"\"
    return "\\n".join(Path("/proc/self", n).read_text() for n in ("mountinfo", "mounts"))


if __name__ == "__main__":
    mcp.run(show_banner=False)
"""


def mounts_record(settings: Settings) -> ServerRecord:
    """:data:`MOUNTS_SCRIPT` written under ``settings.servers_dir/mounts-v1``, served with
    this interpreter, and its record."""
    output_dir = settings.servers_dir / "mounts-v1"
    (output_dir / "work").mkdir(parents=True, exist_ok=True)
    (output_dir / "server.py").write_text(MOUNTS_SCRIPT)
    return ServerRecord(
        name="mounts",
        version_id="v1",
        source="test:mounts",
        output_dir=output_dir,
        python_path=Path(sys.executable),
        venv=Path(sys.prefix),
        generator_version="test",
        tools=[
            ToolRecord(
                name="mounts",
                description="mounts",
                target="mounts:mounts",
                input_schema={"type": "object", "properties": {}},
                definition_hash="mounts",
            )
        ],
    )
