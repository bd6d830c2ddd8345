"""IDE cases on a Ray cluster: a node without the repository snapshot gets it from the driver,
and repository tests give the same outcomes as on the local executor."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from pinbench.core import snapshots
from pinbench.core.outcome import Limits
from pinbench.execution.base import Executor
from pinbench.execution.local import ExecutionService, LocalExecutor
from pinbench.execution.ray.executor import RayExecutor
from pinbench.execution.ray.node import NodeWorker
from pinbench.tasks.ide.build import build_repo
from pinbench.tasks.ide.cases import GenerateCase, Kind
from pinbench.tasks.ide.collect import collect
from pinbench.tasks.ide.selection import Context, Quotas
from pinbench.tasks.ide.task import IdeTask, item_of
from tests.distributed.conftest import add_node
from tests.ide.conftest import write_repo

pytestmark = pytest.mark.integration

GOOD = (
    "```python\nif min(width, height) < 0:\n    raise ValueError('negative')\n"
    "return width * height\n```"
)
WRONG = "```python\nreturn width * height\n```"


def _generate_case(tmp_path: Path) -> GenerateCase:
    service = ExecutionService(jobs=1)
    try:
        build, env = build_repo(write_repo(tmp_path / "shapes"), service)
        context = Context(build, env, snapshots.load(build.snapshot), service, Quotas())
        cases = collect(context, [Kind.GENERATE]).cases
    finally:
        service.close()
    return next(c for c in cases if isinstance(c, GenerateCase) and c.qualname == "area")


async def _outcomes(executor: Executor, case: GenerateCase) -> list[str]:
    task, item = IdeTask(), item_of(case)
    assert item.hidden_test is not None
    handle = await executor.prepare(case.env)
    programs = [task.program(item, answer) for answer in (GOOD, WRONG, "```python\nreturn (\n```")]
    runs = [
        executor.run(handle, program, item.hidden_test, Limits(wall_seconds=30), ("pytest",))
        for program in programs
    ]
    return [r.status.value for r in await asyncio.gather(*runs)]


def test_repository_tests_get_the_same_outcomes_on_ray_as_locally(
    cluster: Any, tmp_path: Path
) -> None:
    case = _generate_case(tmp_path)
    local = LocalExecutor(jobs=1)
    try:
        expected = asyncio.run(_outcomes(local, case))
    finally:
        local.close()
    assert expected == ["passed", "failed", "syntax_error"]
    remote = RayExecutor(cluster.address, cache=False)
    try:
        assert asyncio.run(_outcomes(remote, case)) == expected
    finally:
        remote.close()


def test_a_node_without_the_snapshot_receives_it(cluster: Any, tmp_path: Path) -> None:
    case = _generate_case(tmp_path)
    node = add_node(cluster, home=tmp_path / "fresh-home")
    ray.init(address=cluster.address, ignore_reinit_error=True)
    try:
        affinity = NodeAffinitySchedulingStrategy(node_id=node.node_id, soft=False)
        worker = NodeWorker.options(scheduling_strategy=affinity).remote(1)  # type: ignore[attr-defined]
        prepared = ray.get(worker.prepare.remote(case.env))
        assert prepared.handle is not None, prepared.error
        item = item_of(case)
        assert item.hidden_test is not None
        job = (case.env, prepared.handle.key, item.reference, item.hidden_test,
               Limits(wall_seconds=30), ("pytest",))  # fmt: skip
        [missing] = ray.get(worker.run.remote([job]))
        assert missing.status.value == "harness_error" and case.snapshot in missing.message
        ray.get(worker.add_snapshot.remote(case.snapshot, snapshots.archive_bytes(case.snapshot)))
        assert (tmp_path / "fresh-home" / "repos" / case.snapshot).is_dir()
        [result] = ray.get(worker.run.remote([job]))
        assert result.status.value == "passed", result.message
        ray.get(worker.close.remote())
    finally:
        ray.shutdown()
        cluster.remove_node(node)
