"""Case collection from a built Maven repository: doc, generate and workspace as every brace
language collects them (`brace_cases.py`), with Javadoc; fix: javac's lint warnings (and
errors) in the main sources; test: public methods of classes whose package a trivial JUnit test
can run in, the generated test saved as a class of that package."""

from __future__ import annotations

from collections.abc import Iterable

from pinbench.core.tests import Focal, TestKind
from pinbench.tasks.ide import brace_cases
from pinbench.tasks.ide.brace_cases import (
    Kit,
    functions,
    long,
)
from pinbench.tasks.ide.braces import tagged_comment, words
from pinbench.tasks.ide.cases import Case, Kind, Language, TestCase
from pinbench.tasks.ide.java import edits, javac, source
from pinbench.tasks.ide.outline import Function
from pinbench.tasks.ide.selection import Collection, Context, spread


def collect(context: Context, kinds: Iterable[Kind]) -> Collection:
    return brace_cases.collect(KIT, context, kinds, _fix, _test)


def sources(context: Context) -> list[str]:
    """Hand-written main Java sources."""
    return [p for p in source.code_files(context.snapshot) if context.hand_written(p)]


def synthesize(function: Function, said: str) -> str:
    """A Javadoc comment for the function (`braces.tagged_comment`)."""
    return tagged_comment(
        function, said, f"Carry out the {words(function.name)} step of this class."
    )


def _language(path: str) -> Language:
    return Language.JAVA


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
        lambda files: javac.lint(context.snapshot, context.env.path, files),
        source.region,
    )


# ------------------------------------------------------------------ test


def _test_root(context: Context) -> str:
    """Where the suite's tests live (Maven's `src/test/java` unless the repository differs)."""
    tests = source.test_files(context.snapshot)
    for test in tests:
        package = edits.package_of(context.snapshot.read(test)).replace(".", "/")
        folder = test.rsplit("/", 1)[0]
        if package and folder.endswith(package):
            return folder[: -len(package)].rstrip("/")
    return "src/test/java"


def _test(context: Context, result: Collection) -> list[Case]:
    root = _test_root(context)
    by_package: dict[str, list[tuple[str, Function]]] = {}
    for path, function in functions(KIT, context, result):
        nested = function.qualname.split("(", 1)[0].count(".") != 1
        if not long(function) or not function.exported or nested:
            continue
        if function.name == function.qualname.split(".", 1)[0]:
            continue  # a constructor
        package = edits.package_of(context.snapshot.read(path))
        by_package.setdefault(package, []).append((path, function))
    items: list[tuple[str, tuple[str, Function, str, str]]] = []
    for package in list(by_package)[: context.limits.test_files]:
        test_path = edits.test_path_for(root, package)
        if not _runs(context, test_path, package):
            result.drop("test: a trivial JUnit test in the package does not pass")
            continue
        for path, function in by_package[package]:
            reference = _reference(context, path, function, test_path)
            items.append((path, (path, function, test_path, reference)))
    cases: list[Case] = []
    for index, (path, function, test_path, reference) in enumerate(spread(items, context.limits)):
        cases.append(
            TestCase(
                **context.base(Kind.TEST, index, path, Language.JAVA),
                qualname=function.qualname,
                focal=Focal(path=path, name=function.name, lines=function.lines),
                reference=reference,
                test_path=test_path,
            )
        )
    return cases


def _reference(context: Context, path: str, function: Function, test_path: str) -> str:
    """A suite class in the generated test's directory that calls the method
    (`brace_cases.reference_file`), renamed to be the generated test ('' when none)."""
    file = brace_cases.reference_file(context, path, function, test_path)
    if file is None:
        return ""
    stem = file.rsplit("/", 1)[-1][: -len(".java")]
    return edits.renamed(stem, context.snapshot.read(file))


def trivial_test(package: str) -> str:
    """A JUnit 5 test class that only runs: it passing means the package can be tested."""
    head = f"package {package};\n\n" if package else ""
    return (
        f"{head}import org.junit.jupiter.api.Test;\n\npublic class {edits.GENERATED_TEST} {{\n"
        "    @Test\n    public void runs() {\n    }\n}\n"
    )


def _runs(context: Context, test_path: str, package: str) -> bool:
    return brace_cases.trivial_passes(context, TestKind.JAVA_REPO, trivial_test(package), test_path)
