"""Where a run's executions happen, behind one interface: `local` (this machine's builder and
warm pools, as always) or `ray` (many machines: `pinbench.distributed`).

The interface takes an environment's *spec*, not a built environment, because on a cluster
the environment is built on the node that runs it; what comes back to the driver is an
`EnvHandle`: the content key and what a warm server should import. It is async because the
runner is, and because a cluster's results are awaited, not waited on in a thread each."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

from pinbench.envs.builder import Environment, ensure
from pinbench.envs.imports import pinned_modules
from pinbench.executions import ExecutionService
from pinbench.problems.model import EnvSpec, TestSpec
from pinbench.sandbox.outcome import Execution, Limits


@dataclass(frozen=True)
class EnvHandle:
    """An environment made ready for a spec, as the driver knows it: the content key (recorded
    with every sample), the top-level modules of its pinned distributions (what a warm server
    preloads), and the environment itself when it lives on this machine."""

    spec: EnvSpec
    key: str
    modules: tuple[str, ...]
    environment: Environment | None = field(default=None, compare=False)


def handle_for(env: Environment) -> EnvHandle:
    """Read once, where the environment is, what every later execution needs to know of it."""
    spec = env.resolution.spec
    return EnvHandle(spec, env.key, pinned_modules(env.path, spec.pins), env)


class Executor(Protocol):
    """Builds environments and runs programs in them. `prepare` raises `EnvError` (or any
    exception: recorded as the samples' environment outcome); `run` returns an outcome for
    every call, infrastructure faults included, and never raises for a program's behaviour."""

    name: str

    async def prepare(self, spec: EnvSpec) -> EnvHandle: ...

    async def run(
        self,
        env: EnvHandle,
        program: str,
        test: TestSpec,
        limits: Limits,
        preload: tuple[str, ...] = (),
    ) -> Execution: ...

    def stats(self) -> dict[str, int]: ...

    def close(self) -> None: ...


class LocalExecutor:
    """This machine: builds on `jobs` threads at a lower CPU priority, executions on `jobs`
    threads through the ExecutionService (outcome cache, warm pools, cold fallback)."""

    name = "local"

    def __init__(self, jobs: int = 2, *, service: ExecutionService | None = None) -> None:
        jobs = max(1, jobs)
        self.service = service or ExecutionService(jobs=jobs)
        self._builders = ThreadPoolExecutor(
            jobs, thread_name_prefix="build", initializer=background_priority
        )
        self._runners = ThreadPoolExecutor(jobs, thread_name_prefix="exec")

    async def prepare(self, spec: EnvSpec) -> EnvHandle:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._builders, _prepare, spec)

    async def run(
        self,
        env: EnvHandle,
        program: str,
        test: TestSpec,
        limits: Limits,
        preload: tuple[str, ...] = (),
    ) -> Execution:
        assert env.environment is not None, "a handle from another executor"
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._runners, self.service.run, env.environment, program, test, limits, preload
        )

    def stats(self) -> dict[str, int]:
        return self.service.stats()

    def close(self) -> None:
        self._builders.shutdown(wait=True, cancel_futures=True)
        self._runners.shutdown(wait=True, cancel_futures=True)
        self.service.close()


def _prepare(spec: EnvSpec) -> EnvHandle:
    return handle_for(ensure(spec))


def background_priority() -> None:
    """Builds run at a lower CPU priority (inherited by the uv and compile processes they
    start): on a small machine they would otherwise starve a local model's generation, which
    is what everything waits on."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
