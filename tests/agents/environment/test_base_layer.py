"""The base layer: FastMCP and the test runner installed once per interpreter, linked into
every new environment, and out of reach of what an install into that environment runs."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
from pathlib import Path

import pytest
from fixture_repos import make_calc_repo

from metaserver.agents.environment.base_layer import base_key, seed_from_base
from metaserver.agents.environment.build import build_environment
from metaserver.contracts import Environment, Source, Workspace
from metaserver.sandbox import Policy, get_sandbox
from metaserver.sandbox.identity import Identity, sandbox_identity
from metaserver.settings import Settings

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        os.geteuid() != 0,
        reason="a base layer is linked only where installs run as the sandbox uid (as root)",
    ),
]

# Run as the sandbox uid, as an install: what a build script could do to a linked file.
ATTACK = """
import os
path = os.environ["TARGET"]
attempts = {
    "append": lambda: open(path, "a").write("planted"),
    "chmod": lambda: os.chmod(path, 0o666),
    "truncate": lambda: os.truncate(path, 0),
}
for name, attempt in attempts.items():
    try:
        attempt()
        print(name, "done")
    except OSError as error:
        print(name, "refused", error.errno)
os.unlink(path)  # an install replacing the distribution removes its names: allowed
print("unlink done")
"""


def _workspace(path: Path, name: str) -> Workspace:
    source = Source.model_validate({"kind": "local", "location": str(path), "original": str(path)})
    return Workspace(source=source, path=path, distribution=name)


def _layers(settings: Settings) -> list[Path]:
    return [p for p in settings.base_layers.iterdir() if not p.name.startswith(".")]


def _fastmcp_init(venv: Path) -> Path:
    return next(venv.glob("lib/python*/site-packages/fastmcp/__init__.py"))


@pytest.fixture(scope="module")
def two_environments(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Settings, list[Environment]]:
    root = tmp_path_factory.mktemp("layered")
    settings = Settings(home=root / "home", layer_dir=root / "layers")
    sandbox = get_sandbox(settings.sandbox)
    built = []
    for name in ("alphacalc", "betacalc"):
        repo = make_calc_repo(root / name, name=name, package=name)
        venv = settings.environments_dir / name
        built.append(
            asyncio.run(build_environment(_workspace(repo, name), venv, settings, sandbox))
        )
    return settings, built


def test_one_layer_is_made_and_linked_into_each_environment(
    two_environments: tuple[Settings, list[Environment]],
) -> None:
    settings, environments = two_environments
    [layer] = _layers(settings)
    base = _fastmcp_init(layer / "venv")
    for environment in environments:
        linked = _fastmcp_init(environment.venv)
        assert linked.stat().st_ino == base.stat().st_ino  # the same file, not a copy
        assert "fastmcp==" in environment.lock and "pytest==" in environment.lock
        name = environment.venv.name
        assert f"{name}==" in environment.lock or name in environment.lock


def test_the_layer_is_keyed_by_interpreter_packages_and_week() -> None:
    python = Path("/usr/bin/python3")
    week = 7 * 24 * 3600
    key = base_key(python, "3.11.7", ["fastmcp==4.1.6", "pytest"], 10 * week + 1)
    assert key == base_key(python, "3.11.7", ["pytest", "fastmcp==4.1.6"], 10 * week + 2)
    assert key != base_key(python, "3.12.1", ["fastmcp==4.1.6", "pytest"], 10 * week + 1)
    assert key != base_key(python, "3.11.7", ["fastmcp==4.1.7", "pytest"], 10 * week + 1)
    assert key != base_key(python, "3.11.7", ["fastmcp==4.1.6", "pytest"], 11 * week + 1)


async def test_an_install_cannot_change_the_layers_files(
    two_environments: tuple[Settings, list[Environment]], tmp_path: Path
) -> None:
    settings, environments = two_environments
    [layer] = _layers(settings)
    base = _fastmcp_init(layer / "venv")
    before = hashlib.sha256(base.read_bytes()).hexdigest()
    # A new environment seeded from the layer, handed to the sandbox uid as installs get it.
    fresh = tmp_path / "fresh-venv"
    identity = sandbox_identity(settings.sandbox.uid, settings.sandbox.gid)
    fresh.mkdir()
    os.chown(fresh, identity.uid, identity.gid)
    assert seed_from_base(layer / "venv", fresh, identity) > 1000
    target = _fastmcp_init(fresh)
    python = environments[0].python_path
    policy = Policy(
        workdir=tmp_path / "work",
        timeout=60,
        readable=(environments[0].venv,),
        writable=(fresh,),
        # Named in the environment, not the command line: a path the command line names is
        # bound read-only on its own, which would hide what the file's owner and mode do.
        env={"TARGET": str(target)},
        kind="install",
    )
    result = await get_sandbox(settings.sandbox).run([str(python), "-I", "-c", ATTACK], policy)
    assert result.ok, result.tail()
    said = dict(line.split(" ", 1) for line in result.stdout.split("\n") if line)
    for attempt in ("append", "chmod", "truncate"):
        assert said[attempt].startswith("refused"), said
    assert said["unlink"] == "done"
    assert not target.exists()
    assert hashlib.sha256(base.read_bytes()).hexdigest() == before
    assert base.stat().st_mode & 0o222 == 0  # still read-only


def _links_to_the_limit(path: Path, into: Path) -> int:
    """Hard-link ``path`` until the file system refuses (ext4: 65,000 links an inode)."""
    into.mkdir()
    for count in range(70_000):
        try:
            os.link(path, into / str(count))
        except OSError as error:
            assert error.errno == errno.EMLINK, error
            return count
    pytest.skip("this file system bounds no inode's links below 70,000")


def test_a_layer_file_at_the_link_limit_is_renewed_and_still_linked(tmp_path: Path) -> None:
    # Every environment links every file of the layer, so a long-lived layer reaches the
    # file system's bound: seeding then failed "Too many links" and no environment built.
    layer = tmp_path / "layer"
    module = layer / "lib" / "python3.11" / "site-packages" / "shared.py"
    module.parent.mkdir(parents=True)
    module.write_text("VALUE = 1\n")
    (layer / "bin").mkdir()
    _links_to_the_limit(module, tmp_path / "others")
    old = module.stat().st_ino

    venv = tmp_path / "venv"
    venv.mkdir()
    ours = Identity(uid=os.getuid(), gid=os.getgid(), switch=False)
    assert seed_from_base(layer, venv, ours) == 1

    seeded = venv / "lib" / "python3.11" / "site-packages" / "shared.py"
    assert seeded.read_text() == "VALUE = 1\n"
    assert module.stat().st_ino != old  # the layer holds a fresh copy...
    assert seeded.stat().st_ino == module.stat().st_ino  # ...that the new environment links
    assert (tmp_path / "others" / "0").read_text() == "VALUE = 1\n"  # old links untouched
