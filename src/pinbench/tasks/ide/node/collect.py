"""Case collection from a built JavaScript or TypeScript repository, one function per scenario.

doc: functions whose body is longer than three lines, with a reference JSDoc that passes the
check (the function's own, else one synthesized from what the function takes, returns and
throws); fix: ESLint (and tsc) diagnostics; generate: documented functions that passing tests
call; test: exported functions of modules a trivial test file can load; workspace: the
repository's queries, else derived from documented exported functions."""

from __future__ import annotations

from collections.abc import Iterable

from pinbench.core.outcome import Limits
from pinbench.core.tests import Focal, TestKind, TestSpec
from pinbench.tasks.ide import brace_cases
from pinbench.tasks.ide.brace_cases import (
    Kit,
    functions,
    long,
)
from pinbench.tasks.ide.braces import words
from pinbench.tasks.ide.cases import Case, Kind, Language, TestCase
from pinbench.tasks.ide.lint import Diagnostic
from pinbench.tasks.ide.node import edits, source
from pinbench.tasks.ide.node.build import modules_of
from pinbench.tasks.ide.node.source import Function
from pinbench.tasks.ide.selection import (
    Collection,
    Context,
    fix_cases,
    spread,
)

GENERATED_TEST = "pinbench_generated.test"


def collect(context: Context, kinds: Iterable[Kind]) -> Collection:
    return brace_cases.collect(KIT, context, kinds, _fix, _test)


def sources(context: Context) -> list[str]:
    """Hand-written JavaScript and TypeScript files: not tests, configuration or examples."""
    return [p for p in source.code_files(context.snapshot) if context.hand_written(p)]


def synthesize(function: Function, said: str) -> str:
    """A JSDoc comment for the function: the summary, then every parameter, what it returns
    or yields, and each class it throws."""
    said = said or f"Carry out the {words(function.name)} step of this module."
    lines = ["/**", f" * {said}", " *"]
    lines += [f" * @param {p} The {words(p)} argument." for p in function.params]
    if function.yields:
        lines.append(" * @yields The values produced.")
    elif function.returns:
        lines.append(" * @returns The result.")
    lines += [f" * @throws {{{c}}} When the input is not acceptable." for c in function.throws]
    lines.append(" */")
    return "\n".join(lines)


KIT = Kit(
    edits=edits.EDITS,
    sources=sources,
    doc_passes=lambda path, text, qualname: source.check_doc(path, text, qualname).ok,
    synthesize=synthesize,
    language_of=source.language_of,
)


# ------------------------------------------------------------------ fix


def _fix(context: Context, result: Collection) -> list[Case]:
    files = sources(context)
    found, failed = source.lint(context.snapshot, modules_of(context.env), files)
    for _ in failed:
        result.drop("fix: the linters cannot read the file")

    def region(diagnostic: Diagnostic) -> tuple[int, int] | None:
        text = context.snapshot.read(diagnostic.path)
        return source.region(diagnostic.path, text, diagnostic.line)

    return fix_cases(context, result, found, region, source.language_of)


# ------------------------------------------------------------------ test


def _test(context: Context, result: Collection) -> list[Case]:
    candidates: dict[str, list[Function]] = {}
    for path, function in functions(KIT, context, result):
        if not long(function) or function.private or not function.exported:
            continue
        if function.name == "constructor":
            continue
        candidates.setdefault(path, []).append(function)
    items: list[tuple[str, tuple[str, Function, str, str]]] = []
    for path in list(candidates)[: context.limits.test_files]:
        test_path, reference = _test_place(context, path, candidates[path])
        if not _loads(context, path, test_path):
            result.drop("test: a trivial test file requiring the module does not pass")
            continue
        for function in candidates[path]:
            items.append((path, (path, function, test_path, reference.get(function.qualname, ""))))
    cases: list[Case] = []
    for index, (path, function, test_path, answer) in enumerate(spread(items, context.limits)):
        cases.append(
            TestCase(
                **context.base(Kind.TEST, index, path, source.language_of(path)),
                qualname=function.qualname,
                focal=Focal(path=path, name=function.name, lines=function.lines),
                reference=answer,
                test_path=test_path,
            )
        )
    return cases


def _test_place(
    context: Context, path: str, functions: list[Function]
) -> tuple[str, dict[str, str]]:
    """Where a generated test for the module goes (beside the suite's test file that calls
    its functions, else beside the suite's first test file), and, per function, a reference
    answer: a test file of the suite, in that directory, whose tests all passed and one of
    which calls it."""
    baseline = context.build.baseline
    suffix = ".ts" if source.language_of(path) is Language.TYPESCRIPT else ".js"
    passing_files: dict[str, bool] = {}
    for test_id, outcome in baseline.outcomes.items():
        file = test_id.split("::", 1)[0]
        passing_files[file] = passing_files.get(file, True) and outcome == "passed"
    covering: dict[str, list[str]] = {}
    for function in functions:
        for test_id in baseline.covering(path, function.name, set(function.lines)):
            file = test_id.split("::", 1)[0]
            if (
                passing_files.get(file)
                and file.endswith(suffix)
                and file not in covering.get(function.qualname, [])
            ):
                covering.setdefault(function.qualname, []).append(file)
    files = [f for fs in covering.values() for f in fs]
    tests = source.test_files(context.snapshot)
    anchor = files[0] if files else (tests[0] if tests else f"test/x{suffix}")
    directory = anchor.rsplit("/", 1)[0] + "/" if "/" in anchor else ""
    test_path = f"{directory}{GENERATED_TEST}{suffix}"
    reference = {}
    for qualname, found in covering.items():
        same_dir = [
            f
            for f in found
            if f.rsplit("/", 1)[0] + "/" == directory or ("/" not in f and not directory)
        ]
        if same_dir:
            reference[qualname] = context.snapshot.read(same_dir[0])
    return test_path, reference


def trivial_test(test_path: str, module_path: str) -> str:
    """A test file that only loads the module: it passing means the module can be tested."""
    target = edits.relative_import(test_path, module_path)
    if test_path.endswith(".ts"):
        load = f"import * as subject from '{target}';"
    else:
        load = f"const subject = require('{target}');"
    return f"{load}\n\ntest('loads', () => {{\n  expect(subject).toBeTruthy();\n}});\n"


def _loads(context: Context, path: str, test_path: str) -> bool:
    test = TestSpec(
        kind=TestKind.NODE_REPO,
        code="",
        repo=context.snapshot.digest,
        path=test_path,
        select=(test_path,),
    )
    outcome = context.service.run(
        context.env,
        trivial_test(test_path, path),
        test,
        Limits(wall_seconds=120, cpu_seconds=120),
        (),
    )
    return outcome.passed and outcome.tests.get("passed") == 1
