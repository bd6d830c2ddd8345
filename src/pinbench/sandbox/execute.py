"""Run a program and its test with an environment's interpreter, sandboxed: on a warm server
when one can take it, else cold; graded from the proof record either way."""

from __future__ import annotations

from pathlib import Path

from pinbench.core.outcome import Execution, Limits
from pinbench.core.tests import TestSpec
from pinbench.sandbox.isolation import Isolation
from pinbench.sandbox.jobs import job_for
from pinbench.sandbox.probe import detect
from pinbench.sandbox.process import run_job
from pinbench.sandbox.warm import ServerBroken, WarmPools

BUILD_SCRATCH_BYTES = 4 << 30
BUILD_FILE_BYTES = 1 << 30
BUILD_PROCESSES = 256


def execute(
    python: Path,
    program: str,
    test: TestSpec,
    limits: Limits | None = None,
    isolation: Isolation | None = None,
    *,
    warm: WarmPools | None = None,
    preload: tuple[str, ...] = (),
    libraries: tuple[str, ...] = (),
) -> Execution:
    """Run `program` with `test` under `python`; the outcome is graded from the proof record.

    With `warm`, a warm server with `preload` imported forks the execution (same isolation and
    grading); if no server can take it, the cold path runs it instead. `libraries`: the pinned
    packages' top-level modules, whose values cross trusted grading's channel as copies.
    """
    limits = limits or Limits()
    if test.kind.builds:  # a build's objects and binaries: room in the scratch, big files
        limits = limits.model_copy(
            update={
                "tmpfs_bytes": max(limits.tmpfs_bytes, BUILD_SCRATCH_BYTES),
                "file_size_bytes": max(limits.file_size_bytes, BUILD_FILE_BYTES),
                "processes": max(limits.processes, BUILD_PROCESSES),
            }
        )

    def job() -> dict[str, object]:  # a fresh one per attempt: running a job takes its secret
        return {**job_for(program, test), "libraries": list(libraries)}

    if warm is not None:
        try:
            with warm.lease(python, preload) as server:
                return run_job(python, job(), limits, warm.isolation, server)
        except ServerBroken:
            warm.fallbacks += 1  # fall back to the cold path, the reference
    return run_job(python, job(), limits, isolation or detect())
