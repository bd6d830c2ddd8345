"""The harness's generation bookkeeping: requests/s of `pinbench run --no-execute` (prompt
building, generation cache lookup, HTTP, extraction, SQLite commits) against an
OpenAI-compatible server that answers instantly, in a child process.

Usage: uv run python bench/run_overhead.py [--n 40] [--runs 3]
Each run uses a fresh store, so every request really goes to the server.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.models.fault_server

from tests.models.fault_server import spawn_server

from pinbench.evaluation.config import RunConfig
from pinbench.evaluation.runner import Runner
from pinbench.models.openai import OpenAICompatible
from pinbench.store.runs import RunStore
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.task import GenerationTask, item_of


async def one_run(url: str, n: int, store_dir: Path) -> tuple[float, int]:
    problems = load_dataset(Path("builtin")).problems
    config = RunConfig(model="openai:bench", n=n, temperature=0.8, execute=False)
    model = OpenAICompatible(base_url=url, model="bench", api_key="", concurrency=64)
    store = RunStore(store_dir / "pinbench.sqlite")
    try:
        started = time.perf_counter()
        items = [item_of(p) for p in problems]
        summary = await Runner(config, items, model, store, None, task=GenerationTask()).run()
        seconds = time.perf_counter() - started
    finally:
        await model.aclose()
        store.close()
    if summary.requests["errors"]:
        raise SystemExit(f"{summary.requests['errors']} requests failed")
    return seconds, summary.requests["asked"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40, help="samples per problem (120 problems)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rates = []
    with spawn_server() as url:
        for run in range(1, args.runs + 1):
            with tempfile.TemporaryDirectory() as tmp:
                seconds, asked = asyncio.run(one_run(url, args.n, Path(tmp)))
            rates.append(asked / seconds)
            print(f"run {run}: {asked} requests in {seconds:.2f} s = {asked / seconds:.0f} req/s")
    print(f"median over {args.runs} runs: {statistics.median(rates):.0f} requests/s")


if __name__ == "__main__":
    main()
