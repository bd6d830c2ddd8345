"""Report generation for a run of 20 000 executions: time to build the HTML report and its size.

Usage: uv run python bench/report.py [--problems 1000] [--samples 20] [--runs 3]
Synthesises a recorded run (1000 problems × 20 samples, 15 libraries, realistic prompts,
programs and error messages) in a fresh store, then times `pinbench report RUN --html` in a
subprocess, whole process included.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pinbench.core.records import ItemMeta, SampleRecord
from pinbench.evaluation.config import RunConfig, RunSummary
from pinbench.metrics.scores import score
from pinbench.models.base import Generation, Message, Request, Sampling
from pinbench.store.runs import RunStore

LIBRARIES = [f"lib{i}" for i in range(15)]
CHANGES = ["argument_or_attribute_change", "function_name_change", "semantics_or_behaviour_change"]
ERRORS = ["AttributeError", "TypeError", "AssertionError", "NameError", None]


def synthesise(store: RunStore, problems: int, samples: int) -> str:
    rng = random.Random(0)
    config = RunConfig(model="openai:synthetic", n=samples, k=(1, 10), temperature=0.8)
    run_id = config.run_id
    store.start_run(run_id, config.model_dump(mode="json"), model_name="synthetic")
    metas = [
        ItemMeta(
            id=f"p{i:04d}",
            library=LIBRARIES[i % len(LIBRARIES)],
            version=f"1.{i % 9}.0",
            release_date=f"{2016 + i % 10}-0{1 + i % 9}",
            change=CHANGES[i % len(CHANGES)],
            problem="Write a function that does something version specific. " * 4,
            visible_test="assert f(1) == 2\n" * 3,
            hidden_test="assert f(1) == 2\nassert f(2) == 3\n" * 5,
        )
        for i in range(problems)
    ]
    store.record_problems(run_id, metas)
    difficulty = {m.id: rng.random() for m in metas}
    for meta in metas:
        for sample in range(samples):
            request = Request(
                problem_id=meta.id,
                sample=sample,
                messages=(
                    Message(role="system", content="You are an expert Python programmer. " * 6),
                    Message(role="user", content=meta.problem + "\n```python\ndef f(x):\n```" * 6),
                ),
                sampling=Sampling(temperature=0.8, seed=sample),
            )
            key = request.cache_key("synthetic")
            program = "import lib\n\ndef f(x):\n    return lib.api(x) + 1\n" * 4
            gen = Generation(text=f"```python\n{program}```", finish_reason="stop")
            store.record_generation(run_id, key, "synthetic", request, gen, cached=False)
            passed = rng.random() < difficulty[meta.id]
            error = None if passed else rng.choice(ERRORS)
            store.record_sample(
                run_id,
                SampleRecord(
                    problem_id=meta.id, seed=0, sample=sample, round=0, generation_key=key,
                    program=program, compiles=True, status="passed" if passed else "failed",
                    exc_type=error, message=f"{error}: module 'lib' has no attribute 'api'" * 3,
                ),
            )  # fmt: skip
    scores = score(store.samples(run_id), config.k, 0, 1)
    summary = RunSummary(
        run_id=run_id, model=config.model, model_name="synthetic", dataset="synthetic",
        split="default", config=config, scores=scores, requests={"asked": 0, "cached": 0,
        "errors": 0}, wall_seconds=0.0, resumed=False,
    )  # fmt: skip
    store.finish_run(run_id, "finished", summary.model_dump(mode="json"))
    return run_id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "pinbench.sqlite")
        run_id = synthesise(store, args.problems, args.samples)
        store.close()
        html = Path(tmp) / "report.html"
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "pinbench", "report", run_id, "--html", str(html),
                 "--results", tmp],
                check=True, capture_output=True,
            )  # fmt: skip
            times.append(time.perf_counter() - started)
        executions = args.problems * args.samples
        print(
            f"{executions} executions: report in {statistics.median(times):.2f} s "
            f"(median of {args.runs}: {', '.join(f'{t:.2f}' for t in times)}), "
            f"HTML {html.stat().st_size / 1e6:.2f} MB"
        )


if __name__ == "__main__":
    main()
