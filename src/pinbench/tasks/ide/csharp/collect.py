"""Case collection from a built C# repository: doc, generate and workspace as every brace
language collects them (`brace_cases.py`), with XML documentation comments; fix: mcs's
warnings in the main projects' sources; test: public methods of the library projects, the
generated NUnit fixture compiled alone beside the suite's test files."""

from __future__ import annotations

from collections.abc import Iterable

from pinbench.core.outcome import Limits
from pinbench.core.tests import Focal, TestKind, TestSpec
from pinbench.tasks.ide import brace_cases
from pinbench.tasks.ide.brace_cases import Kit, functions, long
from pinbench.tasks.ide.braces import words
from pinbench.tasks.ide.cases import Case, Kind, Language, TestCase
from pinbench.tasks.ide.csharp import edits, mcs, source
from pinbench.tasks.ide.lint import Diagnostic, LintError
from pinbench.tasks.ide.outline import Function
from pinbench.tasks.ide.repo import SUITE_LIMIT_SECONDS
from pinbench.tasks.ide.selection import Collection, Context, fix_cases, spread


def collect(context: Context, kinds: Iterable[Kind]) -> Collection:
    return brace_cases.collect(KIT, context, kinds, _fix, _test)


def sources(context: Context) -> list[str]:
    """Hand-written sources of the library projects (the baseline's targets), else every
    C# file outside test directories."""
    targets = context.build.baseline.targets
    compiled = {s for t in targets.values() if t.type == "LIBRARY" for s in t.sources}
    files = [p for p in source.code_files(context.snapshot) if not compiled or p in compiled]
    return [p for p in files if context.hand_written(p)]


def synthesize(function: Function, said: str) -> str:
    """An XML documentation comment for the method: the summary, then every parameter, what
    it returns, and each class it throws."""
    said = said or f"Carry out the {words(function.name)} step of this class."
    lines = [f"/// <summary>{said}</summary>"]
    lines += [f'/// <param name="{p}">The {words(p)} argument.</param>' for p in function.params]
    if function.returns:
        lines.append("/// <returns>The result.</returns>")
    lines += [
        f'/// <exception cref="{c}">When the input is not acceptable.</exception>'
        for c in function.throws
    ]
    return "\n".join(lines)


def _language(path: str) -> Language:
    return Language.CSHARP


KIT = Kit(
    edits=edits.EDITS,
    sources=sources,
    doc_passes=lambda path, text, qualname: not source.check_doc(path, text, qualname),
    synthesize=synthesize,
    language_of=_language,
    distinct_names=True,
)


# ------------------------------------------------------------------ fix


def _fix(context: Context, result: Collection) -> list[Case]:
    files = sources(context)
    try:
        found = mcs.lint(context.snapshot, files)
    except LintError:
        result.drop("fix: the analyzer cannot read the sources")
        return []
    broken = {d.path for d in found if d.severity == "error"}
    for _ in broken:
        result.drop("fix: the file does not compile")
    kept = [d for d in found if d.path not in broken]

    def region(diagnostic: Diagnostic) -> tuple[int, int] | None:
        return source.region(context.snapshot.read(diagnostic.path), diagnostic.line)

    return fix_cases(context, result, kept, region, _language)


# ------------------------------------------------------------------ test


def _suite_files(context: Context) -> list[str]:
    return sorted({t.split("::", 1)[0] for t in context.build.baseline.outcomes})


def _test(context: Context, result: Collection) -> list[Case]:
    test_path = edits.test_path_for(_suite_files(context))
    candidates = [
        (path, function)
        for path, function in functions(KIT, context, result)
        if long(function)
        and function.exported
        and function.name != function.qualname.split("(", 1)[0].split(".")[-2]  # a constructor
    ]
    if not candidates:
        return []
    if not _runs(context, test_path, candidates[0][0]):
        result.drop("test: a trivial NUnit fixture compiled with the libraries does not pass")
        return []
    items = [
        (path, (path, function, _reference(context, path, function, test_path)))
        for path, function in candidates
    ]
    cases: list[Case] = []
    for index, (path, function, reference) in enumerate(spread(items, context.limits)):
        cases.append(
            TestCase(
                **context.base(Kind.TEST, index, path, Language.CSHARP),
                qualname=function.qualname,
                focal=Focal(path=path, name=function.name, lines=function.lines),
                reference=reference,
                test_path=test_path,
            )
        )
    return cases


def _reference(context: Context, path: str, function: Function, test_path: str) -> str:
    """A test file of the suite, in the generated fixture's directory, whose tests all passed
    and one of which calls the method ('' when none): compiled alone, it is the answer."""
    baseline = context.build.baseline
    directory = test_path.rsplit("/", 1)[0] + "/" if "/" in test_path else ""
    passed: dict[str, bool] = {}
    for test_id, outcome in baseline.outcomes.items():
        file = test_id.split("::", 1)[0]
        passed[file] = passed.get(file, True) and outcome == "passed"
    for test_id in baseline.covering(path, function.name, set(function.lines)):
        file = test_id.split("::", 1)[0]
        if passed.get(file) and file.startswith(directory) and "/" not in file[len(directory) :]:
            return context.snapshot.read(file)
    return ""


def trivial_test(namespace: str) -> str:
    """An NUnit fixture that only runs: it passing means a generated fixture can be compiled
    against the libraries and run."""
    return (
        f"using NUnit.Framework;\n\nnamespace {namespace or 'Pinbench'}.Generated\n{{\n"
        "    [TestFixture]\n    public class PinbenchGeneratedTests\n    {\n"
        "        [Test]\n        public void Runs()\n        {\n        }\n    }\n}\n"
    )


def _runs(context: Context, test_path: str, focal: str) -> bool:
    test = TestSpec(
        kind=TestKind.CSHARP_REPO,
        code="",
        repo=context.snapshot.digest,
        path=test_path,
        select=(test_path,),
        focal=Focal(path=focal, name="(none)", lines=()),
    )
    limit = SUITE_LIMIT_SECONDS
    outcome = context.service.run(
        context.env,
        trivial_test(edits.namespace_of(context.snapshot.read(focal))),
        test,
        Limits(wall_seconds=limit, cpu_seconds=int(limit), address_space_bytes=8 << 30),
        (),
    )
    return outcome.tests.get("passed") == 1 and outcome.tests.get("failed") == 0
