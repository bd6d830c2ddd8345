"""VersiCode's published files through pinbench: items read per file, and ISM/PM against
VersiCode's own metric scripts on whole files.

For every `*.json` under ROOT (VersiCode's completion and editing files, or copies of them
with model outputs added) it prints how many items pinbench reads out of how many the file
holds, and the reasons of any it cannot read. For every file whose items carry `model_output`
(a list, or the list's Python repr as VersiCode's scripts write it) it also scores those
outputs twice, per item and on the whole file:

  pinbench  the VersiCode task's own `score` on each raw output (answer extraction
            included), reduced by `expected_best_at_k`, as `pinbench run` does;
  versicode VersiCode's metric functions (`get_ISM`, `get_PM`, `get_score`; `compute_score_k`
            for tokens), taken from their evaluate_{token,line,block}.py in --scripts and run
            on this interpreter on the file's own cleared outputs (`model_output_*_clear`,
            what their clear_ans.py wrote), the references their scripts use.

and, with --run, replays the published file as it is through `pinbench run --task
completion|editing -d FILE -m replay:FILE --only <the scored items>` (replay reads
`model_output` itself; offline, nothing executed: VersiCode's items have no tests), and reports
the run summary's ISM/PM beside the others.

VersiCode's scripts are not part of pinbench: fetch them yourself (github.com/wutong8023/
VersiCode, util/evaluate/) and point --scripts at that directory. They read `tokenize`
output, so run this on CPython 3.8-3.11 for their side to mean what it meant to them.

Usage: uv run python bench/versicode_published.py [ROOT] [--scripts DIR] [--run] [--json OUT]
"""

from __future__ import annotations

import argparse
import ast
import collections
import functools
import json
import math
import subprocess
import sys
import tempfile
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pinbench.core.datasets import DatasetError
from pinbench.core.item import Item
from pinbench.metrics.passk import expected_best_at_k
from pinbench.tasks.versicode import loaders
from pinbench.tasks.versicode.metrics import NO_ANSWER, Variant, extract_answer
from pinbench.tasks.versicode.model import CompletionTask, EditDirection, EditTask, Granularity
from pinbench.tasks.versicode.task import Task, VersiCodeTask, item_of

TOLERANCE = 1e-9


def raw_items(path: Path) -> list[Any]:
    document = json.loads(path.read_text(encoding="utf-8-sig"))
    if isinstance(document, dict):
        document = document.get("data", [])
    return document if isinstance(document, list) else []


def item_id(path: Path, index: int, item: dict[str, Any]) -> str:
    """The task id pinbench gives an item: its `id`, else `<file stem>_<index>`."""
    return str(item.get("id") or "").strip() or f"{path.stem}_{index}"


