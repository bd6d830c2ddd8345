"""The in-sandbox runner works on every interpreter generation pinbench targets (3.6+)."""

from __future__ import annotations

import pytest

from pinbench.envs.builder import EnvError, ensure
from pinbench.problems.model import EnvSpec, TestKind, TestSpec
from pinbench.sandbox.executor import execute
from pinbench.sandbox.outcome import Status

pytestmark = pytest.mark.integration

PYTEST_FOR = {"3.6": "pytest==7.0.1", "3.8": "pytest==7.4.4", "3.13": "pytest==8.3.4"}
RIGHT = "def f():\n    return 2\n"
WRONG = "def f():\n    return 3\n"
TEST = "from sample_1 import f\ndef test_f():\n    assert f() == 2\n"


@pytest.mark.parametrize("python", sorted(PYTEST_FOR))
def test_runner_grades_script_and_pytest_tests(python: str) -> None:
    try:
        env = ensure(EnvSpec(python=python, pins=(PYTEST_FOR[python],)))
    except EnvError as exc:
        pytest.skip(f"no Python {python} here: {exc}")
    if env.resolution.interpreter.minor != python:
        pytest.skip(f"no Python {python} here")
    script = TestSpec(kind=TestKind.SCRIPT, code="assert f() == 2")
    module = TestSpec(kind=TestKind.PYTEST, module="sample_1", code=TEST)
    assert execute(env.python, RIGHT, script).status is Status.PASSED
    assert execute(env.python, RIGHT, module).status is Status.PASSED
    failed = execute(env.python, WRONG, module)
    assert failed.status is Status.FAILED and failed.exc_type == "AssertionError"
    assert execute(env.python, "def f(:", script).status is Status.SYNTAX_ERROR
