"""`--executor ray` on a real local cluster: the same outcomes as the local executor on the same
programs, nothing lost when a node is killed mid-run or when the driver is, one clear error for
a cluster that is not there, and a local model served from the cluster."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.core.outcome import Limits
from pinbench.evaluation.config import RunConfig
from pinbench.evaluation.runner import Runner
from pinbench.execution.base import Executor
from pinbench.execution.local import ExecutionService, LocalExecutor
from pinbench.execution.ray.executor import RayExecutor
from pinbench.models.base import Generation, Request
from pinbench.store.runs import RunStore
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Problem, env_spec_for
from pinbench.tasks.generation.task import GenerationTask, item_of
from tests.distributed.conftest import add_node
from tests.models.fault_server import FaultServer

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample" / "problems.jsonl"
IDS = ("packaging-22.0-01", "packaging-22.0-02", "packaging-22.0-03")
ONLY = [arg for pid in IDS for arg in ("--only", pid)]
# Builtin problems on four interpreters (3.6 to 3.13) with small environments.
BUILTIN = ("attrs-17.1-02", "jinja2-3.1-05", "click-8.2-10", "numpy-2.2-01")

pytestmark = pytest.mark.integration


def _sample() -> list[Problem]:
    return [p for p in load_dataset(SAMPLE).problems if p.id in IDS]


def _programs(problem: Problem) -> list[str]:
    """The reference, and programs that fail in each way a model's program can."""
    name = problem.starter_code.split("def ", 1)[1].split("(", 1)[0]
    programs = [
        problem.solution,
        f"def {name}(*args, **kwargs):\n    return 'wrong'\n",
        f"def {name}(:\n    pass\n",
        "import os\nos._exit(0)\n",
        "blob = bytearray(8 << 30)\n",
    ]
    if problem.id == BUILTIN[0]:
        programs.append("while True:\n    pass\n")
    return programs


async def _outcomes(executor: Executor, problems: list[Problem]) -> list[tuple[str, str | None]]:
    limits = Limits(wall_seconds=3)
    handles = await asyncio.gather(*(executor.prepare(env_spec_for(p)) for p in problems))
    runs = [
        executor.run(handle, program, problem.hidden_test, limits, handle.modules)
        for problem, handle in zip(problems, handles, strict=True)
        for program in _programs(problem)
    ]
    return [(r.status.value, r.exc_type) for r in await asyncio.gather(*runs)]


def test_the_same_programs_get_the_same_outcomes_as_on_the_local_executor(cluster: Any) -> None:
    problems = [p for p in load_dataset(Path("builtin")).problems if p.id in BUILTIN]
    assert len(problems) == len(BUILTIN)
    local = LocalExecutor(2, service=ExecutionService(jobs=2, cache=False))
    try:
        expected = asyncio.run(_outcomes(local, problems))
    finally:
        local.close()
    remote = RayExecutor(cluster.address, cache=False)
    try:
        assert len(remote.nodes) == 2
        got = asyncio.run(_outcomes(remote, problems))
        stats = remote.stats()
    finally:
        remote.close()
    assert got == expected
    statuses = {status for status, _ in got}
    assert {"passed", "failed", "syntax_error", "resource_limit", "timeout"} <= statuses
    assert stats["warm_servers_started"] >= len(problems)  # warm servers on the nodes


class SlowReference:
    """The reference solution, made to take `seconds` and to differ per sample (so that no
    two samples are the same execution)."""

    name = "slow-reference"

    def __init__(self, problems: list[Problem], seconds: float) -> None:
        self._solutions = {p.id: p.solution for p in problems}
        self._seconds = seconds

    async def generate(self, request: Request) -> Generation:
        program = f"import time\ntime.sleep({self._seconds})  # sample {request.sample}\n"
        text = f"```python\n{program}{self._solutions[request.problem_id]}\n```"
        return Generation(text=text, finish_reason="stop")

    async def aclose(self) -> None:
        return None


class HeldReference(SlowReference):
    """SlowReference whose samples from `first` on wait until `ready()`: the run's queue then
    grows again once that holds, whatever the machine's load did to the timing before."""

    def __init__(
        self, problems: list[Problem], seconds: float, first: int, ready: Any, wait: float
    ) -> None:
        super().__init__(problems, seconds)
        self._first, self._ready, self._wait = first, ready, wait

    async def generate(self, request: Request) -> Generation:
        if request.sample >= self._first:
            deadline = time.monotonic() + self._wait
            while not self._ready() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
        return await super().generate(request)


