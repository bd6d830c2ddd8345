"""ExecutionService: outcome cache first, warm servers next, cold path as the fallback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import ensure
from pinbench.execution.base import EnvHandle
from pinbench.execution.local import ExecutionService, LocalExecutor
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import env_spec_for
from pinbench.validation import preload_for

pytestmark = pytest.mark.integration

TEST = TestSpec(kind=TestKind.SCRIPT, code="assert f() == 2")
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "problems.jsonl"


def test_outcomes_are_cached_by_program_test_and_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = ensure(EnvSpec(version="3.11", pins=("pytest==8.3.4",)))
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path))  # a fresh cache; envs stay where built
    service = ExecutionService(jobs=1, warm=False)
    limits = Limits(wall_seconds=10)
    first = service.run(env, "def f():\n    return 2\n", TEST, limits)
    again = service.run(env, "def f():\n    return 2\n", TEST, limits)
    assert first.status is Status.PASSED and not first.cached
    assert again.cached and again.status is Status.PASSED
    other_program = service.run(env, "def f():\n    return 3\n", TEST, limits)
    other_limits = service.run(env, "def f():\n    return 2\n", TEST, Limits(wall_seconds=11))
    assert not other_program.cached and other_program.status is Status.FAILED
    assert not other_limits.cached
    assert service.stats()["cache_hits"] == 1
    service.close()


def test_infrastructure_outcomes_are_not_cached(tmp_path: Path) -> None:
    from pinbench.core.outcome import Execution
    from pinbench.execution.cache import OutcomeCache

    cache = OutcomeCache(tmp_path / "o.sqlite")
    cache.put("k", "env", Execution(status=Status.HARNESS_ERROR))
    cache.put("j", "env", Execution(status=Status.FAILED, exc_type="AssertionError"))
    assert cache.get("k") is None
    hit = cache.get("j")
    assert hit is not None and hit.exc_type == "AssertionError"


def test_a_verdict_reached_by_other_grading_code_is_not_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass cached before a fix to the runner or the grader (one the fix would refuse) is not
    served after it: the key carries a digest of the grading code's own files."""
    from pinbench.execution import cache as cache_module
    from pinbench.sandbox.grade import grading_digest

    assert len(grading_digest()) == 16
    cache = cache_module.OutcomeCache(tmp_path / "o.sqlite")
    test = TestSpec(kind=TestKind.SCRIPT, code="assert f() == 1")
    limits = Limits(wall_seconds=5)
    cache.keep("env", "def f(): return 1", test, limits, "full", Execution(status=Status.PASSED))
    assert cache.find("env", "def f(): return 1", test, limits, ["full"]) is not None
    monkeypatch.setattr(cache_module, "grading_digest", lambda: "another-grader00")
    assert cache.find("env", "def f(): return 1", test, limits, ["full"]) is None
    cache.close()


def test_the_local_executor_prepares_a_handle_that_preloads_what_validate_would() -> None:
    """Ray nodes send back only the handle: what it preloads must be what a local run would."""
    problem = next(p for p in load_dataset(SAMPLE).problems if p.library == "packaging")
    executor = LocalExecutor(1, service=ExecutionService(jobs=1, cache=False))

    async def go() -> tuple[EnvHandle, Execution]:
        handle = await executor.prepare(env_spec_for(problem))
        limits = Limits(wall_seconds=10)
        return handle, await executor.run(handle, problem.solution, problem.hidden_test, limits)

    try:
        handle, result = asyncio.run(go())
    finally:
        executor.close()
    assert handle.environment is not None and handle.key == handle.environment.key
    pinned = preload_for(handle.environment, problem)
    assert handle.modules == pinned == ("packaging",)  # no test of it runs under pytest
    assert result.status is Status.PASSED
