"""`pinbench view` on a run of 100 000 samples: median latency of the pages a person opens.

Usage: uv run python bench/view.py [--problems 5000] [--samples 20] [--repeat 20]
Synthesises a finished run (5000 problems × 20 samples, one sample in five that fails gets two
error-feedback rounds, 15 libraries, realistic prompts, programs and messages) in a temporary
results directory, starts the server on a free port and times, over HTTP from this process,
the first samples page, filtered pages, a page at offset 90 000, one sample, the run page's
summary (first call, then cached), the progress poll, the first plot, and the comparison of
the run with a second one like it (first call, then a page). `build_run` is also what
tests/view/test_large_run.py fills its store with.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pinbench.core.records import ItemMeta
from pinbench.evaluation.config import RunConfig, RunSummary
from pinbench.metrics.scores import score
from pinbench.store.runs import RunStore
from pinbench.view.server import ViewServer

LIBRARIES = [f"lib{i}" for i in range(15)]
CHANGES = ["argument_or_attribute_change", "function_name_change", "semantics_or_behaviour_change"]
ERRORS = ["AttributeError", "TypeError", "AssertionError", "NameError", None]
_COLUMNS = (
    "run_id, problem_id, seed, sample, round, generation_key, program, compiles, status,"
    " visible_status, exc_type, message, feedback, env_key, deadline, seconds, metrics, created"
)


def build_run(
    store: RunStore,
    problems: int,
    samples: int,
    *,
    text: int = 4,
    finish: bool = True,
    model: str = "openai:synthetic",
) -> str:
    """A synthetic run of problems × samples chains written in one transaction; `text` scales
    the prompts, programs and messages. Finished (with its summary) when `finish`."""
    rng = random.Random(model)
    config = RunConfig(
        model=model, dataset=f"synthetic-{problems}x{samples}", n=samples,
        k=(1, 10) if samples >= 10 else (1,), temperature=0.8, feedback_rounds=2,
    )  # fmt: skip
    run_id = config.run_id
    store.start_run(run_id, config.model_dump(mode="json"), model_name="synthetic")
    metas = [
        ItemMeta(
            id=f"p{i:05d}",
            library=LIBRARIES[i % len(LIBRARIES)],
            version=f"1.{i % 9}.0",
            release_date=f"{2016 + i % 10}-0{1 + i % 9}",
            change=CHANGES[i % len(CHANGES)],
            problem="Write a function that does something version specific. " * text,
            visible_test="assert f(1) == 2\n" * text,
            hidden_test="assert f(1) == 2\nassert f(2) == 3\n" * text,
        )
        for i in range(problems)
    ]
    store.record_problems(run_id, metas)
    sampling = {"temperature": 0.8, "top_p": 0.95, "top_k": 50, "max_tokens": 256, "stop": []}
    rows, generations, requests = [], [], []
    now = time.time()
    for meta in metas:
        difficulty = rng.random()
        for sample in range(samples):
            passed = rng.random() < difficulty
            rounds = 3 if not passed and sample % 5 == 0 else 1
            for round_ in range(rounds):
                ok = passed or (round_ == 2 and rng.random() < 0.5)
                error = None if ok else rng.choice(ERRORS)
                key = hashlib.sha256(f"{run_id}/{meta.id}/{sample}/{round_}".encode()).hexdigest()
                program = f"import lib\n\ndef f(x):\n    return lib.api(x) + {round_}\n" * text
                content = meta.problem + "\n```python\ndef f(x):\n```"
                if round_:
                    content += f"\nYour last program failed:\n{error}: no attribute 'api'"
                request = {
                    "problem_id": meta.id, "sample": sample, "round": round_, "mode": "chat",
                    "messages": [
                        {"role": "system", "content": "You are an expert programmer. " * text},
                        {"role": "user", "content": content},
                    ],
                    "prompt": "", "sampling": {**sampling, "seed": sample},
                }  # fmt: skip
                generations.append(
                    (key, "synthetic", json.dumps(request), f"```python\n{program}```", "stop",
                     100, 50, 0.5, 1, now)
                )  # fmt: skip
                requests.append((run_id, key, meta.id, sample, round_, 0, None, 0.5, 1, now))
                message = "" if ok else f"{error}: module 'lib' has no attribute 'api'\n" * text
                rows.append(
                    (run_id, meta.id, 0, sample, round_, key, program, 1,
                     "passed" if ok else "failed", "passed" if ok else "failed", error, message,
                     message if round_ < rounds - 1 else "", "env0", 10.0, 0.1, "{}", now)
                )  # fmt: skip
    db = store.connection
    db.execute("BEGIN")
    db.executemany(f"INSERT INTO samples ({_COLUMNS}) VALUES ({', '.join('?' * 18)})", rows)
    db.executemany(f"INSERT OR IGNORE INTO generations VALUES ({', '.join('?' * 10)})", generations)
    db.executemany(f"INSERT INTO requests VALUES ({', '.join('?' * 10)})", requests)
    db.execute("COMMIT")
    if finish:
        scores = score(store.samples(run_id), config.k, config.feedback_rounds, config.seeds)
        summary = RunSummary(
            run_id=run_id, model=config.model, model_name="synthetic", dataset=config.dataset,
            split="default", config=config, scores=scores,
            requests={"asked": len(requests), "cached": 0, "errors": 0}, wall_seconds=0.0,
            resumed=False,
        )  # fmt: skip
        store.finish_run(run_id, "finished", summary.model_dump(mode="json"))
    return run_id


def _get(connection: http.client.HTTPConnection, path: str) -> tuple[float, int, Any]:
    started = time.perf_counter()
    connection.request("GET", path, headers={"Host": "127.0.0.1"})
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - started
    if response.status != 200:
        raise SystemExit(f"{path}: HTTP {response.status} {body[:200]!r}")
    return elapsed, len(body), json.loads(body) if body.startswith(b"{") else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--problems", type=int, default=5000)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-compare", action="store_true", help="Skip the second run.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        with RunStore.at(Path(tmp)) as store:
            run_id = build_run(store, args.problems, args.samples)
            (records,) = store.connection.execute("SELECT COUNT(*) FROM samples").fetchone()
            other = None
            if not args.no_compare:
                other = build_run(store, args.problems, args.samples, model="openai:other")
        built = time.perf_counter() - started
        print(f"store: {args.problems * args.samples} samples a run ({records} records with "
              f"feedback rounds) built in {built:.1f} s")  # fmt: skip
        with ViewServer(Path(tmp) / "pinbench.sqlite").start() as server:
            connection = http.client.HTTPConnection("127.0.0.1", server.port)
            base = f"/api/runs/{run_id}"
            cold, size, _ = _get(connection, base)
            print(f"run summary, first call (SQL tallies): {1000 * cold:.0f} ms, {size} bytes")
            page = _get(connection, f"{base}/samples?limit=50")[2]["rows"]
            first = page[0]
            cases = {
                "first samples page (50 rows)": f"{base}/samples?limit=50",
                "filtered page (failed, q=p012, round 0)": f"{base}/samples?limit=50"
                "&outcome=failed&q=p012&round=0",
                "filtered page (library=lib3)": f"{base}/samples?limit=50&library=lib3",
                "page at offset 90 000": f"{base}/samples?limit=50&offset=90000",
                "one sample (3 rounds, diffs)": f"{base}/samples/{first['problem_id']}/0/0",
                "run summary (cached)": base,
                "progress poll": f"{base}/progress",
                "runs list": "/api/runs",
            }
            print(f"{'request':44} {'median ms':>10} {'p90 ms':>8} {'bytes':>8}")
            for name, path in cases.items():
                times, size = [], 0
                for _ in range(args.repeat):
                    elapsed, size, _ = _get(connection, path)
                    times.append(elapsed)
                times.sort()
                p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
                print(f"{name:44} {1000 * statistics.median(times):10.1f} {1000 * p90:8.1f} "
                      f"{size:8}")  # fmt: skip
            drawn = time.perf_counter()
            _get(connection, f"{base}/plots/0.svg")
            print(f"first plot (matplotlib, then cached): {time.perf_counter() - drawn:.2f} s")
            if other is not None:
                path = f"/api/compare/{run_id}/{other}?limit=50"
                cold = _get(connection, path)[0]
                warm = statistics.median(_get(connection, path)[0] for _ in range(args.repeat))
                print(
                    f"compare of two such runs: first call {cold:.1f} s (from both runs' "
                    f"tallies), then {1000 * warm:.1f} ms a page"
                )


if __name__ == "__main__":
    main()
