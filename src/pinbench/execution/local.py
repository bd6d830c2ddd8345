"""This machine's executions: outcome cache first, then a warm server (falling back to the cold
path), always sandboxed. `ExecutionService` is the synchronous core (validate, drift, mine and
the IDE tools call it from their threads); `LocalExecutor` is the run's async `Executor` over it,
with its own pools of build and execution threads."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pinbench.envs as envs
from pinbench.core.env import Environment, EnvSpec
from pinbench.core.outcome import Execution, Limits
from pinbench.core.paths import cache_root
from pinbench.core.tests import TestSpec
from pinbench.execution.base import EnvHandle, handle_for
from pinbench.execution.cache import OutcomeCache
from pinbench.sandbox.execute import execute
from pinbench.sandbox.isolation import Isolation
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools


def default_jobs() -> int:
    """Concurrent executions unless told otherwise: one more than there are cores. A warm
    execution passes from the host to its server, its child and back; with only one per core,
    cores sit idle at each hand-off (2 cores: 93-95 % busy with 2, 97-98 % with 3; median 280
    vs 298 executions/s, `bench/throughput.py --sweep 2,3`)."""
    return (os.cpu_count() or 2) + 1


class ExecutionService:
    """Owns a run's warm pools and outcome cache; thread-safe. A context manager."""

    def __init__(
        self,
        *,
        jobs: int = 2,
        warm: bool = True,
        cache: bool = True,
        isolation: Isolation | None = None,
    ) -> None:
        self.isolation = isolation or detect()
        self.pools = WarmPools(self.isolation, per_env=max(1, jobs)) if warm else None
        self.cache = OutcomeCache(cache_root() / "outcomes.sqlite") if cache else None
        self._executed = itertools.count()  # executions run (not answered from the cache)
        self.executed = 0

    def run(
        self,
        env: Environment,
        program: str,
        test: TestSpec,
        limits: Limits,
        preload: tuple[str, ...] = (),
        fresh: bool = False,
    ) -> Execution:
        """`fresh`: executed whatever the outcome cache holds, and not kept in it."""
        level = self.isolation.level
        if self.cache is not None and not fresh:
            hit = self.cache.find(env.key, program, test, limits, [level])
            if hit is not None:
                return hit
        result = execute(
            env.interpreter,
            program,
            test,
            limits,
            self.isolation,
            warm=self.pools,
            preload=preload,
            libraries=env.preload(),
        )
        self.executed = next(self._executed) + 1  # itertools.count is atomic under threads
        if self.cache is not None and not fresh:
            self.cache.keep(env.key, program, test, limits, level, result)
        return result

    def stats(self) -> dict[str, int]:
        pools = self.pools
        return {
            "cache_hits": self.cache.hits if self.cache else 0,
            "cache_misses": self.cache.misses if self.cache else 0,
            "executed": self.executed,
            "warm_servers_started": pools.started if pools else 0,
            "warm_fallbacks": pools.fallbacks if pools else 0,
            "warm_peak_rss_bytes": pools.peak_rss_bytes if pools else 0,
        }

    def close(self) -> None:
        if self.pools is not None:
            self.pools.rss_bytes()  # record the peak before shutting down
            self.pools.close()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> ExecutionService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
        fresh: bool = False,
    ) -> Execution:
        assert env.environment is not None, "a handle from another executor"
        loop = asyncio.get_running_loop()
        call = functools.partial(
            self.service.run, env.environment, program, test, limits, preload, fresh
        )
        return await loop.run_in_executor(self._runners, call)

    def stats(self) -> dict[str, int]:
        return self.service.stats()

    def close(self) -> None:
        self._builders.shutdown(wait=True, cancel_futures=True)
        self._runners.shutdown(wait=True, cancel_futures=True)
        self.service.close()

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _prepare(spec: EnvSpec) -> EnvHandle:
    return handle_for(envs.ensure(spec))


def background_priority() -> None:
    """Builds run at a lower CPU priority (inherited by the uv and compile processes they
    start): on a small machine they would otherwise starve a local model's generation, which
    is what everything waits on."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
