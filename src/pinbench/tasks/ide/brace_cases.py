"""Case collection every brace language shares, over its outline: doc (functions whose body is
longer than three lines, with a reference comment that passes the language's check: the
function's own, else one synthesized from what it takes, returns and throws), generate
(documented functions that passing tests call) and workspace (the repository's queries, else
derived from documented public functions). Each language's collector (`node/collect.py`,
`java/collect.py`) supplies a `Kit` and adds fix and test."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from pinbench.core.outcome import Limits
from pinbench.core.tests import Focal, TestKind, TestSpec
from pinbench.tasks.ide.braces import BraceEdits, summary
from pinbench.tasks.ide.cases import Case, DocCase, GenerateCase, Kind, Language, Snippet
from pinbench.tasks.ide.lint import Diagnostic, LintError
from pinbench.tasks.ide.outline import Function
from pinbench.tasks.ide.repo import SUITE_LIMIT_SECONDS
from pinbench.tasks.ide.selection import (
    Collection,
    Context,
    Query,
    fix_cases,
    question,
    spread,
    workspace_cases,
)


@dataclass(frozen=True)
class Kit:
    """What the shared collectors need of a language."""

    edits: BraceEdits
    sources: Callable[[Context], list[str]]  # hand-written code files
    doc_passes: Callable[[str, str, str], bool]  # (path, text, qualname): the comment check
    synthesize: Callable[[Function, str], str]  # a comment for the function, from a summary
    language_of: Callable[[str], Language]
    distinct_names: bool = False  # overloads (same qualname) are left out (Java)
    # the function with the documentation its declaration carries in another file (C/C++
    # headers), when its definition has none
    documented: Callable[[Context, Function], Function] | None = None

    def with_doc(self, context: Context, function: Function) -> Function:
        return self.documented(context, function) if self.documented else function


Collector = Callable[[Context, Collection], list[Case]]


def collect(
    kit: Kit, context: Context, kinds: Iterable[Kind], fix: Collector, test: Collector
) -> Collection:
    """The cases of the kinds asked for: doc, generate and workspace shared, the language's
    own fix and test."""
    result = Collection()
    collectors: dict[Kind, Collector] = {
        Kind.DOC: lambda c, r: doc_cases(kit, c, r),
        Kind.FIX: fix,
        Kind.GENERATE: lambda c, r: generate_cases(kit, c, r),
        Kind.TEST: test,
        Kind.WORKSPACE: lambda c, r: workspace_cases_of(kit, c, r),
    }
    for kind in kinds:
        result.cases += collectors[kind](context, result)
    return result


def functions(kit: Kit, context: Context, result: Collection) -> Iterator[tuple[str, Function]]:
    for path in kit.sources(context):
        try:
            found = kit.edits.outline(path, context.snapshot.read(path))
        except LintError:
            result.drop("file cannot be parsed")
            continue
        names = Counter(f.qualname for f in found.functions)
        for function in found.functions:
            if kit.distinct_names and names[function.qualname] > 1:
                result.drop("overloaded: its name does not say which one")
                continue
            yield path, kit.with_doc(context, function)


def long(function: Function) -> bool:
    return function.body is not None and function.body[1] - function.body[0] - 1 > 3


def doc_cases(kit: Kit, context: Context, result: Collection) -> list[Case]:
    items: list[tuple[str, tuple[str, str, str]]] = []
    for path, function in functions(kit, context, result):
        if not long(function):
            continue
        reference = reference_doc(kit, path, context.snapshot.read(path), function)
        if reference is None:
            result.drop("doc: no comment passes the check (unusual parameters)")
            continue
        items.append((path, (path, function.qualname, reference)))
    cases: list[Case] = []
    for index, (path, qualname, reference) in enumerate(spread(items, context.limits)):
        cases.append(
            DocCase(
                **context.base(Kind.DOC, index, path, kit.language_of(path)),
                qualname=qualname,
                reference=reference,
            )
        )
    return cases


def reference_doc(kit: Kit, path: str, text: str, function: Function) -> str | None:
    """The function's own comment when it passes the check, else a synthesized one that does
    (None when even that does not)."""
    if function.doc and kit.doc_passes(path, text, function.qualname):
        return function.doc
    synthesized = kit.synthesize(function, summary(function.doc))
    program = kit.edits.with_doc(path, text, function.qualname, synthesized)
    return synthesized if kit.doc_passes(path, program, function.qualname) else None


def generate_cases(kit: Kit, context: Context, result: Collection) -> list[Case]:
    baseline = context.build.baseline
    items: list[tuple[str, tuple[str, str, tuple[str, ...]]]] = []
    for path, function in functions(kit, context, result):
        if not (long(function) and function.doc and function.body_whole_lines):
            continue
        covering = baseline.covering(path, function.name, set(function.lines))
        if not covering:
            result.drop("generate: no passing test calls it")
            continue
        items.append((path, (path, function.qualname, tuple(covering))))
    cases: list[Case] = []
    for index, (path, qualname, tests) in enumerate(spread(items, context.limits)):
        cases.append(
            GenerateCase(
                **context.base(Kind.GENERATE, index, path, kit.language_of(path)),
                qualname=qualname,
                tests=tests,
            )
        )
    return cases


def workspace_cases_of(kit: Kit, context: Context, result: Collection) -> list[Case]:
    """Snippets of every class (its first 30 lines) and function (its first 60); the
    repository's queries, else questions from documented public functions' summaries."""
    chunks: list[Snippet] = []
    documented: list[Query] = []
    for path in kit.sources(context):
        text = context.snapshot.read(path)
        lines = text.splitlines()
        try:
            found = kit.edits.outline(path, text)
        except LintError:
            continue
        for qualname, start, end in found.classes:
            body = "\n".join(lines[start - 1 : min(end, start + 29)])
            chunks.append(Snippet(id=f"{path}::{qualname}", path=path, text=body))
        seen = set()
        for function in map(lambda f: kit.with_doc(context, f), found.functions):
            if function.qualname in seen:
                continue  # an overload: one snippet per name
            seen.add(function.qualname)
            body = "\n".join(lines[function.line - 1 : min(function.end, function.line + 59)])
            chunks.append(Snippet(id=f"{path}::{function.qualname}", path=path, text=body))
            said = summary(function.doc)
            if function.exported and not function.private and len(said.split()) >= 4:
                documented.append(
                    (question(said), [function.name], [f"{path}::{function.qualname}"])
                )
    random.Random(0).shuffle(documented)
    return workspace_cases(context, result, chunks, lambda: documented, kit.language_of)


# ------------------------------------------------------------------ what fix and test share


def lint_fix_cases(
    kit: Kit,
    context: Context,
    result: Collection,
    lint: Callable[[list[str]], list[Diagnostic]],
    region: Callable[[str, int], tuple[int, int] | None],
    drop_broken: bool = False,
) -> list[Case]:
    """Fix cases from the analyzer's diagnostics in the hand-written sources; `region(text,
    line)`: the lines around one. `drop_broken`: a file with an error gives none (the flags
    the analyzer read it with do not fit it)."""
    try:
        found = lint(kit.sources(context))
    except LintError:
        result.drop("fix: the analyzer cannot read the sources")
        return []
    if drop_broken:
        broken = {d.path for d in found if d.severity == "error"}
        for _ in broken:
            result.drop("fix: the file does not compile with the flags read from its project")
        found = [d for d in found if d.path not in broken]
    return fix_cases(
        context,
        result,
        found,
        lambda d: region(context.snapshot.read(d.path), d.line),
        kit.language_of,
    )


def reference_file(
    context: Context,
    path: str,
    function: Function,
    test_path: str,
    accept: Callable[[str], bool] | None = None,
) -> str | None:
    """A test file of the suite whose tests all passed, one of which calls the function, and
    that `accept`s (by default: in the generated test's directory): the test case's
    reference (None when there is none)."""
    baseline = context.build.baseline
    if accept is None:
        accept = beside(test_path)
    passed: dict[str, bool] = {}
    for test_id, outcome in baseline.outcomes.items():
        file = test_id.split("::", 1)[0]
        passed[file] = passed.get(file, True) and outcome == "passed"
    for test_id in baseline.covering(path, function.name, set(function.lines)):
        file = test_id.split("::", 1)[0]
        if passed.get(file) and accept(file):
            return file
    return None


def beside(test_path: str) -> Callable[[str], bool]:
    """Whether a file is in the same directory as `test_path`."""
    directory = test_path.rsplit("/", 1)[0] + "/" if "/" in test_path else ""
    return lambda file: file.startswith(directory) and "/" not in file[len(directory) :]


def trivial_passes(
    context: Context, kind: TestKind, program: str, test_path: str, focal: str | None = None
) -> bool:
    """Whether a test that only runs passes, saved at `test_path` (built against the file
    `focal` for a compiled language): then a generated test can be run there. It takes as
    long as a scored test will (it compiles the suite)."""
    test = TestSpec(
        kind=kind,
        code="",
        repo=context.snapshot.digest,
        path=test_path,
        select=(test_path,),
        focal=Focal(path=focal, name="(none)", lines=()) if focal else None,
    )
    limit = SUITE_LIMIT_SECONDS
    outcome = context.service.run(
        context.env,
        program,
        test,
        Limits(wall_seconds=limit, cpu_seconds=int(limit), address_space_bytes=8 << 30),
        (),
    )
    return outcome.tests.get("passed") == 1 and outcome.tests.get("failed") == 0
