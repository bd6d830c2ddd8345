"""The IDE scenarios on Java (Maven) repositories, end to end with real parts: the shipped
repositories built by the Maven build agent (Debian's JDK, JUnit and JaCoCo, dependencies from
the local Maven repository), their suites compiled by javac and run by pinbench's JUnit runner in
the sandbox with per-test JaCoCo coverage, javac's lint and the Javadoc check on the host; good
answers pass, plausible wrong ones fail."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pinbench.core import snapshots
from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.java import builder, maven
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.build import build_repo
from pinbench.tasks.ide.cases import DocCase, FixCase, GenerateCase, Kind, Language, TestCase
from pinbench.tasks.ide.java import javac, source
from pinbench.tasks.ide.repo import RepoRejected
from pinbench.tasks.ide.task import IdeTask, item_of, prompt
from tests.ide.shipped import Built, built_repos, check_references, execute, planted, static

JAVA_REPOS = ("java-money", "java-textstats")


@pytest.fixture(scope="module")
def service() -> Iterator[ExecutionService]:
    with ExecutionService(jobs=2) as svc:
        yield svc


@pytest.fixture(scope="module")
def repos(service: ExecutionService) -> dict[str, Built]:
    return built_repos(service, JAVA_REPOS)


# ------------------------------------------------------------------ reading the source


SAMPLE = """package a.b;

import java.io.IOException;

/** Amounts. */
public class Money {
    private final long cents;

    /**
     * Make an amount.
     *
     * @param cents the amount in cents
     */
    public Money(long cents) {
        this.cents = cents;
    }

    /**
     * Add another amount to this one.
     *
     * @param other the other amount
     * @return the sum
     * @throws IllegalArgumentException when other is null
     */
    @Deprecated
    public Money add(Money other) throws IOException {
        if (other == null) {
            throw new IllegalArgumentException("null");
        }
        Runnable r = () -> { throw new IllegalStateException(); };
        return new Money(cents + other.cents);
    }

    private static int helper(int... xs) { return xs.length; }

