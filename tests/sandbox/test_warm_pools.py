"""Warm pools: lazily started, bounded in number and memory, restarted when a server dies."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from pinbench.core.outcome import Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.sandbox.execute import execute
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools

pytestmark = pytest.mark.integration

TEST = TestSpec(kind=TestKind.SCRIPT, code="assert x == 1")
TEST_TRUE = TestSpec(kind=TestKind.SCRIPT, code="assert True")


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
    from pinbench.core.env import EnvSpec
    from pinbench.core.paths import uv_cache_dir
    from pinbench.envs.python.builder import ensure

    monkeypatch.setenv("UV_CACHE_DIR", str(uv_cache_dir()))
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))  # pytest's tmp_path is in /tmp
    env = ensure(EnvSpec(version="3.11", pins=("pytest==8.3.4",)))
    assert str(env.python).startswith("/tmp/")
    pools = WarmPools(detect(), per_env=1)
    for _ in range(2):  # json preloaded; pytest imported lazily by the child
        result = execute(env.python, "import pytest\nx = 1", TEST, warm=pools, preload=("json",))
        assert result.status is Status.PASSED and result.path == "warm", result
    pools.close()


def _server_pid(pools: WarmPools) -> int:
    """The server itself: the child of the process the pool started (its pid namespace's 1)."""
    (server,) = next(iter(pools._pools.values())).idle
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    return int(children[0]) if children else server.pid


def test_each_execution_gets_fresh_scratch_without_the_server_accumulating_mounts(
    env_python: Path,
) -> None:
    """The server renews the next child's namespaces between executions: nothing a program
    left in /tmp, /var/tmp or /dev/shm reaches the next one, and the server's mount table
    stays the same size (a copy of the last namespace would stack a layer per execution)."""
    pools = WarmPools(detect(), per_env=1)
    program = (
        "import glob, os\n"
        "left = [p for d in ('/tmp', '/var/tmp', '/dev/shm') for p in glob.glob(d + '/left*')]\n"
        "for d in ('/tmp', '/var/tmp', '/dev/shm'):\n"
        "    open(os.path.join(d, 'left%d' % os.getpid()), 'w').write('x')\n"
    )
    test = TestSpec(kind=TestKind.SCRIPT, code="assert left == [], left")
    sizes = []
    for i in range(24):
        result = execute(env_python, program, test, warm=pools, preload=("json",))
        assert result.status is Status.PASSED and result.path == "warm", result
        if i in (3, 23):
            time.sleep(0.5)  # the server renews after it has answered: let it finish
            mounts = Path(f"/proc/{_server_pid(pools)}/mountinfo").read_text()
            sizes.append(len(mounts.splitlines()))
    assert sizes[0] == sizes[1], sizes
    pools.close()


def test_unseeded_generators_differ_between_warm_executions() -> None:
    """A fresh interpreter seeds `random` and numpy's global generator anew; each warm child
    must too, or every sample of a problem would draw the same numbers."""
    from pinbench.core.env import EnvSpec
    from pinbench.envs.python.builder import ensure

    python = ensure(EnvSpec(version="3.11", pins=("numpy==1.26.4",))).python
    pools = WarmPools(detect(), per_env=1)
    program = "import random\nimport numpy as np\nprint(random.random(), np.random.random())"
    draws = []
    for _ in range(4):
        result = execute(python, program, TEST_TRUE, warm=pools, preload=("numpy", "random"))
        assert result.status is Status.PASSED and result.path == "warm", result
        draws.append(result.stdout.split())
    assert len({d[0] for d in draws}) == 4 and len({d[1] for d in draws}) == 4, draws
    pools.close()


def test_deadlines_shorter_than_a_fork_time_out_and_leave_the_server_serving(
    env_python: Path,
) -> None:
    """A deadline can strike while the server forks: the execution times out, the child never
    returns into the server's loop (two readers on one socket), and the server goes on."""
    from pinbench.core.outcome import Limits

    pools = WarmPools(detect(), per_env=1)
    for wall in (0.0001, 0.0005, 0.001, 0.002) * 5:
        result = execute(env_python, "x = 1", TEST, Limits(wall_seconds=wall), warm=pools)
        assert result.path == "warm", result
        assert result.status in {Status.TIMEOUT, Status.PASSED, Status.FAILED}, result
    assert [_run(env_python, pools, ()) for _ in range(3)] == ["warm"] * 3
    assert pools.started == 1 and pools.fallbacks == 0
    pools.close()
