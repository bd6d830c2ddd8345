"""Fixtures for the adversarial suite: a real uv environment and a host-state watcher."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import ensure
from pinbench.sandbox.execute import execute
from pinbench.sandbox.grade import MODE_VARIABLE, TRUSTED
from pinbench.sandbox.isolation import FULL, USERNS, Isolation
from pinbench.sandbox.probe import probe
from pinbench.sandbox.warm import WarmPools

HOSTILE_MARK = "pinbench-hostile"


@pytest.fixture(autouse=True)
def trusted_grading(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox's tests and the adversarial suite run under trusted grading."""
    monkeypatch.setenv(MODE_VARIABLE, TRUSTED)


PRELOAD = ("pytest",)


@pytest.fixture(scope="session")
def env_python() -> Path:
    """Python 3.11 with pytest, built by pinbench itself (real uv, real cache)."""
    return ensure(EnvSpec(version="3.11", pins=("pytest==8.3.4",))).python


@pytest.fixture(scope="session", params=["full", "userns"])
def isolation(request: pytest.FixtureRequest, env_python: Path) -> Isolation:
    """Every test runs under each isolation level this machine supports."""
    chosen = {"full": FULL, "userns": USERNS}[request.param]
    ok, why = probe(env_python, chosen)
    if not ok:
        pytest.skip(f"isolation {request.param} unavailable here: {why}")
    return chosen


@pytest.fixture
def isolation_level(isolation: Isolation) -> str:
    return isolation.level


@pytest.fixture(scope="session", params=["cold", "warm"])
def pools(request: pytest.FixtureRequest, isolation: Isolation) -> Iterator[WarmPools | None]:
    """Every test runs on the cold path (the reference) and through a warm server."""
    if request.param == "cold":
        yield None
        return
    warm = WarmPools(isolation, per_env=2)
    yield warm
    warm.close()


def _host_state(paths: list[Path]) -> dict[str, tuple[int, int]]:
    state: dict[str, tuple[int, int]] = {}
    for root in paths:
        for entry in root.iterdir() if root.is_dir() else []:
            try:
                st = entry.lstat()
            except OSError:
                continue
            state[str(entry)] = (st.st_mtime_ns, st.st_size)
    return state


@pytest.fixture
def dataset_dir(tmp_path: Path) -> Path:
    """Stands for the dataset a program must never touch."""
    d = tmp_path / "dataset"
    d.mkdir()
    (d / "hidden_test.py").write_text("SECRET_EXPECTED = 42\n")
    return d


Run = Callable[..., Execution]


@pytest.fixture
def run(
    env_python: Path, dataset_dir: Path, isolation: Isolation, pools: WarmPools | None
) -> Iterator[Run]:
    """Execute a hostile program, then check the harness is alive and the host untouched."""
    watched = [Path.home(), Path("/tmp"), dataset_dir, env_python.parent.parent]
    before = _host_state(watched)

    def _run(
        program: str,
        test: str = "",
        *,
        kind: TestKind = TestKind.SCRIPT,
        limits: Limits | None = None,
        module: str | None = None,
        program_builtins: tuple[str, ...] = (),
        shares_state: bool = False,
    ) -> Execution:
        module = module or ("sample_x" if kind is TestKind.PYTEST else None)
        spec = TestSpec(kind=kind, code=test, module=module, program_builtins=program_builtins)
        spec = spec.sharing_state() if shares_state else spec
        limits = limits or Limits(wall_seconds=20, cpu_seconds=20)
        result = execute(env_python, program, spec, limits, isolation, warm=pools, preload=PRELOAD)
        assert result.path == ("cold" if pools is None else "warm"), "warm path fell back to cold"
        return result

    yield _run
    after = _host_state(watched)
    changed = {
        k for k in set(before) | set(after) if before.get(k) != after.get(k) and HOSTILE_MARK in k
    }
    assert not changed, f"hostile program changed the host: {sorted(changed)}"
    assert not any(HOSTILE_MARK in k for k in set(after) - set(before))
    assert {k: v for k, v in after.items() if k.startswith(str(dataset_dir))} == {
        k: v for k, v in before.items() if k.startswith(str(dataset_dir))
    }
    assert not _leftover_processes(), "a sandboxed process outlived its run"
    sanity = _run("x = 1", "assert x == 1")
    assert sanity.status is Status.PASSED, f"harness not healthy after the attack: {sanity}"


def _leftover_processes() -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if HOSTILE_MARK in cmdline and str(os.getpid()) != proc.name:
            found.append(cmdline)
    return found
