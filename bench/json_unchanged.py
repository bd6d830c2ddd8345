"""Behaviour unchanged across a refactor: capture the `--json` documents of `validate`, `run`
and `report` on the quick split (reference and replay models, every task) with one checkout,
capture them again with another, and compare with timings, timestamps and cache counters
masked. Also reads a store written by the first checkout with the second (old runs still open).

    python bench/json_unchanged.py capture --tree OLD_CHECKOUT --out before
    python bench/json_unchanged.py capture --tree NEW_CHECKOUT --out after
    python bench/json_unchanged.py compare before after
    python bench/json_unchanged.py reread --tree NEW_CHECKOUT before   # old store, new code

Both captures share one PINBENCH_HOME (built environments); the outcome cache is removed before
each capture so every program is executed again."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

MASKED = {
    "seconds", "wall_seconds", "started_at", "created", "updated", "deadline", "resumed",
    "warm_peak_rss_bytes", "cache_hits", "cache_misses", "warm_servers_started",
    "warm_fallbacks", "requests", "reference_seconds",
}  # fmt: skip
REPLAY = "replay_input.jsonl"


def capture(tree: Path, out: Path, home: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (home / "outcomes.sqlite").unlink(missing_ok=True)
    env = {**os.environ, "PINBENCH_HOME": str(home), "COLUMNS": "120"}
    results = out / "results"

    def pinbench(*args: str) -> None:
        command = ["uv", "run", "--frozen", "pinbench", *args]
        subprocess.run(command, cwd=tree, env=env, check=False, capture_output=True)

    pinbench("validate", "builtin", "--split", "quick", "--json", str(out / "validate.json"))
    replay = _replay_input(env, out)
    for name, args in (
        ("ref", ["-m", "reference", "--split", "quick"]),
        ("replay", ["-m", f"replay:{replay}", "--split", "quick"]),
        ("replay_fb", ["-m", f"replay:{replay}", "--split", "quick", "--feedback-rounds", "1"]),
        ("completion", ["-m", "reference", "--task", "completion", "--split", "quick"]),
        ("editing", ["-m", "reference", "--task", "editing", "--split", "quick"]),
        ("ide", ["-m", "reference", "--task", "ide", "-d", "builtin"]),
    ):
        run_json, report_json = out / f"run_{name}.json", out / f"report_{name}.json"
        pinbench("run", *args, "--results", str(results), "--json", str(run_json))
        pinbench("report", "latest", "--results", str(results), "--json", str(report_json))


def _replay_input(env: dict[str, str], out: Path) -> Path:
    """Answers for the quick split: a quarter exit early, a quarter do not parse, half are the
    reference (so feedback rounds, failures and passes all occur). Written by this checkout,
    so both captures replay the same file."""
    path = out.parent / REPLAY  # one path for both captures: it is part of the run id
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from pinbench.tasks.generation.loaders import load_dataset\n"
        "from pinbench.tasks.generation.splits import select_split\n"
        "rows = []\n"
        "for i, p in enumerate(select_split(load_dataset(Path('builtin')).problems, 'quick')):\n"
        "    answer = ['import sys\\nsys.exit(3)\\n', 'def broken(:\\n'][i % 4] if i % 4 < 2 "
        "else p.solution\n"
        "    rows.append(json.dumps({'problem_id': p.id, 'response': answer}))\n"
        "Path(sys.argv[1]).write_text('\\n'.join(rows) + '\\n')\n"
    )
    command = ["uv", "run", "--frozen", "python", "-c", code, str(path)]
    here = Path(__file__).resolve().parent.parent
    subprocess.run(command, cwd=here, env=env, check=True, capture_output=True)
    return path


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        masked = {k: "<masked>" if k in MASKED else _mask(v) for k, v in value.items()}
        if isinstance(masked.get("model_errors"), list):  # ties arrive in any order
            masked["model_errors"].sort(key=lambda e: (-e["samples"], e["kind"]))
        return masked
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return round(value, 9) if isinstance(value, float) else value


def _diff(a: Any, b: Any, where: str = "") -> list[str]:
    if type(a) is not type(b):
        return [f"{where}: {a!r:.80} != {b!r:.80}"]
    if isinstance(a, dict):
        found = [f"{where}.{k}: on one side only" for k in set(a) ^ set(b)]
        for key in a.keys() & b.keys():
            found += _diff(a[key], b[key], f"{where}.{key}")
        return found
    if isinstance(a, list):
        found = [f"{where}: {len(a)} != {len(b)} entries"] if len(a) != len(b) else []
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found += _diff(x, y, f"{where}[{i}]")
        return found
    return [] if a == b else [f"{where}: {a!r:.100} != {b!r:.100}"]


def compare(before: Path, after: Path) -> int:
    differences = 0
    for old in sorted(before.glob("*.json")):
        new = after / old.name
        if not new.exists():
            print(f"{old.name}: missing in {after}")
            differences += 1
            continue
        found = _diff(_mask(json.loads(old.read_text())), _mask(json.loads(new.read_text())))
        differences += len(found)
        print(f"{old.name}: {'identical' if not found else f'{len(found)} differences'}")
        for line in sorted(found)[:12]:
            print("   ", line)
    return differences


def reread(tree: Path, before: Path, home: Path) -> int:
    """Every run stored by the first checkout, reported by the second: its report must be the
    one the first wrote."""
    env = {**os.environ, "PINBENCH_HOME": str(home), "COLUMNS": "120"}
    store = before / "results" / "pinbench.sqlite"
    runs = [row[0] for row in sqlite3.connect(store).execute("SELECT id FROM runs")]
    differences = 0
    for report in sorted(before.glob("report_*.json")):
        run_id = json.loads(report.read_text())["run_id"]
        if run_id not in runs:
            continue
        out = before.parent / f"reread_{report.name}"
        command = ["uv", "run", "--frozen", "pinbench", "report", run_id, "--json", str(out)]
        command += ["--results", str(before / "results")]
        subprocess.run(command, cwd=tree, env=env, check=False, capture_output=True)
        found = _diff(_mask(json.loads(report.read_text())), _mask(json.loads(out.read_text())))
        differences += len(found)
        print(f"{report.name} re-read: {'identical' if not found else f'{len(found)} differences'}")
    return differences


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--home", type=Path, default=Path(os.environ.get("PINBENCH_HOME", ".pinbench"))
    )
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("capture")
    one.add_argument("--tree", type=Path, required=True)
    one.add_argument("--out", type=Path, required=True)
    two = commands.add_parser("compare")
    two.add_argument("before", type=Path)
    two.add_argument("after", type=Path)
    three = commands.add_parser("reread")
    three.add_argument("--tree", type=Path, required=True)
    three.add_argument("before", type=Path)
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.tree.resolve(), args.out.resolve(), args.home.resolve())
        return 0
    if args.command == "compare":
        return 1 if compare(args.before, args.after) else 0
    return 1 if reread(args.tree.resolve(), args.before.resolve(), args.home.resolve()) else 0


if __name__ == "__main__":
    sys.exit(main())
