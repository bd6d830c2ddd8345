"""The actor pinbench places on every Ray node: that node's environments (built there, from its
own uv cache, each key once) and its warm pools, behind the same ExecutionService a local run
uses. The outcome cache stays with the driver, so a node only ever runs what was not cached."""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import ray

from pinbench.core import snapshots, version
from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestSpec
from pinbench.envs import Environments
from pinbench.execution.base import EnvHandle, handle_for
from pinbench.execution.local import ExecutionService, background_priority

BUILDS = 2  # environments a node builds at once (uv is parallel itself; more does not help)
# One execution: (spec, environment key, program, test, limits, modules to preload).
Job = tuple[EnvSpec, str, str, TestSpec, Limits, tuple[str, ...]]


@dataclass(frozen=True)
class WorkerInfo:
    host: str
    pinbench: str
    isolation: str


@dataclass(frozen=True)
class Prepared:
    """A build's result, as data: an EnvError does not survive Ray's exception wrapping."""

    handle: EnvHandle | None
    error: str = ""
    log: str | None = None


@ray.remote(num_cpus=0, max_restarts=0, concurrency_groups={"build": BUILDS})  # type: ignore[call-overload]
class NodeWorker:
    """Builds run in their own concurrency group, so a long build never holds up executions of
    environments that are ready. Executions arrive in batches (several calls at once, the
    driver's `max_concurrency`) and share `jobs` threads, so a slot freed early in one batch
    takes work from the next."""

    def __init__(self, jobs: int) -> None:
        self.service = ExecutionService(jobs=jobs, cache=False)
        self.slots = ThreadPoolExecutor(jobs, thread_name_prefix="exec")
        self.envs = Environments()
        self.built = 0  # environments this node built (not found already on disk)

    def info(self) -> WorkerInfo:
        return WorkerInfo(socket.gethostname(), version.VERSION, self.service.isolation.level)

    @ray.method(concurrency_group="build")
    def prepare(self, spec: EnvSpec) -> Prepared:
        background_priority()
        env = self.envs.get(spec)
        if isinstance(env, Exception):
            log = str(env.log) if isinstance(env, EnvError) and env.log else None
            return Prepared(None, str(env) or type(env).__name__, log)
        self.built += not env.reused
        return Prepared(replace(handle_for(env), environment=None))

    def add_snapshot(self, digest: str, data: bytes) -> None:
        """A repository snapshot the driver's IDE cases run against (see `snapshots`)."""
        snapshots.restore(data, digest)

    def run(self, batch: list[Job]) -> list[Execution]:
        return list(self.slots.map(self._run, batch))

    def _run(self, job: Job) -> Execution:
        spec, key, program, test, limits, preload = job
        env = self.envs.get(spec)
        if isinstance(env, Exception) or env.key != key:
            why = str(env) if isinstance(env, Exception) else f"it resolves to {env.key}"
            return Execution(
                status=Status.ENVIRONMENT_ERROR,
                message=f"node {socket.gethostname()} has no environment {key}: {why}",
                limits=limits,
            )
        try:
            return self.service.run(env, program, test, limits, preload)
        except Exception as exc:  # this execution's harness fault, not its batch's
            message = f"{type(exc).__name__}: {exc}"
            return Execution(status=Status.HARNESS_ERROR, message=message, limits=limits)

    def stats(self) -> dict[str, int]:
        return {**self.service.stats(), "environments_built": self.built}

    def close(self) -> None:
        self.slots.shutdown(wait=True, cancel_futures=True)
        self.service.close()
