"""The in-sandbox runner works on every interpreter generation pinbench targets (3.6+)."""

from __future__ import annotations

import pytest

from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.outcome import Execution, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import ensure
from pinbench.sandbox.execute import execute
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools

pytestmark = pytest.mark.integration

PYTEST_FOR = {"3.6": "pytest==7.0.1", "3.8": "pytest==7.4.4", "3.13": "pytest==8.3.4"}
RIGHT = "def f():\n    return 2\n"
WRONG = "def f():\n    return 3\n"
TEST = "from sample_1 import f\ndef test_f():\n    assert f() == 2\n"


THREADS = """
import threading
from concurrent.futures import ThreadPoolExecutor
def f():
    seen = []
    t = threading.Thread(target=seen.append, args=(1,))
    t.start()
    t.join()
    with ThreadPoolExecutor(2) as pool:
        seen += pool.map(lambda x: x, [1])
    assert threading.current_thread() is threading.main_thread()
    return len(seen) * (threading.active_count() == 1)
"""


@pytest.mark.parametrize("path", ["cold", "warm"])
@pytest.mark.parametrize("python", sorted(PYTEST_FOR))
def test_runner_grades_script_and_pytest_tests(python: str, path: str) -> None:
    """On both paths; a warm child is forked without CPython's after-fork hooks (`_server`), so
    threads must still start, join and be counted right in it."""
    try:
        env = ensure(EnvSpec(version=python, pins=(PYTEST_FOR[python],)))
    except EnvError as exc:
        pytest.skip(f"no Python {python} here: {exc}")
    if env.resolution.interpreter.minor != python:
        pytest.skip(f"no Python {python} here")
    pools = WarmPools(detect(), per_env=1) if path == "warm" else None

    def run(program: str, test: TestSpec) -> Execution:
        result = execute(env.python, program, test, warm=pools, preload=("json",))
        assert result.path == path, result
        return result

    script = TestSpec(kind=TestKind.SCRIPT, code="assert f() == 2")
    module = TestSpec(kind=TestKind.PYTEST, module="sample_1", code=TEST)
    assert run(RIGHT, script).status is Status.PASSED
    assert run(RIGHT, module).status is Status.PASSED
    assert run(THREADS, script).status is Status.PASSED
    failed = run(WRONG, module)
    assert failed.status is Status.FAILED and failed.exc_type == "AssertionError"
    assert run("def f(:", script).status is Status.SYNTAX_ERROR
    if pools is not None:
        assert pools.fallbacks == 0
        pools.close()
