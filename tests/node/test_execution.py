"""JavaScript and TypeScript programs run in the sandbox on the environment's own Node: real
Node, real npm packages, Jest-style tests, and the outcomes a grader must tell apart."""

from __future__ import annotations

import pytest

from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.node.builder import NodeEnvironment
from pinbench.sandbox.execute import execute
from pinbench.sandbox.grade import MODE_VARIABLE, TRUSTED

NAMES = """const { names } = require('./solution');
describe('names', () => {
  test('plucks', () => { expect(names([{ name: 'a' }, { name: 'b' }])).toEqual(['a', 'b']); });
  it('empty', async () => { expect(names([])).toEqual([]); });
});
"""
PLUCK = "const _ = require('lodash');\nmodule.exports = { names: (u) => _.pluck(u, 'name') };\n"


@pytest.fixture(params=["trusted", "in-process"], autouse=True)
def grading(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs under both gradings: the trusted one (the test in a grader process of
    its own uid, the program reached through the channel) and the in-process one."""
    monkeypatch.setenv(MODE_VARIABLE, TRUSTED)
    GRADING[0] = request.param
    return str(request.param)


GRADING = ["trusted"]


def run(env: NodeEnvironment, program: str, test: str = NAMES, ts: bool = False) -> Execution:
    spec = TestSpec(
        kind=TestKind.JEST,
        code=test,
        module="solution",
        in_process=GRADING[0] == "in-process",
        program_suffix=".ts" if ts else None,
    )
    return execute(env.interpreter, program, spec, Limits(wall_seconds=30))


def test_a_program_for_the_pinned_version_passes(lodash3: NodeEnvironment) -> None:
    result = run(lodash3, PLUCK)
    assert result.status is Status.PASSED, result
    assert result.tests == {"collected": 2, "passed": 2, "failed": 0, "skipped": 0}


def test_a_program_for_another_version_fails_with_its_error(lodash3: NodeEnvironment) -> None:
    modern = "const _ = require('lodash');\nmodule.exports = { names: (u) => _.map(u, 'nam') };\n"
    result = run(lodash3, modern)
    assert result.status is Status.FAILED
    assert "names > plucks" in result.message and "toEqual" in result.message
    assert "\x1b[" not in result.message  # no terminal colours in what a model is shown


def test_a_syntax_error_is_not_a_test_failure(lodash3: NodeEnvironment) -> None:
    result = run(lodash3, "module.exports = { names: (u) => { return u.map(x => x.name }; };\n")
    assert result.status is Status.SYNTAX_ERROR
    assert result.exc_type == "SyntaxError"


def test_an_es_module_program_runs(lodash3: NodeEnvironment) -> None:
    program = "import _ from 'lodash';\nexport function names(u) { return _.pluck(u, 'name'); }\n"
    assert run(lodash3, program).status is Status.PASSED


def test_typescript_is_type_checked_then_run(lodash3: NodeEnvironment) -> None:
    good = (
        "export function names(users: { name: string }[]): string[] {\n"
        "  return users.map((u) => u.name);\n}\n"
    )
    assert run(lodash3, good, ts=True).status is Status.PASSED
    wrong = good.replace("): string[]", "): number[]")
    result = run(lodash3, wrong, ts=True)
    assert result.status is Status.FAILED and result.exc_type == "TypeScriptError"
    assert "TS2322" in result.message


def test_typescript_sees_the_pinned_nodes_library_and_no_dom(lodash3: NodeEnvironment) -> None:
    """lodash3 runs on Node 16: ES2021 and Node's own types, not the browser's."""
    body = "export function names(users: { name: string }[]): string[] {\n  %s\n}\n"
    node = body % "return users.map((u) => u.name + process.version.slice(0, 0));"
    assert run(lodash3, node, ts=True).status is Status.PASSED
    es2021 = body % "return users.map((u) => u.name.replaceAll('x', 'x'));"
    assert run(lodash3, es2021, ts=True).status is Status.PASSED
    es2022 = body % "return users.filter((u) => Object.hasOwn(u, 'name')).map((u) => u.name);"
    result = run(lodash3, es2022, ts=True)
    assert result.exc_type == "TypeScriptError" and "'hasOwn' does not exist" in result.message
    dom = body % "return users.map((u) => u.name + document.title);"
    result = run(lodash3, dom, ts=True)
    assert result.exc_type == "TypeScriptError" and "'document'" in result.message


def test_a_program_that_exits_before_its_tests_fails(lodash3: NodeEnvironment) -> None:
    result = run(lodash3, "process.exit(0);\n")
    assert result.status is Status.FAILED
    assert result.exc_type == "NoResult" or "process ended" in result.message


def test_a_test_module_that_runs_no_test_fails(lodash3: NodeEnvironment) -> None:
    result = run(lodash3, PLUCK, test="require('./solution');\n")
    assert result.status is Status.FAILED and result.exc_type == "NoTests"


def test_a_program_that_never_ends_times_out(lodash3: NodeEnvironment) -> None:
    spec = TestSpec(
        kind=TestKind.JEST, code=NAMES, module="solution", in_process=GRADING[0] == "in-process"
    )
    result = execute(lodash3.interpreter, "while (true) {}\n", spec, Limits(wall_seconds=3))
    assert result.status is Status.TIMEOUT


@pytest.mark.parametrize(
    "attempt",
    [
        "require('fs').writeFileSync('/etc/pinbench-escape', 'x');",
        "require('child_process').execSync('touch /usr/pinbench-escape');",
    ],
)
def test_the_host_is_read_only_to_a_node_program(lodash3: NodeEnvironment, attempt: str) -> None:
    test = f"test('escape', () => {{ {attempt} }});\n"
    result = run(lodash3, PLUCK, test=test)
    assert result.status is Status.FAILED
    assert (
        "EROFS" in result.message
        or "read-only" in result.message.lower()
        or "Command failed" in result.message
    )


BUFFER = (
    "const _ = require('lodash');\n"
    "module.exports = { names: (u) => { Buffer(1); return _.pluck(u, 'name'); } };\n"
)  # Buffer() without `new`: Node's runtime deprecation DEP0005


def test_nodes_deprecation_under_the_program_is_recorded(lodash3: NodeEnvironment) -> None:
    result = run(lodash3, BUFFER)
    assert result.status is Status.PASSED, result
    assert result.deprecations is not None and not result.deprecations.tampered
    (found,) = result.deprecations.found
    assert found.category == "DeprecationWarning" and found.api == "DEP0005"
    assert found.line == 2 and found.code.startswith("module.exports = { names:")
    clean = run(lodash3, PLUCK)
    assert clean.deprecations is not None and clean.deprecations.clean


def test_the_programs_own_deprecation_warning_is_not_the_librarys(
    lodash3: NodeEnvironment,
) -> None:
    own = PLUCK.replace(
        "module.exports",
        "process.emitWarning('mine is deprecated', 'DeprecationWarning');\nmodule.exports",
    )
    result = run(lodash3, own)
    assert result.status is Status.PASSED and result.deprecations is not None
    assert result.deprecations.found == () and not result.deprecations.tampered


@pytest.mark.parametrize(
    "hide",
    [
        "process.noDeprecation = true;",
        "process.emitWarning = function () {};",
        "Object.defineProperty(Error, 'prepareStackTrace', { get: () => () => 'x', set() {} });",
        "Object.defineProperty(Error, 'stackTraceLimit', { value: 0, writable: false });",
    ],
)
def test_hiding_deprecations_is_flagged(lodash3: NodeEnvironment, hide: str) -> None:
    result = run(lodash3, hide + "\n" + BUFFER)
    assert result.status is Status.PASSED, result
    assert result.deprecations is not None and result.deprecations.tampered


@pytest.mark.parametrize(
    "pollute",
    [
        "Array.prototype.indexOf = function () { return -1; };",
        "Set.prototype.has = function () { return true; };",
        "Object.prototype.toJSON = function () { return {}; };",
        "String.prototype.slice = function () { return ''; };",
        "RegExp.prototype.exec = function () { return null; };",
        "{ const h = {}; const p = Error.prepareStackTrace;"
        " Error.prepareStackTrace = (_, s) => s; Error.captureStackTrace(h);"
        " Error.prepareStackTrace = p;"
        " Object.getPrototypeOf(h.stack[0]).getFileName = function () { return ''; }; }",
    ],
    ids=["indexOf", "has", "toJSON", "slice", "exec", "callsite"],
)
def test_built_ins_the_program_patches_hide_nothing(lodash3: NodeEnvironment, pollute: str) -> None:
    result = run(lodash3, pollute + "\n" + BUFFER)
    if result.status is not Status.PASSED:  # it broke its own channel or runner: no pass
        assert pollute.startswith(("Set", "Object")), result
        assert result.exc_type in ("MalformedChannel", "NoTests"), result
        return
    assert result.deprecations is not None and not result.deprecations.tampered
    (found,) = result.deprecations.found
    assert found.api == "DEP0005" and found.line == 3
