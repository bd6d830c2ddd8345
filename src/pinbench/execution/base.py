"""Where a run's executions happen, behind one interface: `local` (this machine's builders and
warm pools) or `ray` (many machines: `pinbench.execution.ray`).

The interface takes an environment's *spec*, not a built environment, because on a cluster
the environment is built on the node that runs it; what comes back to the driver is an
`EnvHandle`: the content key and what a warm server should import. It is async because the
runner is, and because a cluster's results are awaited, not waited on in a thread each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from pinbench.core.env import Environment, EnvSpec
from pinbench.core.outcome import Execution, Limits
from pinbench.core.tests import TestSpec


@dataclass(frozen=True)
class EnvHandle:
    """An environment made ready for a spec, as the driver knows it: the content key (recorded
    with every sample), what a warm server preloads, and the environment itself when it lives
    on this machine."""

    spec: EnvSpec
    key: str
    modules: tuple[str, ...]
    environment: Environment | None = field(default=None, compare=False)


def handle_for(env: Environment) -> EnvHandle:
    """Read once, where the environment is, what every later execution needs to know of it."""
    return EnvHandle(env.spec, env.key, env.preload(), env)


class Executor(Protocol):
    """Builds environments and runs programs in them. `prepare` raises `EnvError` (or any
    exception: recorded as the samples' environment outcome); `run` returns an outcome for
    every call, infrastructure faults included, and never raises for a program's behaviour;
    `fresh` runs it again whatever an earlier outcome was (a flakiness check), recording nothing.
    Used as a context manager: leaving it stops its pools and closes its cache."""

    name: str

    async def prepare(self, spec: EnvSpec) -> EnvHandle: ...

    async def run(
        self,
        env: EnvHandle,
        program: str,
        test: TestSpec,
        limits: Limits,
        preload: tuple[str, ...] = (),
        fresh: bool = False,
    ) -> Execution: ...

    def stats(self) -> dict[str, int]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...
