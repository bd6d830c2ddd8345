"""Re-validating an unchanged dataset with everything cached (environments, resolutions,
outcomes): the wall time of a whole `pinbench validate` process on 100 problems.

Usage: uv run python bench/revalidate.py [--problems 100]
The 100 problems are the 30-problem sample repeated under new ids (same pins, same code).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "problems.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--problems", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "problems.jsonl"
        with dataset.open("w") as fh:
            for i in range(args.problems):
                row = dict(rows[i % len(rows)], id=f"p{i:03d}")
                fh.write(json.dumps(row) + "\n")
        cmd = [sys.executable, "-m", "pinbench", "validate", str(dataset)]
        first = subprocess.run(cmd, capture_output=True, text=True)
        print(f"first run (fills the caches): exit {first.returncode}")
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True)
            times.append(time.perf_counter() - started)
            assert done.returncode == 0, done.stdout[-500:] + done.stderr[-500:]
        print(done.stderr.strip().splitlines()[-1])
        median = statistics.median(times)
        print(
            f"re-validate {args.problems} problems, all cached: median {median:.2f} s "
            f"over {args.runs} runs (whole process)"
        )


if __name__ == "__main__":
    main()
