"""Execute the reference answer of every generate and test case (test: where a reference test
file exists) of pinbench's shipped IDE repositories, fresh (not from the outcome cache): how
many pass (the target: all) and what an execution costs, per language and scenario. This is
the full check that the language test suites run on a sample of 4 per scenario.

    uv run python bench/ide_references.py --language cpp [--language java ...]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from pinbench.core import snapshots
from pinbench.core.outcome import Limits, Status
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.build import build_repo, languages
from pinbench.tasks.ide.cases import Kind, TestCase
from pinbench.tasks.ide.collect import builtin_repositories, collect
from pinbench.tasks.ide.selection import Context, Quotas
from pinbench.tasks.ide.task import IdeTask, item_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--language", action="append", required=True)
    args = parser.parse_args()
    task = IdeTask()
    seconds: dict[tuple[str, str], list[float]] = defaultdict(list)
    failed: list[str] = []
    with ExecutionService(jobs=2) as service:
        for path in builtin_repositories():
            if not {lang.value for lang in languages(snapshots.take(path))} & set(args.language):
                continue
            build, env = build_repo(path, service)
            context = Context(build, env, snapshots.load(build.snapshot), service, Quotas())
            for case in collect(context, [Kind.GENERATE, Kind.TEST]).cases:
                if isinstance(case, TestCase) and not case.reference:
                    continue
                item = item_of(case)
                assert item.hidden_test is not None
                program = task.program(item, task.reference_answer(item))
                started = time.perf_counter()
                done = service.run(
                    env, program, item.hidden_test, Limits(wall_seconds=600), (), fresh=True
                )
                seconds[(path.name, case.scenario.value)].append(time.perf_counter() - started)
                if done.status is not Status.PASSED:
                    failed.append(f"{case.id}: {done.status.value} {done.message[:200]}")
    print("| repository | scenario | executed | median s | total s |")
    print("|---|---|---|---|---|")
    for (repo, scenario), times in sorted(seconds.items()):
        print(
            f"| {repo} | {scenario} | {len(times)} | {statistics.median(times):.2f} "
            f"| {sum(times):.1f} |"
        )
    total = sum(len(t) for t in seconds.values())
    print(f"\n{total - len(failed)}/{total} references passed")
    for line in failed:
        print("FAILED", line)


if __name__ == "__main__":
    main()
