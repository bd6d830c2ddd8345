"""The one way the rest of pinbench runs a program: outcome cache first, then a warm server
(falling back to the cold path), always sandboxed. Owns the pools and the cache for a run."""

from __future__ import annotations

import os

from pinbench.envs.builder import Environment
from pinbench.paths import cache_root
from pinbench.problems.model import TestSpec
from pinbench.sandbox.executor import execute
from pinbench.sandbox.isolation import Isolation, detect
from pinbench.sandbox.outcome import Execution, Limits
from pinbench.sandbox.warm import WarmPools
from pinbench.store.outcomes import OutcomeCache, outcome_key


def default_jobs() -> int:
    """Concurrent executions unless told otherwise: one more than there are cores. A warm
    execution passes from the host to its server, its child and back; with only one per core,
    cores sit idle at each hand-off (2 cores: 93-95 % busy with 2, 97-98 % with 3; median 280
    vs 298 executions/s, `bench/throughput.py --sweep 2,3`)."""
    return (os.cpu_count() or 2) + 1


class ExecutionService:
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

    def run(
        self,
        env: Environment,
        program: str,
        test: TestSpec,
        limits: Limits,
        preload: tuple[str, ...] = (),
    ) -> Execution:
        key = outcome_key(env.key, program, test, limits, self.isolation.level)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        result = execute(
            env.python, program, test, limits, self.isolation, warm=self.pools, preload=preload
        )
        if self.cache is not None:
            self.cache.put(key, env.key, result)
        return result

    def stats(self) -> dict[str, int]:
        pools = self.pools
        return {
            "cache_hits": self.cache.hits if self.cache else 0,
            "cache_misses": self.cache.misses if self.cache else 0,
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
