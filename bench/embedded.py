"""Embedded model throughput: completion tokens/s with 1..P llama.cpp slots at 1 thread, and
with 1..R servers (replicas) of P slots each, alternating so both see the same machine.

uv run python bench/embedded.py [--model qwen-0.5b] [--requests 8] [--parallel 1,2,4]
uv run python bench/embedded.py --requests 16 --parallel 4 --replicas 1,2 --rounds 2
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
    parser.add_argument("--replicas", default="1")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for replicas in (int(r) for r in args.replicas.split(",")):
            for parallel in (int(p) for p in args.parallel.split(",")):
                started = time.monotonic()
                model = EmbeddedModel.named(
                    args.model, threads=1, parallel=parallel, replicas=replicas
                )
                load = time.monotonic() - started
                seconds, tokens = await _measure(model, args.requests)
                await model.aclose()
                print(
                    f"{args.model} replicas={replicas} parallel={parallel}: load {load:.1f} s, "
                    f"{args.requests} requests, {tokens} tokens in {seconds:.1f} s = "
                    f"{tokens / seconds:.1f} tok/s, {args.requests / seconds:.2f} req/s"
                )


if __name__ == "__main__":
    asyncio.run(main())
