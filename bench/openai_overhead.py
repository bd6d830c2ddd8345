"""Client-side cost of `OpenAICompatible`: requests/s against a server that answers instantly.

Usage: uv run python bench/openai_overhead.py [--requests 5000] [--concurrency 64] [--runs 3]
The fault server runs in a child process, so the client has its own CPU; the client's CPU time
as a share of wall time says which side is the bottleneck (near 100%: the client).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.models.fault_server

from tests.models.fault_server import spawn_server

from pinbench.models.base import Message, Request
from pinbench.models.openai import OpenAICompatible


async def measure(url: str, requests: int, concurrency: int, runs: int) -> list[float]:
    batch = [
        Request(problem_id=f"p{i}", messages=(Message(role="user", content=f"task {i}\ndef f():"),))
        for i in range(requests)
    ]
    rates = []
    async with OpenAICompatible(
        base_url=url, model="bench", api_key="", concurrency=concurrency
    ) as model:
        await asyncio.gather(*(model.generate(r) for r in batch[:concurrency]))  # open connections
        for run in range(1, runs + 1):
            wall, cpu = time.perf_counter(), time.process_time()
            generations = await asyncio.gather(*(model.generate(r) for r in batch))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            failed = [g.error for g in generations if g.failed]
            if failed:
                raise SystemExit(f"{len(failed)} requests failed, e.g. {failed[0]}")
            rates.append(requests / wall)
            print(
                f"run {run}: {requests / wall:7.0f} requests/s, client CPU {cpu / wall:4.0%} of "
                f"wall, {cpu / requests * 1e6:.0f} µs CPU per request"
            )
    return rates


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with spawn_server() as url:
        rates = asyncio.run(measure(url, args.requests, args.concurrency, args.runs))
    print(
        f"median over {args.runs} runs of {args.requests} requests at concurrency "
        f"{args.concurrency}: {statistics.median(rates):.0f} requests/s"
    )


if __name__ == "__main__":
    main()
