"""Trusted grading for Node: the test runs in a grader process the program cannot reach, and
the program's values cross the channel as data or handles. What a test needs of the program's
objects works through it; what a hostile program tries does not make a wrong answer pass."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.node.builder import NodeEnvironment
from pinbench.sandbox.execute import execute
from pinbench.sandbox.grade import MODE_VARIABLE, TRUSTED
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools


@pytest.fixture(autouse=True)
def trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MODE_VARIABLE, TRUSTED)


@pytest.fixture(scope="module")
def pools() -> Iterator[WarmPools]:
    warm = WarmPools(detect(), per_env=1)
    yield warm
    warm.close()


# Every test runs cold (fresh processes) and warm (with full isolation: forked by the warm
# server's Node zygotes, sandbox/zygote.py).
@pytest.fixture(params=["cold", "warm"])
def path(request: pytest.FixtureRequest, pools: WarmPools) -> WarmPools | None:
    return pools if request.param == "warm" else None


_PATH: list[WarmPools | None] = [None]


@pytest.fixture(autouse=True)
def _on_path(path: WarmPools | None) -> Iterator[None]:
    _PATH[0] = path
    yield
    _PATH[0] = None


def run(env: NodeEnvironment, program: str, test: str, wall: float = 30) -> Execution:
    spec = TestSpec(kind=TestKind.JEST, code=test, module="solution")
    result = execute(env.interpreter, program, spec, Limits(wall_seconds=wall), warm=_PATH[0])
    if _PATH[0] is not None and _PATH[0].isolation.drop_uid and result.status is Status.PASSED:
        # a server's first trusted Node job starts fresh processes; its zygotes, the rest
        zygote = result.details.get("node_processes") == "zygote"
        assert zygote or _PATH[0].started > _SEEN[0], result.details
    _SEEN[0] = _PATH[0].started if _PATH[0] is not None else _SEEN[0]
    return result


_SEEN = [0]  # the warm servers started by the last execution


VALUES = """
class Point {
  constructor(x, y) { this.x = x; this.y = y; }
  norm() { return Math.hypot(this.x, this.y); }
}
module.exports = {
  point: (x, y) => new Point(x, y),
  data: () => ({
    when: new Date(0), re: /a+/g, m: new Map([['k', [1, NaN]]]), s: new Set([1n]),
    buf: Buffer.from('hi'), u: undefined, neg: -0, nested: { list: [1, 'two', null] },
  }),
  twice: (f, x) => f(f(x)),
  later: (cb) => { setTimeout(() => cb('done'), 20); },
  slow: async (x) => { await new Promise((r) => setTimeout(r, 10)); return x * 2; },
  fails: async () => { throw new RangeError('out of range'); },
  throws: () => { const e = new TypeError('bad'); e.code = 'E_BAD'; throw e; },
};
"""
VALUES_TEST = """
const p = require('./solution');
test('class instances are handles', () => {
  const pt = p.point(3, 4);
  expect(pt.norm()).toBe(5);
  expect(pt.x).toBe(3);
  expect(Object.keys(pt)).toEqual(['x', 'y']);
  expect(pt).toEqual({ x: 3, y: 4 });
});
test('data crosses as data', () => {
  const d = p.data();
  expect(d.when).toEqual(new Date(0));
  expect(d.re.source).toBe('a+');
  expect(d.m.get('k')).toEqual([1, NaN]);
  expect(d.s.has(1n)).toBe(true);
  expect(d.buf.toString()).toBe('hi');
  expect('u' in d && d.u === undefined).toBe(true);
  expect(Object.is(d.neg, -0)).toBe(true);
  expect(d.nested).toStrictEqual({ list: [1, 'two', null] });
});
test('callbacks cross back', () => { expect(p.twice((x) => x + 1, 1)).toBe(3); });
test('asynchronous callbacks reach an idle grader', async () => {
  expect(await new Promise((resolve) => p.later(resolve))).toBe('done');
});
test('promises settle', async () => {
  expect(await p.slow(21)).toBe(42);
  await expect(p.fails()).rejects.toThrow(RangeError);
});
test('errors keep their class and code', () => {
  expect(() => p.throws()).toThrow(TypeError);
  try { p.throws(); } catch (e) { expect(e.code).toBe('E_BAD'); }
});
"""


def test_what_a_test_needs_of_the_program_works(lodash3: NodeEnvironment) -> None:
    result = run(lodash3, VALUES, VALUES_TEST)
    assert result.status is Status.PASSED, (result.message, result.stderr)
    assert result.tests["passed"] == 6


WRONG = "module.exports = { answer: () => 41 };\n"
RIGHT_TEST = (
    "const { answer } = require('./solution');\ntest('a', () => { expect(answer()).toBe(42); });\n"
)
ATTACKS = (
    # the test's own globals are in another process
    "global.expect = () => new Proxy({}, { get: () => () => {} });",
    "global.test = global.it = () => {};",
    "process.on('exit', () => { require('fs').writeSync(3, JSON.stringify({ passed: 1 })); });",
    # every descriptor it holds is the channel: garbage there is a malformed channel
    "for (let fd = 3; fd < 12; fd++) {"
    " try { require('fs').writeSync(fd, Buffer.from([0, 0, 0, 2, 123, 125])); } catch (e) {} }",
    # the grader is no process it can see, nor signal
    "const fs = require('fs');"
    " for (const p of fs.readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d))) {"
    " try { process.kill(Number(p), 'SIGSTOP'); } catch (e) {} }",
    # an object that claims to be the answer is a handle: its claims are not data
    "module.exports.answer = () => ({ valueOf: () => 42, [Symbol.toPrimitive]: () => 42 });",
    # the hidden test is nowhere it can read
    "const fs = require('fs');"
    " for (const f of ['/tmp/pinbench-grader/test_solution.js',"
    " '/tmp/pinbench-code/test_solution.js'])"
    " { try { fs.readFileSync(f); process.exit(7); } catch (e) {} }",
)


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_hostile_program_does_not_pass(lodash3: NodeEnvironment, attack: str) -> None:
    result = run(lodash3, WRONG + attack + "\n", RIGHT_TEST, wall=10)
    # a program that stops itself hangs as a loop does: a timeout, still a failed sample
    failed = (Status.FAILED, Status.SYNTAX_ERROR, Status.TIMEOUT)
    assert result.status in failed, (result.status, result.message)
    assert result.exc_type != "NoResult" or "process ended" in result.message


# The test's own `require`s resolve where the program cannot write: a program that plants a
# module for the grader to load (the library the test computes its expectation with, or `expect`)
# must not change what the grader runs.
LIBRARY_TEST = (
    "const _ = require('lodash');\nconst { answer } = require('./solution');\n"
    "test('a', () => { expect(answer()).toBe(_.sum([40, 2])); });\n"
)
PLANT = "'module.exports = { sum: () => 41 };'"
HIJACKS = (
    # replace the environment's node_modules link with a directory of its own
    "const fs = require('fs'); try { fs.unlinkSync('/tmp/node_modules'); } catch (e) {}"
    " try { fs.mkdirSync('/tmp/node_modules/lodash', { recursive: true });"
    f" fs.writeFileSync('/tmp/node_modules/lodash/index.js', {PLANT}); }} catch (e) {{}}",
    # a node_modules beside the grader's test, or anywhere up its path
    "const fs = require('fs'); for (const d of ['/tmp/pinbench-grader', '/tmp', '/']) {"
    " try { fs.mkdirSync(d + '/node_modules/lodash', { recursive: true });"
    f" fs.writeFileSync(d + '/node_modules/lodash/index.js', {PLANT}); }} catch (e) {{}} }}",
    # rewrite the pinned library in the environment itself
    f"try {{ require('fs').writeFileSync(require.resolve('lodash'), {PLANT}); }} catch (e) {{}}",
    # preload code into Node processes started after it
    "process.env.NODE_OPTIONS = '--require /tmp/x.js';"
    " try { require('fs').writeFileSync('/tmp/x.js', 'global.expect = () => ({ toBe() {} })'); }"
    " catch (e) {}",
)


@pytest.mark.parametrize("hijack", HIJACKS)
def test_a_program_cannot_plant_modules_for_the_grader(
    lodash3: NodeEnvironment, hijack: str
) -> None:
    result = run(lodash3, WRONG + hijack + "\n", LIBRARY_TEST)
    assert result.status is Status.FAILED, (result.status, result.message)
    assert "Received: 41" in result.message  # the grader's own lodash and expect judged it


def test_a_right_answer_still_passes_beside_the_attacks(lodash3: NodeEnvironment) -> None:
    result = run(lodash3, "module.exports = { answer: () => 42 };\n", RIGHT_TEST)
    assert result.status is Status.PASSED


def test_the_hidden_test_is_not_in_the_programs_files(lodash3: NodeEnvironment) -> None:
    probe = (
        "const fs = require('fs');\n"
        "const seen = fs.readdirSync('/tmp/pinbench-code').join(',');\n"
        "module.exports = { answer: () => seen };\n"
    )
    test = (
        "const { answer } = require('./solution');\n"
        "test('x', () => { expect(answer()).toBe('SECRET-MARK'); });\n"
    )
    result = run(lodash3, probe, test)
    assert result.status is Status.FAILED
    assert "test_solution.js" not in result.message and "SECRET" in result.message


# What the zygotes share with their children must carry nothing from one execution to the next.
PROBE = (
    "const fs = require('fs');\n"
    "const links = fs.readdirSync('/proc/self/fd').map((fd) => {\n"
    "  try { return fs.readlinkSync('/proc/self/fd/' + fd); } catch (e) { return ''; } });\n"
    "const shared = fs.readFileSync('/proc/self/maps', 'utf8').split('\\n')\n"
    "  .filter((line) => /^\\S+ ...s/.test(line));\n"
    "const huge = fs.readFileSync('/proc/self/smaps', 'utf8').split('\\n')\n"
    "  .filter((line) => line.startsWith('AnonHugePages:'))\n"
    "  .reduce((kb, line) => kb + Number(line.split(/\\s+/)[1]), 0);\n"
    "const seen = { pid: process.pid, random: Math.random(), links, shared, huge,\n"
    "  procs: fs.readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d)).length };\n"
    "require('child_process').spawn('/bin/sleep', ['60'], { detached: true, stdio: 'ignore' })\n"
    "  .unref();\n"
    "module.exports = { answer: () => JSON.stringify(seen) };\n"
)
PROBE_TEST = (
    "const { answer } = require('./solution');\n"
    "test('report', () => { expect(answer()).toBe('report'); });\n"
)


def _seen(result: Execution) -> dict[str, object]:
    import json
    import re

    match = re.search(r'Received: "(.*)"', result.message)
    assert match, result.message
    seen: dict[str, object] = json.loads(json.loads(f'"{match.group(1)}"'))
    return seen


def test_nothing_crosses_from_one_execution_to_the_next(
    lodash3: NodeEnvironment, path: WarmPools | None
) -> None:
    first, second = (_seen(run(lodash3, PROBE, PROBE_TEST)) for _ in range(2))
    assert first["random"] != second["random"]  # not the zygote's generator state
    assert first["pid"] != second["pid"] or first["pid"] == 1  # drawn anew, or its own pid 1
    assert not first["shared"] and not second["shared"]  # no memory shared with anyone
    # the daemon the first left is gone; the program sees itself and at most its pid 1
    assert second["procs"] in (1, 2)
    assert isinstance(first["links"], list) and isinstance(second["links"], list)
    # no pipe or socket of the first execution's is open in the second (one the zygote held
    # would be: anything written there would be read by the next)
    pipes = {link for link in first["links"] if link.startswith(("pipe:", "socket:"))}
    assert not pipes & set(second["links"])
    # nor any file of the harness's: the grader's secret, a proof pipe (the zygote once held
    # the first job's, inherited at its start, and handed them to every child)
    assert not any("secret" in link for link in first["links"] + second["links"])


def test_a_zygotes_child_runs_node_from_huge_pages(
    lodash3: NodeEnvironment, path: WarmPools | None
) -> None:
    """Node's code remapped to huge pages in the zygote (`--use-largepages`), shared with its
    children through the page tables copied at the fork; a fresh Node's is file-backed."""
    enabled = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not enabled.exists() or "[never]" in enabled.read_text():
        pytest.skip("transparent huge pages are off on this host")
    if path is None:
        assert _seen(run(lodash3, PROBE, PROBE_TEST))["huge"] == 0  # a fresh Node
        return
    if not path.isolation.drop_uid:
        pytest.skip("zygotes need a uid to drop to")
    spec = TestSpec(kind=TestKind.JEST, code=PROBE_TEST, module="solution")
    for _ in range(2):  # a server's zygotes start on its second trusted Node job
        result = execute(lodash3.interpreter, PROBE, spec, Limits(wall_seconds=30), warm=path)
    assert result.details.get("node_processes") == "zygote", result.details
    assert int(str(_seen(result)["huge"])) >= 2048, _seen(result)  # one 2 MB page at least