def as_list(value: Any) -> list[str] | None:
    """A list of outputs as the files hold them: a JSON list, or its Python repr in a string."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def cleared(item: dict[str, Any]) -> list[str] | None:
    for key in sorted(item):
        if key.startswith("model_output") and key.endswith("_clear"):
            return as_list(item[key])
    return None


@functools.cache
def their_functions(scripts: Path, name: str) -> types.SimpleNamespace:
    """The imports and functions of one of VersiCode's evaluate_*.py, without its top-level
    code (which reads a hard-coded path)."""
    tree = ast.parse((scripts / name).read_text(encoding="utf-8"))
    kept: list[ast.stmt] = [
        n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom | ast.FunctionDef)
    ]
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module(body=kept, type_ignores=[]), str(scripts / name), "exec"), namespace)
    return types.SimpleNamespace(**namespace)


def their_reference(task: Task, item: dict[str, Any]) -> tuple[str, str]:
    """(answer_code, answer_name) as their scripts pick them for this kind of item."""
    if isinstance(task, EditTask):
        side = "new" if task.direction is EditDirection.OLD_TO_NEW else "old"
        return str(item[f"{side}_code"]), str(item[f"{side}_name"])
    if task.granularity is Granularity.BLOCK:  # the whole program, written from the description
        return str(item["code"]), str(item["answer"])
    return str(item["masked_line"]), str(item["answer"])


def their_scores(
    task: Task, item: dict[str, Any], outputs: list[str], scripts: Path, ks: Sequence[int]
) -> dict[str, dict[int, float]]:
    """VersiCode's own numbers for one item, metric -> k -> score."""
    if isinstance(task, CompletionTask) and task.granularity is Granularity.TOKEN:
        module = their_functions(scripts, "evaluate_token.py")
        return {"em": {k: float(module.compute_score_k(item["answer"], outputs, k)) for k in ks}}
    block = isinstance(task, EditTask) or task.granularity is Granularity.BLOCK
    module = their_functions(scripts, "evaluate_block.py" if block else "evaluate_line.py")
    if block:  # the block script strips fences once more before scoring
        outputs = [o.replace("```python", "").replace("```", "") for o in outputs]
    answer_code, answer_name = their_reference(task, item)
    ism = module.get_ISM(answer_code, outputs, answer_name)
    pm = module.get_PM(answer_code, outputs, answer_name)
    return {
        "ism": {k: float(module.get_score(ism, k)) for k in ks},
        "pm": {k: float(module.get_score(pm, k)) for k in ks},
    }


def our_scores(
    scenario: VersiCodeTask, task: Task, outputs: list[str], ks: Sequence[int]
) -> dict[str, dict[int, float]]:
    item: Item[Task] = item_of(task)
    rows = [scenario.score(item, text, None) for text in outputs]
    return {
        name: {k: expected_best_at_k([row[name] for row in rows], k) for k in ks}
        for name in ("em", "ism", "pm")
    }


