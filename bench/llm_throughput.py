"""LLM throughput: N concurrent conversions' model work against an OpenAI-compatible endpoint.

Each "conversion" runs the model part of a real conversion (refine_specs: selection over K
candidates, names and descriptions, example arguments) with the real client, so the figures
are what the pipeline asks of a model server. With ``--source`` the whole pipeline runs
instead (fetch, environment, validation...), which measures conversions end to end.

    # against the scripted server of the tests (no model needed; measures the harness)
    uv run python bench/llm_throughput.py --conversions 64 --concurrency 16
    # against vLLM
    uv run python bench/llm_throughput.py --base-url http://localhost:8000/v1 \\
        --model qwen2.5-7b-instruct --conversions 200 --concurrency 32

Prints tokens per second and conversions per hour, and a JSON line for scripts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from metaserver.agents.design.specs import design
from metaserver.agents.llm import refine_specs
from metaserver.contracts import Candidate, CodeReport, Example, LLMUsage, Parameter
from metaserver.pipeline import convert
from metaserver.settings import LLMSettings, Settings

VERBS = ["parse", "format", "compute", "merge", "split", "normalise", "encode", "score"]


def synthetic_report(candidates: int) -> CodeReport:
    """A library of ``candidates`` typed functions; a third have doctests."""
    found = []
    for i in range(candidates):
        name = f"{VERBS[i % len(VERBS)]}_{i:04d}"
        params = [
            Parameter(name="text", kind="positional_or_keyword", json_schema={"type": "string"}),
            Parameter(name="count", kind="positional_or_keyword", json_schema={"type": "integer"}),
        ]
        examples = (
            [Example(arguments={"text": "a", "count": 1}, expected="a", has_expected=True)]
            if i % 3 == 0
            else []
        )
        found.append(
            Candidate(
                target=f"lib.mod{i % 7}:{name}",
                name=name,
                signature="(text: str, count: int) -> str",
                parameters=params,
                doc=f"{name.replace('_', ' ').capitalize()} the text count times.\n\n"
                "Args:\n    text: the input.\n    count: how many times.",
                summary=f"{name.replace('_', ' ').capitalize()} the text count times.",
                examples=examples,
                in_all=i % 2 == 0,
            )
        )
    return CodeReport(packages=["lib"], candidates=found)


async def refine_once(code: CodeReport, max_tools: int, llm: LLMSettings) -> LLMUsage:
    usage = LLMUsage(model=llm.model)
    specs = design(code, max_tools)
    await refine_specs(code, specs, max_tools=max_tools, settings=llm, usage=usage)
    return usage


async def convert_once(source: str, home: Path, llm: LLMSettings, max_tools: int) -> LLMUsage:
    settings = Settings(home=home, llm=llm)
    report = await convert(source, settings=settings, max_tools=max_tools)
    return report.llm


async def bench(args: argparse.Namespace, llm: LLMSettings) -> dict[str, Any]:
    gate = asyncio.Semaphore(args.concurrency)
    code = synthetic_report(args.candidates)

    async def one(i: int, home: Path) -> LLMUsage:
        async with gate:
            if args.source:
                return await convert_once(args.source, home / f"h{i}", llm, args.max_tools)
            return await refine_once(code, args.max_tools, llm)

    with TemporaryDirectory() as tmp:
        started = time.monotonic()
        usages = await asyncio.gather(*(one(i, Path(tmp)) for i in range(args.conversions)))
        seconds = time.monotonic() - started
    tokens_in = sum(u.tokens_in for u in usages)
    tokens_out = sum(u.tokens_out for u in usages)
    return {
        "endpoint": llm.base_url,
        "model": llm.model,
        "mode": "full" if args.source else "refine",
        "conversions": args.conversions,
        "concurrency": args.concurrency,
        "seconds": round(seconds, 2),
        "calls": sum(u.calls for u in usages),
        "failed_calls": sum(u.failed_calls for u in usages),
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "tokens_per_second": round((tokens_in + tokens_out) / seconds, 1),
        "output_tokens_per_second": round(tokens_out / seconds, 1),
        "conversions_per_hour": round(args.conversions / seconds * 3600),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="OpenAI-compatible /v1 URL; unset: scripted server")
    parser.add_argument("--model", default="scripted", help="served model name")
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--conversions", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=8, help="conversions at once")
    parser.add_argument("--candidates", type=int, default=400, help="callables per library")
    parser.add_argument("--max-tools", type=int, default=12)
    parser.add_argument("--max-concurrency", type=int, default=64, help="requests in flight")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per call")
    parser.add_argument("--scripted-delay", type=float, default=0.05, help="scripted: s/answer")
    parser.add_argument("--source", help="run whole conversions of this SOURCE instead")
    args = parser.parse_args()

    with ExitStack() as stack:
        base_url = args.base_url
        if base_url is None:
            sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
            from llm_server import ScriptedLLM, sensible

            base_url = stack.enter_context(ScriptedLLM(sensible(delay=args.scripted_delay))).url
        llm = LLMSettings(
            base_url=base_url,
            model=args.model,
            api_key=args.api_key,
            timeout=args.timeout,
            max_concurrency=args.max_concurrency,
            budget_seconds=max(args.timeout * 4, 300),
        )
        result = asyncio.run(bench(args, llm))
    print(
        f"{result['conversions']} conversions ({result['mode']}) in {result['seconds']} s, "
        f"{result['concurrency']} at once: {result['calls']} calls "
        f"({result['failed_calls']} failed), {result['tokens_in']} tokens in, "
        f"{result['tokens_out']} out"
    )
    print(
        f"{result['tokens_per_second']} tokens/s ({result['output_tokens_per_second']} output), "
        f"{result['conversions_per_hour']} conversions/hour"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