def test_a_node_killed_mid_run_loses_nothing(cluster: Any, tmp_path: Path) -> None:
    """The victim has a pinbench home of its own: it builds the environment itself when the
    queue grows, takes executions, and dies with some in flight; they run again elsewhere.

    Half of each problem's samples are asked for only once the victim's environment is built,
    so that executions are still queued when it can take them, however long its build took."""
    home = tmp_path / "victim-home"
    victim = add_node(cluster, home=home)
    problems = _sample()
    config = RunConfig(model="slow-reference", dataset=str(SAMPLE), n=16, temperature=0.8)
    executor = RayExecutor(cluster.address, cache=False)
    killed, finished, busy = threading.Event(), threading.Event(), threading.Event()

    def kill_when_busy() -> None:
        while not finished.is_set():
            if executor.in_flight().get(victim.node_id, 0):
                busy.set()
                break
            time.sleep(0.02)
        cluster.remove_node(victim, allow_graceful=False)  # SIGKILL: raylet and its workers
        killed.set()

    watcher = threading.Thread(target=kill_when_busy, daemon=True)
    store = RunStore(tmp_path / "pinbench.sqlite")
    try:
        assert len(executor.nodes) == 3
        watcher.start()

        def victim_built() -> bool:
            return any(home.glob("envs/*/pinbench-env.json"))

        model = HeldReference(problems, seconds=0.4, first=8, ready=victim_built, wait=240)
        items = [item_of(p) for p in problems]
        runner = Runner(config, items, model, store, executor, task=GenerationTask())
        summary = asyncio.run(runner.run())
        stats = executor.stats()
        samples = store.samples(summary.run_id)
    finally:
        finished.set()
        watcher.join(timeout=90)
        executor.close()
        store.close()
    assert killed.is_set()
    assert busy.is_set(), "the victim never took an execution"
    assert stats.get("nodes_lost") == 1 and stats["retries"] >= 1
    keys = [(s.problem_id, s.sample) for s in samples]
    assert len(keys) == len(set(keys)) == len(problems) * 16  # each recorded, and once
    assert {s.status for s in samples} == {"passed"}
    built = list((home / "envs").glob("*/pinbench-env.json"))
    assert [p.parent.name for p in built] == [samples[0].env_key]  # its own build, same key


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, ["run", "-d", str(SAMPLE), *ONLY, *args])


def test_the_executor_changes_neither_the_run_id_nor_the_outcomes(
    cluster: Any, tmp_path: Path
) -> None:
    documents = {}
    for executor in ("local", "ray"):
        out = tmp_path / f"{executor}.json"
        result = _invoke(
            "-m", "reference", "--executor", executor, "--ray-address", cluster.address,
            "--results", str(tmp_path / executor), "--json", str(out),
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        documents[executor] = json.loads(out.read_text())
    local, ray = documents["local"], documents["ray"]
    assert ray["summary"]["run_id"] == local["summary"]["run_id"]
    assert ray["samples"] == local["samples"]
    assert {s["outcome"] for s in ray["samples"]} == {"passed"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--executor", "ray", "--ray-address", "127.0.0.1:9"), "no Ray cluster answers at"),
        (("--executor", "ray", "--ray-address", "nowhere"), "is not `auto` or HOST:PORT"),
        (("--executor", "spark"), "unknown executor"),
        (("--generate-on-cluster",), "needs --executor ray"),
    ],
)
def test_a_cluster_that_is_not_there_is_one_clear_error(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    started = time.monotonic()
    result = _invoke("-m", "reference", "--results", str(tmp_path), *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert time.monotonic() - started < 15


def test_a_driver_killed_mid_run_resumes_and_repeats_nothing(cluster: Any, tmp_path: Path) -> None:
    results = tmp_path / "results"
    with FaultServer(delay=0.15) as server:
        cmd = [
            sys.executable, "-m", "pinbench", "run", "-d", str(SAMPLE), *ONLY,
            "-m", "openai:fake", "--base-url", server.url, "-n", "8", "-t", "0.8",
            "--concurrency", "2", "--executor", "ray", "--ray-address", cluster.address,
            "--results", str(results),
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
        process = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        db = results / "pinbench.sqlite"
        recorded, deadline = 0, time.monotonic() + 120
        while recorded < 8 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
            if db.exists():
                try:
                    with sqlite3.connect(db) as conn:
                        recorded = conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
                except sqlite3.OperationalError:
                    pass
        assert process.poll() is None, "the run finished before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait()
        with sqlite3.connect(db) as conn:
            before = conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
        finished = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stdout + finished.stderr
        assert "resumed" in finished.stdout
    with sqlite3.connect(db) as conn:
        counts = conn.execute("SELECT COUNT(*), COUNT(DISTINCT problem_id || sample) FROM samples")
        total, distinct = counts.fetchone()
        runs = conn.execute("SELECT status FROM runs").fetchall()
    assert 8 <= before < 24
    assert total == distinct == 24 and runs == [("finished",)]


def test_a_local_model_generates_from_the_cluster(cluster: Any, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    result = _invoke(
        "-m", "embedded:smollm2", "--only", IDS[0], "--max-tokens", "48", "--parallel", "1",
        "--executor", "ray", "--ray-address", cluster.address, "--generate-on-cluster",
        "--results", str(tmp_path), "--json", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["summary"]["model_name"].startswith("embedded:smollm2-135m-instruct@")
    assert document["summary"]["requests"]["asked"] == len(IDS)
    outcomes = {s["outcome"] for s in document["samples"]}
    assert not outcomes & {"model_error", "harness_error", "environment_error"}


def test_an_api_model_is_not_served_from_the_cluster(cluster: Any, tmp_path: Path) -> None:
    result = _invoke(
        "-m", "reference", "--executor", "ray", "--ray-address", cluster.address,
        "--generate-on-cluster", "--results", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 2
    assert "generates from the driver" in result.output and "Traceback" not in result.output


def test_a_node_on_another_pinbench_version_is_refused_by_name(
    cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pinbench.core import version
    from pinbench.execution.ray.cluster import ClusterError

    monkeypatch.setattr(version, "VERSION", "0.0.0-driver")
    with pytest.raises(ClusterError, match=r"runs pinbench .*this driver 0\.0\.0-driver"):
        RayExecutor(cluster.address)