def compare_file(
    path: Path, loaded: loaders.VersiCodeResult, scripts: Path | None, ks: Sequence[int]
) -> dict[str, Any] | None:
    """Per-item and whole-file scores of a file's model outputs, both ways."""
    items = raw_items(path)
    tasks: dict[str, Task] = {t.id: t for t in loaded.completion}
    tasks |= {t.id: t for t in loaded.editing}
    scored: list[tuple[Task, dict[str, Any], list[str], list[str] | None]] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or "model_output" not in item:
            continue
        raw = as_list(item["model_output"])
        task = tasks.get(item_id(path, index, item))
        if raw is None or task is None:
            continue
        scored.append((task, item, raw, cleared(item)))
    if not scored:
        return None
    n = min(len(raw) for _, _, raw, _ in scored)
    ks = [k for k in ks if k <= n] + ([n] if n not in ks else [])
    scenario = VersiCodeTask(variant=Variant.VERSICODE)
    extraction = collections.Counter[str]()
    ours: dict[str, dict[int, list[float]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    theirs: dict[str, dict[int, list[float]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    differing: dict[str, list[str]] = collections.defaultdict(list)
    for task, item, raw, clear in scored:
        mine = our_scores(scenario, task, raw, ks)
        for metric, by_k in mine.items():
            for k, value in by_k.items():
                ours[metric][k].append(value)
        if clear is not None:
            same = [extract_answer(text) == c for text, c in zip(raw, clear, strict=False)]
            extraction["same"] += sum(same)
            extraction["different"] += len(same) - sum(same)
            extraction["no_answer"] += sum(c == NO_ANSWER for c in clear)
        if scripts is not None and clear is not None:
            reference = their_scores(task, item, clear, scripts, ks)
            for metric, by_k in reference.items():
                for k, value in by_k.items():
                    theirs[metric][k].append(value)
                    if not math.isclose(mine[metric][k], value, abs_tol=TOLERANCE):
                        differing[f"{metric}@{k}"].append(task.id)
    result: dict[str, Any] = {
        "items_scored": len(scored),
        "samples_per_item": n,
        "extraction": dict(extraction),
        "pinbench": _means(ours),
    }
    if theirs:
        result["versicode"] = _means(theirs)
        result["items_differing"] = {key: ids for key, ids in differing.items()}
    return result


def _means(values: dict[str, dict[int, list[float]]]) -> dict[str, dict[int, float]]:
    return {
        metric: {k: math.fsum(v) / len(v) for k, v in by_k.items()}
        for metric, by_k in values.items()
    }


def replay_run(path: Path, ks: Sequence[int]) -> dict[str, Any]:
    """`pinbench run -d FILE -m replay:FILE` on the published file itself, restricted to the
    items with outputs; the summary's string scores."""
    items = {
        item_id(path, index, item): item
        for index, item in enumerate(raw_items(path))
        if isinstance(item, dict) and "model_output" in item
    }
    editing = any("old_code" in item for item in items.values())
    n = min(len(as_list(item["model_output"]) or []) for item in items.values())
    only = [arg for task_id in items for arg in ("--only", task_id)]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        out = root / "run.json"
        command = [
            sys.executable, "-m", "pinbench", "run",
            "--task", "editing" if editing else "completion",
            "-d", str(path), "-m", f"replay:{path}", *only,
            "-n", str(n), "-k", ",".join(str(k) for k in sorted({*ks, n}) if k <= n),
            "--results", str(root / "results"), "--json", str(out), "--no-execute",
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            return {"error": (done.stdout + done.stderr)[-2000:]}
        summary = json.loads(out.read_text())["summary"]["scores"]
    return {
        name: {entry["k"]: entry["mean"] for entry in summary["strings"][name]}
        for name in ("em", "ism", "pm")
        if name in summary["strings"]
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", type=Path, default=Path("/work/versicode"))
    parser.add_argument(
        "--scripts", type=Path, default=None, help="VersiCode's util/evaluate directory"
    )
    parser.add_argument("--run", action="store_true", help="also replay through `pinbench run`")
    parser.add_argument("-k", default="1,3", help="k values besides n (default 1,3)")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = parser.parse_args()
    ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    files = sorted(p for p in args.root.rglob("*.json") if "scripts" not in p.parts)
    report: dict[str, Any] = {}
    for path in files:
        try:
            total = len(raw_items(path))
            loaded = loaders.load(path)
        except (DatasetError, json.JSONDecodeError) as exc:
            print(f"{path}: unreadable: {exc}")
            report[str(path)] = {"error": str(exc)}
            continue
        read = len(loaded.completion) + len(loaded.editing)
        print(f"{path}: {read}/{total} items read")
        reasons = collections.Counter(issue.reason.split(": ", 1)[-1] for issue in loaded.issues)
        for reason, count in reasons.most_common():
            print(f"    {count:5d}  {reason}")
        entry: dict[str, Any] = {
            "read": read,
            "total": total,
            "issues": [str(i) for i in loaded.issues],
        }
        comparison = compare_file(path, loaded, args.scripts, ks)
        if comparison is not None:
            entry["scores"] = comparison
            _print_comparison(comparison)
            if args.run:
                entry["scores"]["pinbench_run"] = run = replay_run(path, ks)
                print(f"    pinbench run (replay): {json.dumps(run)}")
        report[str(path)] = entry
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")


def _print_comparison(comparison: dict[str, Any]) -> None:
    n = comparison["samples_per_item"]
    print(f"    model outputs: {comparison['items_scored']} items x {n} samples")
    if comparison["extraction"]:
        print(f"    extraction vs the file's cleared outputs: {comparison['extraction']}")
    theirs = comparison.get("versicode", {})
    for metric, by_k in comparison["pinbench"].items():
        for k, value in by_k.items():
            line = f"    {metric.upper()}@{k}: pinbench {value:.6f}"
            if metric in theirs:
                other = theirs[metric][k]
                line += f"  versicode {other:.6f}  |diff| {abs(value - other):.2e}"
                bad = comparison["items_differing"].get(f"{metric}@{k}", [])
                line += f"  items differing {len(bad)}"
            print(line)


if __name__ == "__main__":
    main()
