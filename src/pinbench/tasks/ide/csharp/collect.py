"""Case collection from a built C# repository: doc, generate and workspace as every brace
language collects them (`brace_cases.py`), with XML documentation comments; fix: mcs's
warnings in the main projects' sources; test: public methods of the library projects, the
generated NUnit fixture compiled alone beside the suite's test files."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pinbench.core.tests import Focal, TestKind
from pinbench.tasks.ide import brace_cases
from pinbench.tasks.ide.brace_cases import Kit, functions, long
from pinbench.tasks.ide.braces import words
from pinbench.tasks.ide.cases import Case, Kind, Language, TestCase
from pinbench.tasks.ide.csharp import edits, mcs, source
from pinbench.tasks.ide.outline import Function
from pinbench.tasks.ide.selection import Collection, Context, spread


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
    return brace_cases.lint_fix_cases(
        KIT,
        context,
        result,
        lambda files: mcs.lint(context.snapshot, files),
        source.region,
        drop_broken=True,
    )


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
    beside = _same_project(context, test_path)
    items = [
        (path, (path, function, _reference(context, path, function, test_path, beside)))
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


def _same_project(context: Context, test_path: str) -> Callable[[str], bool]:
    """Whether a file belongs to the test project a generated fixture at `test_path` joins:
    the nearest directory above both holding a `.csproj`."""
    projects = sorted(
        (p.rsplit("/", 1)[0] + "/" if "/" in p else "")
        for p in context.snapshot.files
        if p.endswith(".csproj")
    )

    def project_of(file: str) -> str | None:
        holding = [d for d in projects if file.startswith(d)]
        return max(holding, key=len) if holding else None

    owner = project_of(test_path)
    return lambda file: project_of(file) == owner


def _reference(
    context: Context, path: str, function: Function, test_path: str, beside: Callable[[str], bool]
) -> str:
    """A suite file that calls the method (`brace_cases.reference_file`), of the test project
    the generated fixture joins (`beside`; in any of its directories: a C# project compiles
    them all): it is the answer ('' when none)."""
    file = brace_cases.reference_file(context, path, function, test_path, beside)
    return context.snapshot.read(file) if file else ""


def trivial_test(namespace: str) -> str:
    """An NUnit fixture that only runs: it passing means a generated fixture can be compiled
    against the libraries and run."""
    return (
        f"using NUnit.Framework;\n\nnamespace {namespace or 'Pinbench'}.Generated\n{{\n"
        "    [TestFixture]\n    public class PinbenchGeneratedTests\n    {\n"
        "        [Test]\n        public void Runs()\n        {\n        }\n    }\n}\n"
    )


def _runs(context: Context, test_path: str, focal: str) -> bool:
    program = trivial_test(edits.namespace_of(context.snapshot.read(focal)))
    return brace_cases.trivial_passes(context, TestKind.CSHARP_REPO, program, test_path, focal)
