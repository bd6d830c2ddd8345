"""The IDE scenarios on JavaScript and TypeScript repositories, end to end with real parts: the
shipped npm repositories built by the npm build agent (real npm, real Node from the registry),
their suites run by pinbench's runner in the sandbox with V8 coverage, ESLint/tsc and
eslint-plugin-jsdoc on the host; good answers pass, plausible wrong ones fail."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pinbench.core import snapshots
from pinbench.core.outcome import Status
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.build import build_repo
from pinbench.tasks.ide.cases import DocCase, FixCase, GenerateCase, Kind, Language, TestCase
from pinbench.tasks.ide.node import source
from pinbench.tasks.ide.repo import RepoRejected
from pinbench.tasks.ide.task import IdeTask, item_of, prompt
from tests.ide.shipped import Built, built_repos, check_references, execute, planted, static

pytestmark = pytest.mark.integration

NODE_REPOS = ("csvkit-js", "jsdate-range", "ts-eventbus", "ts-inventory")


@pytest.fixture(scope="module")
def service() -> Iterator[ExecutionService]:
    with ExecutionService(jobs=2) as svc:
        yield svc


def _rule(cell: str) -> str:
    """A PLANTED.md rule cell as the diagnostic names it: `2322 (...)` is tsc's TS2322."""
    rule = cell.split()[0]
    return f"TS{rule}" if rule.isdigit() else rule


@pytest.fixture(scope="module")
def repos(service: ExecutionService) -> dict[str, Built]:
    return built_repos(service, NODE_REPOS)


# ------------------------------------------------------------------ reading the source


def test_the_outline_reads_functions_exports_jsdoc_and_what_they_throw() -> None:
    code = (
        "'use strict';\n"
        "/**\n * Parse it.\n * @param {string} text the text\n */\n"
        "function parse(text) {\n  if (!text) {\n    throw new TypeError('empty');\n  }\n"
        "  return text.length;\n}\n\n"
        "const helper = (a, { b }) => {\n  return a + b;\n};\n\n"
        "class Box {\n  _peek() {\n    return 1;\n  }\n\n  *items() {\n    yield 1;\n  }\n}\n\n"
        "module.exports = { parse, Box };\n"
    )
    found = source.outline("lib/x.js", code)
    by_name = {f.qualname: f for f in found.functions}
    assert set(by_name) == {"parse", "helper", "Box._peek", "Box.items"}
    parse = by_name["parse"]
    assert parse.exported and parse.returns and parse.throws == ("TypeError",)
    assert parse.doc_lines == (2, 5) and parse.line == 6 and parse.body == (6, 11)
    assert by_name["helper"].params == ("a", "root1") and not by_name["helper"].exported
    assert by_name["Box._peek"].private and by_name["Box.items"].yields
    assert found.classes == (("Box", 17, 25),)


def test_the_jsdoc_check_names_every_missing_part() -> None:
    code = (
        "/**\n * Parse a duration.\n * @param {string} txt the text\n */\n"
        "function parseDuration(text) {\n  if (!text) throw new RangeError('x');\n"
        "  return 1;\n}\nmodule.exports = { parseDuration };\n"
    )
    check = source.check_doc("a.js", code, "parseDuration")
    assert check.attached and not check.ok
    joined = " ".join(check.problems)
    assert "require-param" in joined and "require-returns" in joined
    assert "check-param-names" in joined and "RangeError" in joined
    restates = code.replace("Parse a duration.", "Parse duration.")
    assert "only restates the name" in " ".join(
        source.check_doc("a.js", restates, "parseDuration").problems
    )


# ------------------------------------------------------------------ the build agent


def test_the_build_records_pins_node_and_per_test_coverage(repos: dict[str, Built]) -> None:
    csv = repos["csvkit-js"].build
    assert csv.ecosystem == "node" and csv.toolchain_version == "22.12.0"
    assert [p.split("@")[0] for p in csv.env.pins] == ["lodash"]  # mocha is pinbench's own
    assert "expect@29.7.0" in csv.env.extras
    for built in repos.values():
        base = built.build.baseline
        assert base.passing and set(base.outcomes.values()) == {"passed"}, built.build.name
        assert not base.collect_errors
    inventory = repos["ts-inventory"].build
    assert any(p.startswith("typescript@") for p in inventory.env.extras)
    # coverage is mapped back to the TypeScript source: a covered function's line is its own
    snap = snapshots.load(inventory.snapshot)
    for entry in inventory.baseline.functions:
        path, line, name = entry.rsplit(":", 2)
        if path.startswith("src/") and name and " " not in name:
            text = snap.read(path).splitlines()[int(line) - 1]
            assert name.rsplit(".", 1)[-1] in text or "constructor" in text, (entry, text)


