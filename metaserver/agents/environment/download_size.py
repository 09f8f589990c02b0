"""What a repair install would download, known before it runs (issue 30, decision 32).

PyDMD's tutorial imports a package whose requirements pull in torch and the CUDA
libraries: the ``add_dependency`` repair downloaded 3.2 GB into a 6 GB environment for one
tutorial tool, and the conversion ran past every budget. uv's resolver writes the files it
chose with their sizes (a ``pylock.toml``, PEP 751), so the download is measured first, in
the sandbox (resolving may build a source distribution's metadata, which runs its code),
and an install past the bound is refused with what it would have brought.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.utils import canonicalize_name

from metaserver.agents.environment.build import local_wheelhouse, uv_binary, uv_environment
from metaserver.contracts import Environment
from metaserver.sandbox import Policy, Sandbox
from metaserver.settings import Settings

__all__ = ["Download", "installed_names", "measure_download", "over_bound"]

_MB = 1_000_000


@dataclass(frozen=True)
class Download:
    """What an install would add: each new distribution's file size, largest first."""

    files: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        return sum(size for _, size in self.files)

    def describe(self, shown: int = 3) -> str:
        """``3165 MB (torch 539 MB, nvidia-cudnn-cu13 519 MB, ...)``."""
        parts = [f"{name} {size // _MB} MB" for name, size in self.files[:shown]]
        more = ", ..." if len(self.files) > shown else ""
        return f"{self.total // _MB} MB ({', '.join(parts)}{more})"


def installed_names(venv: Path) -> set[str]:
    """The canonical names of the distributions installed in ``venv``, read from their
    metadata files (nothing of the environment is imported)."""
    paths = [str(p) for p in venv.glob("lib/python*/site-packages")]
    return {canonicalize_name(d.metadata["Name"] or "") for d in metadata.distributions(path=paths)}


def lock_download(lock: dict[str, object], installed: set[str]) -> Download:
    """The files of a resolved ``pylock.toml`` that ``installed`` does not already hold."""
    files: list[tuple[str, int]] = []
    packages = lock.get("packages")
    for package in packages if isinstance(packages, list) else []:
        if not isinstance(package, dict):
            continue
        name = canonicalize_name(str(package.get("name", "")))
        if not name or name in installed:
            continue
        files.append((name, _file_size(package)))
    files.sort(key=lambda item: (-item[1], item[0]))
    return Download(files=tuple(files))


def _file_size(package: dict[str, object]) -> int:
    """The size of the file uv would fetch: the platform's wheel (a compile for one
    interpreter lists only those), else the source distribution; a local file by its own
    size when the lock gives none."""
    wheels = package.get("wheels")
    entries = [w for w in wheels if isinstance(w, dict)] if isinstance(wheels, list) else []
    sdist = package.get("sdist")
    if not entries and isinstance(sdist, dict):
        entries = [sdist]
    sizes = [_entry_size(entry) for entry in entries]
    return max(sizes, default=0)


def _entry_size(entry: dict[str, object]) -> int:
    size = entry.get("size")
    if isinstance(size, int) and size >= 0:
        return size
    path = entry.get("path")
    if isinstance(path, str) and Path(path).is_file():
        return Path(path).stat().st_size
    return 0


async def measure_download(
    environment: Environment,
    packages: list[str],
    settings: Settings,
    sandbox: Sandbox,
    workdir: Path,
) -> Download | None:
    """What installing ``packages`` (plain requirements, already checked) into
    ``environment`` would download; None when the resolver gives no answer (the install
    then fails on its own and says why)."""
    workdir.mkdir(parents=True, exist_ok=True)
    requirements = workdir / "requested.in"
    requirements.write_text("".join(f"{p}\n" for p in packages))
    output = workdir / "pylock.toml"
    policy = Policy(
        workdir=workdir,
        timeout=settings.timeouts.environment,
        network=not settings.index.offline,
        readable=(*local_wheelhouse(settings), environment.venv),
        writable=(workdir,),
        env=uv_environment(settings),
        kind="install",
    )
    argv = [uv_binary(), "pip", "compile", "--quiet", "--no-header", "--format", "pylock.toml"]
    argv += ["--python", str(environment.python_path), str(requirements), "-o", str(output)]
    result = await sandbox.run(argv, policy)
    if not result.ok or not output.is_file():
        return None
    try:
        lock = tomllib.loads(output.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    return lock_download(lock, installed_names(environment.venv))


def over_bound(download: Download | None, bound_mb: int) -> bool:
    """Whether ``download`` is past ``bound_mb`` megabytes (0: no bound)."""
    return download is not None and bound_mb > 0 and download.total > bound_mb * _MB
