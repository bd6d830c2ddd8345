"""Embedded model throughput: completion tokens/s with 1..P llama.cpp slots at 1 thread.

uv run python bench/embedded.py [--model qwen-0.5b] [--requests 8] [--parallel 1,2,4]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from pinbench.models.base import Message, Request, Sampling
from pinbench.models.embedded import EmbeddedModel

TASKS = [
    "Write a Python function that returns the n-th Fibonacci number.",
    "Write a Python function that parses an ISO date string with datetime.",
    "Write a numpy function that normalises each row of a matrix to unit length.",
    "Write a pandas function that returns the mean of every numeric column.",
]


async def _measure(model: EmbeddedModel, requests: int) -> tuple[float, int]:
    started = time.monotonic()
    batch = [
        Request(
            problem_id=f"p{i}",
            sample=i,
            messages=(Message(role="user", content=TASKS[i % len(TASKS)]),),
            sampling=Sampling(temperature=0.8, max_tokens=256, seed=i),
        )
        for i in range(requests)
    ]
    results = await asyncio.gather(*(model.generate(r) for r in batch))
    errors = [g.error for g in results if g.error]
    if errors:
        raise SystemExit(f"generation failed: {errors[0]}")
    return time.monotonic() - started, sum(g.completion_tokens or 0 for g in results)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="qwen-0.5b")
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--parallel", default="1,2,4")
    args = parser.parse_args()
    for parallel in (int(p) for p in args.parallel.split(",")):
        started = time.monotonic()
        model = EmbeddedModel.named(args.model, threads=1, parallel=parallel)
        load = time.monotonic() - started
        seconds, tokens = await _measure(model, args.requests)
        await model.aclose()
        print(
            f"{args.model} parallel={parallel}: load {load:.1f} s, {args.requests} requests, "
            f"{tokens} tokens in {seconds:.1f} s = {tokens / seconds:.1f} tok/s, "
            f"{args.requests / seconds:.2f} req/s"
        )


if __name__ == "__main__":
    asyncio.run(main())