def test_a_repository_that_cannot_be_built_is_rejected_with_its_reason(
    service: ExecutionService, tmp_path: Path
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "package.json").write_text("{not json")
    with pytest.raises(RepoRejected, match=r"package\.json does not parse"):
        build_repo(bad, service)
    untested = tmp_path / "untested"
    (untested / "lib").mkdir(parents=True)
    (untested / "package.json").write_text('{"name": "u", "version": "1.0.0"}')
    (untested / "lib" / "a.js").write_text("module.exports = 1;\n")
    with pytest.raises(RepoRejected, match="no test files"):
        build_repo(untested, service)
    ancient = tmp_path / "ancient"
    (ancient / "test").mkdir(parents=True)
    (ancient / "package.json").write_text('{"name": "a", "engines": {"node": "<0.1"}}')
    (ancient / "test" / "a.test.js").write_text("test('x', () => {});\n")
    with pytest.raises(RepoRejected, match="no published Node release satisfies"):
        build_repo(ancient, service)


# ------------------------------------------------------------------ collection


def test_fix_cases_are_exactly_the_planted_diagnostics(repos: dict[str, Built]) -> None:
    for name, built in repos.items():
        found = {
            (c.path, c.diagnostic.line, c.diagnostic.rule)
            for c in built.cases
            if isinstance(c, FixCase)
        }
        assert found == planted(name, _rule), name


def test_every_scenario_is_collected_and_generated_files_give_none(
    repos: dict[str, Built],
) -> None:
    for name, built in repos.items():
        assert {c.scenario for c in built.cases} == set(Kind), name
        assert not [c for c in built.cases if "_generated" in c.path], name
        languages = {c.language for c in built.cases}
        expected = Language.TYPESCRIPT if name.startswith("ts-") else Language.JAVASCRIPT
        assert languages == {expected}, name
    assert all(
        "```typescript" in prompt(c) for c in repos["ts-eventbus"].cases if c.scenario is Kind.FIX
    )


# ------------------------------------------------------------------ the reference model