    static class Inner {
        void run() {
        }
    }
}
"""


def test_the_outline_reads_methods_constructors_javadoc_and_what_they_throw() -> None:
    found = source.outline("src/main/java/a/b/Money.java", SAMPLE)
    by_name = {f.qualname: f for f in found.functions}
    assert set(by_name) == {"Money.Money", "Money.add", "Money.helper", "Money.Inner.run"}
    add = by_name["Money.add"]
    assert add.line == 25 and add.end == 32 and add.body == (26, 32) and add.body_whole_lines
    assert add.doc_lines == (18, 24) and add.params == ("other",) and add.returns
    # declared, then thrown; the lambda's own throw is not the method's
    assert add.throws == ("IOException", "IllegalArgumentException") and add.exported
    ctor = by_name["Money.Money"]
    assert ctor.name == "Money" and not ctor.returns and ctor.params == ("cents",)
    helper = by_name["Money.helper"]
    assert helper.private and helper.params == ("xs",) and not helper.body_whole_lines
    assert found.classes == (("Money", 6, 40), ("Money.Inner", 36, 39))
    assert source.region(SAMPLE, 28) == (18, 32)  # the method and its Javadoc
    assert source.parses(SAMPLE) and not source.parses(SAMPLE.replace("return new", "return ne w"))


def test_the_javadoc_check_names_every_missing_part() -> None:
    path = "src/main/java/a/b/Money.java"
    assert source.check_doc(path, SAMPLE, "Money.Money") == ()
    problems = source.check_doc(path, SAMPLE, "Money.add")
    assert problems == ("no @throws for IOException",)
    bare = SAMPLE.replace("     * @return the sum\n", "").replace("@param other", "@param otr")
    joined = " ".join(source.check_doc(path, bare, "Money.add"))
    assert "no @param for other" in joined and "@param otr names no parameter" in joined
    assert "no @return" in joined
    says_nothing = SAMPLE.replace("Make an amount.", "Money.")
    assert "no description" in source.check_doc(path, says_nothing, "Money.Money")
    assert source.check_doc(path, SAMPLE, "Money.helper") == ("no Javadoc comment",)


def test_sources_under_hidden_directories_are_not_the_project() -> None:
    from pinbench.core.snapshots import Snapshot

    files = (
        ".pc/fix.patch/src/test/java/a/ATest.java",  # quilt's copy in a Debian source package
        ".pc/fix.patch/src/main/java/a/A.java",
        "src/test/java/a/ATest.java",
        "src/main/java/a/A.java",
        "examples/src/main/java/a/Demo.java",
        "src/main/java/org/example/B.java",  # a package named `example` is code
    )
    snap = Snapshot(digest="x", root=Path("/"), files=files, pythonpath=(), skipped=())
    assert source.test_files(snap) == ["src/test/java/a/ATest.java"]
    assert source.code_files(snap) == ["src/main/java/a/A.java", "src/main/java/org/example/B.java"]


def test_javac_output_is_read_with_rule_line_and_column() -> None:
    output = (
        "src/A.java:3: warning: [rawtypes] found raw type: List\n"
        "        List l = null;\n"
        "        ^\n"
        "  missing type arguments for generic class List<E>\n"
        "  where E is a type-variable:\n"
        "src/A.java:9: error: cannot find symbol\n"
        "        foo();\n"
        "        ^\n"
        "  symbol:   method foo()\n"
        "1 error\n1 warning\n"
    )
    first, second = javac.parse(output)
    assert (first.path, first.line, first.column, first.rule) == ("src/A.java", 3, 9, "rawtypes")
    assert (
        first.message == "found raw type: List (missing type arguments for generic class List<E>)"
    )
    assert (second.rule, second.severity, second.line) == ("compile-error", "error", 9)


# ------------------------------------------------------------------ Maven, offline


def _artifact(repo: Path, group: str, artifact: str, version: str, pom: str) -> None:
    folder = repo / Path(*group.split(".")) / artifact / version
    folder.mkdir(parents=True)
    (folder / f"{artifact}-{version}.pom").write_text(pom)
    (folder / f"{artifact}-{version}.jar").write_bytes(b"PK\x05\x06" + bytes(18))


def _pom(group: str, artifact: str, version: str, body: str = "", parent: str = "") -> str:
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0">'
        f"{parent}<groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
        f"<version>{version}</version>{body}</project>"
    )


def test_maven_resolution_follows_parents_management_scopes_and_exclusions(tmp_path: Path) -> None:
    repo = tmp_path / "m2"
    dep = "<dependency><groupId>{}</groupId><artifactId>{}</artifactId>{}</dependency>"
    _artifact(
        repo,
        "org.p",
        "parent",
        "1",
        _pom(
            "org.p",
            "parent",
            "1",
            "<properties><lib.version>2.0</lib.version></properties><dependencyManagement>"
            "<dependencies>"
            + dep.format("org.x", "managed", "<version>${lib.version}</version>")
            + "</dependencies></dependencyManagement>",
        ),
    )
    _artifact(
        repo,
        "org.x",
        "lib",
        "2.0",
        _pom(
            "org.x",
            "lib",
            "2.0",
            "<dependencies>"
            + dep.format("org.x", "managed", "")
            + dep.format("org.x", "tooling", "<version>1</version><scope>test</scope>")
            + dep.format("org.x", "extra", "<version>1</version><optional>true</optional>")
            + dep.format("org.x", "dropped", "<version>1</version>")
            + "</dependencies>",
            parent="<parent><groupId>org.p</groupId><artifactId>parent</artifactId>"
            "<version>1</version></parent>",
        ),
    )
    _artifact(repo, "org.x", "managed", "2.0", _pom("org.x", "managed", "2.0"))
    _artifact(repo, "org.x", "dropped", "1", _pom("org.x", "dropped", "1"))
    (repo / "org/x/managed/debian").mkdir()  # Debian's alias beside the release
    repos = maven.Repositories([repo])
    wanted = maven.Dependency(
        "org.x", "lib", "1.5", exclusions=frozenset({("org.x", "dropped")})
    )  # 1.5 is not there: the release that is there serves, and a note says so
    found = maven.resolve([wanted], repos, frozenset())
    assert [a.coordinate for a in found.artifacts] == ["org.x:lib:2.0", "org.x:managed:2.0"]
    assert found.missing == [] and "1.5 asked, 2.0 used" in found.notes[0]
    absent = maven.resolve([maven.Dependency("org.y", "nowhere", "1")], repos, frozenset())
    assert absent.missing == ["org.y:nowhere:1"]


def test_a_hostile_or_foreign_pom_is_refused_with_its_reason() -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><project><groupId>&lol2;</groupId></project>'
    )
    with pytest.raises(maven.PomError, match="not readable XML"):
        maven.parse_pom(bomb)
    with pytest.raises(maven.PomError, match="not a Maven project"):
        maven.parse_pom("<html/>")
    pom = maven.parse_pom(
        _pom(
            "g",
            "a",
            "1",
            "<properties><java.v>1.8</java.v><maven.compiler.source>${java.v}"
            "</maven.compiler.source></properties>",
        )
    )
    assert pom.java_release(pom.properties) == 8


def test_an_environment_asking_for_a_newer_java_or_a_missing_jar_is_an_environment_error() -> None:
    with pytest.raises(EnvError, match="Java 99 is asked for"):
        builder.resolve(EnvSpec(toolchain="java", version="99", pins=()))
    with pytest.raises(EnvError, match=r"org\.nowhere:nothing:1"):
        builder.resolve(EnvSpec(toolchain="java", version="11", pins=("org.nowhere:nothing:1",)))


# ------------------------------------------------------------------ the build agent


def test_the_build_records_release_harness_junit_and_per_test_coverage(
    repos: dict[str, Built],
) -> None:
    money, stats = repos["java-money"].build, repos["java-textstats"].build
    assert money.ecosystem == "java" and money.toolchain_version.startswith("11 (JDK 17.")
    assert stats.toolchain_version.startswith("17 (JDK 17.")
    assert any("junit:junit" in n for n in money.notes)  # the harness's JUnit serves it
    for built in repos.values():
        base = built.build.baseline
        assert len(base.passing) >= 15 and set(base.outcomes.values()) == {"passed"}
        assert not base.collect_errors
        snap = snapshots.load(built.build.snapshot)
        for entry in base.functions:  # every covered method is in main code, at its line
            path, line, name = entry.rsplit(":", 2)
            assert path.startswith("src/main/java/"), entry
            found = source.outline(path, snap.read(path))
            method = any(f.name == name and int(line) in f.lines for f in found.functions)
            implicit = any(  # a class without a declared constructor: its own name, within it
                q.rsplit(".", 1)[-1] == name and start <= int(line) <= end
                for q, start, end in found.classes
            )
            assert method or implicit, entry
    # a parameterized test's invocations are tests of their own
    assert any("[" in name for name in repos["java-textstats"].build.baseline.outcomes)


def test_a_repository_that_cannot_be_built_is_rejected_with_its_reason(
    service: ExecutionService, tmp_path: Path
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "pom.xml").write_text("<project><unclosed></project>")
    with pytest.raises(RepoRejected, match="not readable XML"):
        build_repo(bad, service)
    untested = tmp_path / "untested"
    (untested / "src/main/java/a").mkdir(parents=True)
    (untested / "pom.xml").write_text(_pom("g", "untested", "1"))
    (untested / "src/main/java/a/A.java").write_text("package a;\npublic class A {}\n")
    with pytest.raises(RepoRejected, match="no test sources"):
        build_repo(untested, service)
    future = tmp_path / "future"
    (future / "src/test/java/a").mkdir(parents=True)
    (future / "pom.xml").write_text(
        _pom(
            "g",
            "future",
            "1",
            "<properties><maven.compiler.release>99</maven.compiler.release></properties>",
        )
    )
    (future / "src/test/java/a/ATest.java").write_text("package a;\npublic class ATest {}\n")
    with pytest.raises(RepoRejected, match="compiles for Java 99"):
        build_repo(future, service)
    missing = tmp_path / "missing"
    (missing / "src/test/java/a").mkdir(parents=True)
    (missing / "pom.xml").write_text(
        _pom(
            "g",
            "missing",
            "1",
            "<dependencies><dependency><groupId>org.nowhere</groupId>"
            "<artifactId>nothing</artifactId><version>1</version></dependency></dependencies>",
        )
    )
    (missing / "src/test/java/a/ATest.java").write_text("package a;\npublic class ATest {}\n")
    with pytest.raises(RepoRejected, match=r"org\.nowhere:nothing:1"):
        build_repo(missing, service)


def test_selected_tests_compile_with_the_helpers_they_use_and_a_broken_helper_fails_them(
    service: ExecutionService, tmp_path: Path
) -> None:
    """An answer's run compiles the selected test files and what they use from the test
    folders (javac's -sourcepath), not every test file: a helper is found, a test file that
    does not compile and is not selected costs nothing, and a helper that does not compile
    fails the test that uses it (every test file compiled, as without a selection)."""
    repo = tmp_path / "calc"
    (repo / "src/main/java/calc").mkdir(parents=True)
    (repo / "src/test/java/calc").mkdir(parents=True)
    junit = (
        "<dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId>"
        "<version>4.13.2</version><scope>test</scope></dependency></dependencies>"
    )
    (repo / "pom.xml").write_text(_pom("g", "calc", "1", junit))
    calc = (
        "package calc;\npublic class Calc {\n"
        "  public static int twice(int x) { return 2 * x; }\n}\n"
    )
    (repo / "src/main/java/calc/Calc.java").write_text(calc)
    helper = "package calc;\nclass Helpers {\n  static int four() { return 4; }\n}\n"
    (repo / "src/test/java/calc/Helpers.java").write_text(helper)
    (repo / "src/test/java/calc/CalcTest.java").write_text(
        "package calc;\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n"
        "public class CalcTest {\n  @Test public void twice() { assertEquals(Helpers.four(), "
        "Calc.twice(2)); }\n}\n"
    )
    (repo / "src/test/java/calc/BrokenTest.java").write_text(
        "package calc;\npublic class BrokenTest { int x = notDeclared(); }\n"
    )
    build, env = build_repo(repo, service)
    assert build.baseline.outcomes["src/test/java/calc/CalcTest.java::twice"] == "passed"

    def run(path: str, program: str) -> Execution:
        test = TestSpec(
            kind=TestKind.JAVA_REPO,
            code="",
            repo=build.snapshot,
            path=path,
            select=("src/test/java/calc/CalcTest.java::twice",),
        )
        return service.run(env, program, test, Limits(wall_seconds=300), (), fresh=True)

    done = run("src/main/java/calc/Calc.java", calc)
    assert done.status is Status.PASSED, done.message
    assert not done.details["collect_errors"]
    done = run("src/main/java/calc/Calc.java", calc.replace("2 * x", "3 * x"))
    assert done.status is Status.FAILED and done.exc_type == "TestFailed", done.message
    done = run("src/test/java/calc/Helpers.java", helper.replace("return 4;", "return four;"))
    assert done.status is Status.FAILED and done.exc_type == "LoadError", done.message
    assert "CalcTest.java" in done.message


# ------------------------------------------------------------------ collection


def test_fix_cases_are_exactly_the_planted_diagnostics(repos: dict[str, Built]) -> None:
    for name, built in repos.items():
        found = {
            (c.path, c.diagnostic.line, c.diagnostic.rule)
            for c in built.cases
            if isinstance(c, FixCase)
        }
        assert found == planted(name), name


def test_every_scenario_is_collected_and_generated_files_give_none(
    repos: dict[str, Built],
) -> None:
    for name, built in repos.items():
        assert {c.scenario for c in built.cases} == set(Kind), name
        snap = snapshots.load(built.build.snapshot)
        generated = {p for p in snap.files if "DO NOT EDIT" in snap.read(p)[:300]}
        assert generated and not [c for c in built.cases if c.path in generated], name
        assert {c.language for c in built.cases} == {Language.JAVA}, name
        assert all("```java" in prompt(c) for c in built.cases if c.scenario is Kind.FIX)


# ------------------------------------------------------------------ the reference model


def test_the_reference_passes_doc_generate_test_workspace_and_fails_every_fix(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    """Every case's reference answer is scored; 4 generate and 4 test cases per repository
    are executed (`pinbench run --task ide -m reference` executes all of them)."""
    references = check_references(service, repos, executed=4)
    assert references >= 2


# ------------------------------------------------------------------ wrong answers fail


def _fix_case(built: Built, rule: str) -> FixCase:
    return next(c for c in built.cases if isinstance(c, FixCase) and c.diagnostic.rule == rule)


def _region(case: FixCase) -> list[str]:
    lines = snapshots.load(case.snapshot).read(case.path).splitlines()
    return lines[case.region[0] - 1 : case.region[1]]


def test_doc_missing_a_tag_or_written_elsewhere_fails(repos: dict[str, Built]) -> None:
    built = repos["java-money"]
    case = next(c for c in built.cases if isinstance(c, DocCase) and "@param" in c.reference)
    assert static(case, case.reference)[1] is True
    first_param = next(line for line in case.reference.splitlines() if "@param" in line)
    assert static(case, case.reference.replace(first_param + "\n", ""))[1] is False
    assert static(case, "It does what it says.")[1] is False


def test_fix_that_removes_the_problem_passes_one_adding_another_or_hiding_it_fails(
    repos: dict[str, Built],
) -> None:
    case = _fix_case(repos["java-money"], "cast")
    region = _region(case)
    fixed = "\n".join(re.sub(r"\(long\)\s*", "", line) for line in region)
    assert fixed != "\n".join(region)
    scores, ok = static(case, f"```java\n{fixed}\n```")
    assert ok is True, scores
    lines = fixed.splitlines()
    opening = next(i for i, line in enumerate(lines) if line.rstrip().endswith("{"))
    lines.insert(opening + 1, "        java.util.List leftover = null;")  # a raw type
    raw = "\n".join(lines)
    scores, ok = static(case, f"```java\n{raw}\n```")
    assert scores["fix.resolved"] == 1.0 and scores["fix.fewer"] == 0.0 and ok is False
    hidden = '    @SuppressWarnings("cast")\n' + "\n".join(region)
    scores, ok = static(case, f"```java\n{hidden}\n```")
    assert scores["fix.resolved"] == 0.0 and ok is False
    broken = "\n".join(region).replace("return", "return undefinedName +", 1)
    scores, ok = static(case, f"```java\n{broken}\n```")
    assert ok is False  # it no longer compiles: the error counts with what remains


def test_generate_wrong_body_fails_its_covering_tests(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    built = repos["java-textstats"]
    case = next(
        c
        for c in built.cases
        if isinstance(c, GenerateCase)
        and source.outline(c.path, snapshots.load(c.snapshot).read(c.path)).find(c.qualname).returns  # type: ignore[union-attr]
    )
    done = execute(service, built, case, "```java\nthrow new UnsupportedOperationException();\n```")
    assert done.status is Status.FAILED and done.exc_type == "TestFailed", done.message
    done = execute(service, built, case, "```java\nreturn nosuchthing;\n```")
    assert done.status is Status.FAILED and done.exc_type == "CompileError", done.message


def _with_test(reference: str, name: str, body: str) -> str:
    """The reference test class with one more test method."""
    method = f"  @org.junit.jupiter.api.Test\n  void {name}() {{\n    {body}\n  }}\n}}\n"
    return "```java\n" + reference.rstrip().rstrip("}") + method + "```"


def test_test_that_fails_never_calls_the_focal_method_or_exits_fails(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    built = repos["java-money"]
    case = next(c for c in built.cases if isinstance(c, TestCase) and c.reference)
    assert case.test_path.endswith("PinbenchGeneratedTest.java")
    done = execute(service, built, case, f"```java\n{case.reference}\n```")
    assert done.status is Status.PASSED, done.message
    package = case.test_path.split("src/test/java/", 1)[1].rsplit("/", 1)[0].replace("/", ".")
    unrelated = (
        f"```java\npackage {package};\npublic class PinbenchGeneratedTest {{\n"
        "  @org.junit.jupiter.api.Test\n  void nothing() {\n"
        "    org.junit.jupiter.api.Assertions.assertEquals(2, 1 + 1);\n  }\n}\n```"
    )
    done = execute(service, built, case, unrelated)
    assert done.exc_type == "FocalNotCalled", done.message
    wrong = "org.junit.jupiter.api.Assertions.assertEquals(1, 2);"
    done = execute(service, built, case, _with_test(case.reference, "wrong", wrong))
    assert done.status is Status.FAILED and done.exc_type == "TestFailed", done.message
    for name, body in (("zquits", "System.exit(0);"), ("zhalts", "Runtime.getRuntime().halt(0);")):
        done = execute(service, built, case, _with_test(case.reference, name, body))
        assert done.status is Status.FAILED, (name, done.message)
    broken = f"```java\n{case.reference.replace('class', 'clas', 1)}\n```"
    assert execute(service, built, case, broken).status is Status.FAILED


def test_ide_runs_choose_java(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from pinbench.cli import app

    summary = tmp_path / "s.json"
    result = CliRunner().invoke(
        app,
        [
            "run", "--task", "ide", "-d", "builtin", "-m", "reference", "--split", "workspace",
            "--language", "java", "--results", str(tmp_path / "res"), "--json", str(summary),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    samples = json.loads(summary.read_text())["samples"]
    assert {s["problem_id"].split("/")[1] for s in samples} == set(JAVA_REPOS)
    assert all(s["outcome"] == "passed" for s in samples)


def test_debian_package_names_are_guessed_from_the_coordinate() -> None:
    from pinbench.envs.java import debian

    assert "libgoogle-gson-java" in debian.candidates("com.google.code.gson:gson:2.9.1")
    assert "libjetty9-java" in debian.candidates("org.eclipse.jetty:jetty-server:9.4.48")
    assert debian.candidates("org.apache.commons:commons-lang3:3.12.0")[0] == (
        "libcommons-lang3-java"
    )
    assert all(re.fullmatch(r"lib[a-z0-9.+-]+-java", n) for n in debian.candidates("a:B_c;d:1"))


def test_a_dependency_the_machine_lacks_comes_from_its_debian_package(
    service: ExecutionService, tmp_path: Path
) -> None:
    """gson is not installed: its Debian package is downloaded and unpacked (not installed),
    and the test that uses it compiles and passes in the sandbox."""
    repo = tmp_path / "uses-gson"
    (repo / "src/main/java/a").mkdir(parents=True)
    (repo / "src/test/java/a").mkdir(parents=True)
    (repo / "pom.xml").write_text(
        _pom(
            "g", "uses-gson", "1",
            "<dependencies><dependency><groupId>com.google.code.gson</groupId>"
            "<artifactId>gson</artifactId><version>2.9.1</version></dependency></dependencies>",
        )
    )  # fmt: skip
    (repo / "src/main/java/a/Json.java").write_text(
        "package a;\npublic class Json {\n    public static String of(int[] xs) {\n"
        "        return new com.google.gson.Gson().toJson(xs);\n    }\n}\n"
    )
    (repo / "src/test/java/a/JsonTest.java").write_text(
        "package a;\nimport org.junit.jupiter.api.Test;\n"
        "import static org.junit.jupiter.api.Assertions.assertEquals;\n"
        "public class JsonTest {\n    @Test\n    void encodes() {\n"
        '        assertEquals("[1,2]", Json.of(new int[] {1, 2}));\n    }\n}\n'
    )
    build, _ = build_repo(repo, service)
    assert any(e.startswith("debian:libgoogle-gson-java") for e in build.env.extras)
    assert build.baseline.outcomes == {"src/test/java/a/JsonTest.java::encodes": "passed"}
    assert any(f.endswith(":of") for f in build.baseline.functions)


def test_an_answer_using_a_deprecated_jdk_api_passes_with_its_deprecation(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    """javac's [deprecation]/[removal] warnings on the lines the answer wrote are the
    execution's deprecation signals; the reference body raises none."""
    built = repos["java-textstats"]
    task = IdeTask()
    case = next(c for c in built.cases if isinstance(c, GenerateCase))
    reference = task.reference_answer(item_of(case))  # type: ignore[arg-type]
    assert reference.startswith("```java\n")
    clean = execute(service, built, case, reference)
    assert clean.status is Status.PASSED, clean.message
    assert clean.deprecations is not None and clean.deprecations.found == ()
    line = "java.util.Date old = new java.util.Date(99, 0, 1);"  # deprecated since Java 1.1
    head, brace, rest = reference.partition("{\n")  # the method's first line, then its body
    boxed = f"{head}{brace}{line}\n{rest}"
    used = execute(service, built, case, boxed)
    assert used.status is Status.PASSED, used.message
    assert used.deprecations is not None
    (found,) = used.deprecations.found
    assert found.category == "deprecation" and found.api == "Date.Date(int,int,int)"
    assert found.code == line