YOUNG = (
    "const v8 = require('v8');\n"
    "const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');\n"
    "const seen = { used: young.space_used_size, size: young.space_size,\n"
    "  gc: typeof gc + ' ' + require('vm').runInNewContext('typeof gc') };\n"
    "module.exports = { answer: () => JSON.stringify(seen) };\n"
)


def test_a_zygotes_child_starts_with_an_empty_young_generation(
    lodash3: NodeEnvironment, path: WarmPools | None
) -> None:
    """What the zygote allocates serving requests would otherwise fill the young generation
    each child starts with (and V8 would shrink it): children then collected, and cost twice
    as much after a few hundred executions. The collector the zygote uses is not the
    program's."""
    for _ in range(80 if path is not None else 1):  # past the zygote's first collections
        seen = _seen(run(lodash3, YOUNG, PROBE_TEST))
    assert seen["gc"] == "undefined undefined"  # as in a fresh Node
    if path is None or not path.isolation.drop_uid:
        return
    used, size = int(str(seen["used"])), int(str(seen["size"]))
    assert used < 1 << 20, seen  # loading the harness and the program: well under a megabyte
    assert size >= 16 << 20, seen


def test_a_program_ending_its_process_or_throwing_fails_cleanly(lodash3: NodeEnvironment) -> None:
    for program in (
        "process.exit(0);",
        "throw new Error('at load');",
        "setTimeout(() => { throw new Error('later'); }, 1);\n" + WRONG,
        "module.exports = { answer: () => { process.exit(0); } };",
    ):
        result = run(lodash3, program, RIGHT_TEST)
        assert result.status is Status.FAILED, (program, result.status, result.message)
    assert run(lodash3, "module.exports = { answer: () => 42 };", RIGHT_TEST).status is (
        Status.PASSED
    )


def test_a_program_that_never_ends_is_timed_out_and_the_next_runs(
    lodash3: NodeEnvironment,
) -> None:
    result = run(lodash3, "while (true) {}", RIGHT_TEST, wall=3)
    assert result.status is Status.TIMEOUT
    after = run(lodash3, "module.exports = { answer: () => 42 };", RIGHT_TEST)
    assert after.status is Status.PASSED, after.message


def test_es_modules_load_as_in_a_fresh_node(lodash3: NodeEnvironment) -> None:
    """The ES module loader in a zygote's child: a default import of a CommonJS package works,
    a named one it cannot have fails with the loader's own message (neither hangs nor runs out
    of heap)."""
    good = "import _ from 'lodash';\nexport function answer() { return _.sum([40, 2]); }\n"
    bad = "import { nothingLikeThis } from 'lodash';\nexport const answer = () => 42;\n"
    for _ in range(2):  # the second on a warm server's zygotes
        assert run(lodash3, good, RIGHT_TEST).status is Status.PASSED
        result = run(lodash3, bad, RIGHT_TEST)
        assert result.status is Status.SYNTAX_ERROR, (result.status, result.message)
        assert "nothingLikeThis" in result.message, result.message