def test_the_reference_passes_doc_generate_test_workspace_and_fails_every_fix(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    """Every case's reference answer is scored; 4 generate and 4 test cases per repository
    are executed (`pinbench run --task ide -m reference` executes all of them)."""
    references = check_references(service, repos, executed=4)
    assert references >= 1


# ------------------------------------------------------------------ wrong answers fail


def test_doc_missing_a_parameter_or_written_elsewhere_fails(repos: dict[str, Built]) -> None:
    built = repos["jsdate-range"]
    case = next(c for c in built.cases if isinstance(c, DocCase) and "@param" in c.reference)
    _, ok = static(case, case.reference)
    assert ok is True
    first_param = next(line for line in case.reference.splitlines() if "@param" in line)
    _, missing = static(case, case.reference.replace(first_param + "\n", ""))
    assert missing is False
    _, prose = static(case, "It does what it says.")
    assert prose is False


def test_fix_that_removes_the_problem_passes_one_adding_another_fails(
    repos: dict[str, Built],
) -> None:
    built = repos["jsdate-range"]
    case = next(
        c
        for c in built.cases
        if isinstance(c, FixCase) and c.diagnostic.rule == "no-prototype-builtins"
    )
    text = snapshots.load(case.snapshot).read(case.path).splitlines()
    lines = text[case.region[0] - 1 : case.region[1]]
    fixed = "\n".join(
        re.sub(r"(\w+)\.hasOwnProperty\(", r"Object.prototype.hasOwnProperty.call(\1, ", line)
        for line in lines
    )
    assert "Object.prototype.hasOwnProperty.call(" in fixed
    scores, ok = static(case, f"```javascript\n{fixed}\n```")
    assert ok is True, scores
    worse = fixed.replace("{", "{\n  const leftover = 1;", 1)
    scores, ok = static(case, f"```javascript\n{worse}\n```")
    assert scores["fix.resolved"] == 1.0 and scores["fix.fewer"] == 0.0 and ok is False


def test_fix_that_hides_the_problem_with_a_directive_fails(repos: dict[str, Built]) -> None:
    js = next(
        c
        for c in repos["jsdate-range"].cases
        if isinstance(c, FixCase) and c.diagnostic.rule == "no-prototype-builtins"
    )
    lines = snapshots.load(js.snapshot).read(js.path).splitlines()
    region = lines[js.region[0] - 1 : js.region[1]]
    at = js.diagnostic.line - js.region[0]
    for directive in ("// eslint-disable-next-line", "/* eslint-disable */"):
        hidden = "\n".join([*region[:at], directive, *region[at:]])
        scores, ok = static(js, f"```javascript\n{hidden}\n```")
        assert scores["fix.resolved"] == 0.0 and ok is False, directive
    ts = next(
        c
        for c in repos["ts-inventory"].cases
        if isinstance(c, FixCase) and c.diagnostic.rule == "TS2532"
    )
    lines = snapshots.load(ts.snapshot).read(ts.path).splitlines()
    region = lines[ts.region[0] - 1 : ts.region[1]]
    at = ts.diagnostic.line - ts.region[0]
    hidden = "\n".join([*region[:at], "    // @ts-ignore", *region[at:]])
    scores, ok = static(ts, f"```typescript\n{hidden}\n```")
    assert scores["fix.resolved"] == 0.0 and ok is False


def test_generate_wrong_body_fails_its_covering_tests(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    built = repos["ts-inventory"]
    case = next(c for c in built.cases if isinstance(c, GenerateCase))
    name = case.qualname.rsplit(".", 1)[-1]
    wrong = f"```typescript\nfunction {name}(...args: any[]): any {{\n  return undefined;\n}}\n```"
    done = execute(service, built, case, wrong)
    assert done.status is Status.FAILED, done.message


def test_test_that_fails_or_never_calls_the_focal_function_fails(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    built = repos["csvkit-js"]
    case = next(c for c in built.cases if isinstance(c, TestCase) and c.reference)
    assert case.test_path.endswith("pinbench_generated.test.js")
    done = execute(service, built, case, f"```javascript\n{case.reference}\n```")
    assert done.status is Status.PASSED, done.message
    unrelated = "```javascript\ntest('nothing', () => {\n  expect(1 + 1).toBe(2);\n});\n```"
    done = execute(service, built, case, unrelated)
    assert done.exc_type == "FocalNotCalled"
    failing = case.reference + "\ntest('wrong', () => {\n  expect(1).toBe(2);\n});\n"
    done = execute(service, built, case, f"```javascript\n{failing}\n```")
    assert done.status is Status.FAILED and done.exc_type == "TestFailed"
    exits = "```javascript\ntest('quits', () => {\n  process.exit(0);\n});\n```"
    assert execute(service, built, case, exits).status is Status.FAILED


def test_ide_runs_choose_a_language(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pinbench.cli import app

    summary = tmp_path / "s.json"
    result = CliRunner().invoke(
        app,
        [
            "run", "--task", "ide", "-d", "builtin", "-m", "reference", "--split", "workspace",
            "--language", "typescript", "--results", str(tmp_path / "res"),
            "--json", str(summary),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    samples = json.loads(summary.read_text())["samples"]
    assert samples and {s["problem_id"].split("/")[1] for s in samples} == {
        "ts-eventbus",
        "ts-inventory",
    }
    assert all(re.match(r"ide/ts-[a-z]+/workspace/\d+", s["problem_id"]) for s in samples)


def test_an_answer_using_a_deprecated_node_api_passes_with_its_deprecation(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    """Node's DeprecationWarning under the lines the answer wrote (the repository's tests
    call it) is the execution's deprecation signal; the reference body raises none."""
    built = repos["csvkit-js"]
    task = IdeTask()
    case = next(c for c in built.cases if isinstance(c, GenerateCase))
    reference = task.reference_answer(item_of(case))  # type: ignore[arg-type]
    clean = execute(service, built, case, reference)
    assert clean.status is Status.PASSED, clean.message
    assert clean.deprecations is not None and clean.deprecations.found == ()
    line = "const unusedBuffer = Buffer(1);  // Node's DEP0005"
    head, brace, rest = reference.partition("{\n")  # the function's first line, then its body
    used = execute(service, built, case, f"{head}{brace}  {line}\n{rest}")
    assert used.status is Status.PASSED, used.message
    assert used.deprecations is not None
    (found,) = used.deprecations.found
    assert found.api == "DEP0005" and found.code == line
