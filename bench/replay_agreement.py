"""Replay published GitChameleon 2.0 answers and compare pinbench's verdicts with the authors'.

The authors' results files (`*_eval_results.jsonl`) hold each answer with their harness's
verdict (`passed`: the hidden test). pinbench replays the same answers
(`pinbench run -m replay:FILE`), and this script counts agreement on the problems whose
reference pinbench validated as sound (a disagreement elsewhere is the environment's, not the
grader's), and lists every disagreement with pinbench's outcome.

Usage: uv run python bench/replay_agreement.py DATASET VALIDATE_JSON RESULTS.jsonl ...
(VALIDATE_JSON from `pinbench validate DATASET --json FILE`; PINBENCH_HOME shared with it so
the environments are reused.)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def authors_verdicts(path: Path) -> dict[str, bool]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {f"gc2-{row['example_id']}": _verdict(row["passed"]) for row in rows}


def _verdict(value: object) -> bool:
    """The published files write their verdicts as JSON booleans or as "True"/"False"."""
    return value is True or str(value).strip().lower() == "true"


def replay(dataset: str, results: Path) -> dict[str, dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        cmd = [sys.executable, "-m", "pinbench", "run", "-m", f"replay:{results}"]
        cmd += ["-d", dataset, "--json", str(out), "--results", tmp]
        subprocess.run(cmd, capture_output=True, text=True, check=False)
        doc = json.loads(out.read_text())
    return {str(s["problem_id"]): s for s in doc["samples"] if s["round"] == 0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset")
    parser.add_argument("validate_json", type=Path)
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    problems = json.loads(args.validate_json.read_text())["problems"]
    sound = {str(p["id"]) for p in problems if p["verdict"] == "sound"}
    for results in args.results:
        theirs = authors_verdicts(results)
        ours = replay(args.dataset, results)
        shared = sorted(sound & theirs.keys() & ours.keys())
        agree = [i for i in shared if bool(ours[i]["passed"]) == theirs[i]]
        print(f"{results.name}: agree {len(agree)}/{len(shared)} on problems with sound refs")
        for problem_id in shared:
            if bool(ours[problem_id]["passed"]) != theirs[problem_id]:
                sample = ours[problem_id]
                print(
                    f"  {problem_id}: authors {'pass' if theirs[problem_id] else 'fail'}, "
                    f"pinbench {sample['outcome']} {sample.get('exc_type') or ''}"
                )


if __name__ == "__main__":
    main()
