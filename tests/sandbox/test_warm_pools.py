"""Warm pools: lazily started, bounded in number and memory, restarted when a server dies."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from pinbench.problems.model import TestKind, TestSpec
from pinbench.sandbox.executor import execute
from pinbench.sandbox.isolation import detect
from pinbench.sandbox.outcome import Status
from pinbench.sandbox.warm import WarmPools

pytestmark = pytest.mark.integration

TEST = TestSpec(kind=TestKind.SCRIPT, code="assert x == 1")


def _run(python: Path, pools: WarmPools, preload: tuple[str, ...] = ("json",)) -> str:
    result = execute(python, "x = 1", TEST, warm=pools, preload=preload)
    assert result.status is Status.PASSED, result
    return result.path


def test_pools_start_lazily_and_are_reused(env_python: Path) -> None:
    pools = WarmPools(detect(), per_env=1)
    assert pools.started == 0
    assert [_run(env_python, pools) for _ in range(5)] == ["warm"] * 5
    assert pools.started == 1
    pools.close()


def test_a_dead_server_is_replaced(env_python: Path) -> None:
    pools = WarmPools(detect(), per_env=1)
    _run(env_python, pools)
    (server,) = next(iter(pools._pools.values())).idle
    os.killpg(server.pid, signal.SIGKILL)
    server._proc.wait()
    results = [_run(env_python, pools) for _ in range(3)]
    assert results[-1] == "warm"  # the broken one was dropped and a fresh one started
    assert pools.started == 2
    pools.close()


def test_pools_are_bounded_in_number(env_python: Path) -> None:
    pools = WarmPools(detect(), per_env=1, max_pools=1)
    _run(env_python, pools, ("json",))
    (first,) = next(iter(pools._pools.values())).idle
    _run(env_python, pools, ("csv",))
    assert len(pools._pools) == 1
    assert first._proc.poll() is not None  # the least recently used pool was shut down
    pools.close()


def test_pools_are_bounded_in_memory(env_python: Path) -> None:
    pools = WarmPools(detect(), per_env=1, max_rss_bytes=1)
    _run(env_python, pools, ("json",))
    (first,) = next(iter(pools._pools.values())).idle
    _run(env_python, pools, ("csv",))
    assert len(pools._pools) == 1 and first._proc.poll() is not None
    assert pools.peak_rss_bytes > 1 << 20
    pools.close()


def test_close_stops_every_server(env_python: Path) -> None:
    pools = WarmPools(detect(), per_env=1)
    _run(env_python, pools)
    (server,) = next(iter(pools._pools.values())).idle
    pools.close()
    assert server._proc.poll() is not None


def test_an_environment_under_tmp_stays_importable_in_warm_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each child gets a fresh /tmp; an environment living under /tmp must be bound back into
    it, or lazy imports fail in warm children only (a clone under /tmp did exactly that)."""
    from pinbench.envs.builder import ensure
    from pinbench.paths import uv_cache_dir
    from pinbench.problems.model import EnvSpec

    monkeypatch.setenv("UV_CACHE_DIR", str(uv_cache_dir()))
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))  # pytest's tmp_path is in /tmp
    env = ensure(EnvSpec(python="3.11", pins=("pytest==8.3.4",)))
    assert str(env.python).startswith("/tmp/")
    pools = WarmPools(detect(), per_env=1)
    for _ in range(2):  # json preloaded; pytest imported lazily by the child
        result = execute(env.python, "import pytest\nx = 1", TEST, warm=pools, preload=("json",))
        assert result.status is Status.PASSED and result.path == "warm", result
    pools.close()
