"""The IDE scenarios on C/C++ (CMake) repositories, end to end with real parts: the shipped
repositories built by the CMake build agent (the machine's clang, CMake and GoogleTest, the
FetchContent declaration of googletest served offline), configured, built and run in the
sandbox with one process per GoogleTest test and per-test coverage read from clang's raw
profiles; clang-tidy and the Doxygen check on the host; good answers pass, plausible wrong
ones fail, hostile tests do not pass."""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from pinbench.core import snapshots
from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.cpp import builder
from pinbench.execution.local import ExecutionService
from pinbench.sandbox.inside import _cpp as runner
from pinbench.tasks.ide.build import build_repo
from pinbench.tasks.ide.cases import DocCase, FixCase, GenerateCase, Kind, Language, TestCase
from pinbench.tasks.ide.collect import builtin_repositories, collect
from pinbench.tasks.ide.cpp import edits, source, tidy
from pinbench.tasks.ide.repo import RepoRejected
from pinbench.tasks.ide.selection import Context, Quotas
from pinbench.tasks.ide.task import prompt
from tests.ide.shipped import Built, built_repos, check_references, execute, planted, static

CPP_REPOS = ("c-ringbuf", "cpp-strkit")


@pytest.fixture(scope="module")
def service() -> Iterator[ExecutionService]:
    with ExecutionService(jobs=2) as svc:
        yield svc


@pytest.fixture(scope="module")
def repos(service: ExecutionService) -> dict[str, Built]:
    return built_repos(service, CPP_REPOS)


# ------------------------------------------------------------------ reading the source


SAMPLE = """#ifndef SHAPES_H
#define SHAPES_H
#include <stdexcept>
#include <vector>

namespace geo {
namespace {
int hidden(int x) { return x; }
}  // namespace

/**
 * Scale every value by a factor.
 *
 * @param values the values
 * @param factor what to multiply by
 * @return the scaled values
 * @throws std::invalid_argument when the factor is negative
 */
template <typename T>
std::vector<T> scale(const std::vector<T>& values, T factor) {
  if (factor < 0) {
    throw std::invalid_argument("negative");
  }
  auto check = [](int v) { if (v) throw std::logic_error("lambda"); };
  return values;
}

class GEO_API Shape {
 public:
  explicit Shape(int sides) : sides_(sides) {}
  /// The number of sides.
  /// @return how many sides it has
  int sides() const { return sides_; }
  void grow(int by) {
    sides_ += by;
  }

 private:
  static int count(int a, int) {
    return a;
  }
  int sides_;
};

}  // namespace geo

extern "C" int c_api(const char* name, int (*callback)(int)) { return 0; }
void geo::Shape::later(std::map<int, std::vector<int>> table)
{
  throw Error{"x"};
}
#endif
"""


def test_the_outline_reads_definitions_scopes_doxygen_and_what_they_throw() -> None:
    found = source.outline("include/geo/shapes.h", SAMPLE)
    by_name = {f.qualname: f for f in found.functions}
    assert set(by_name) == {
        "geo::hidden",
        "geo::scale",
        "geo::Shape::Shape",
        "geo::Shape::sides",
        "geo::Shape::grow",
        "geo::Shape::count",
        "c_api",
        "geo::Shape::later",
    }
    scale = by_name["geo::scale"]
    assert scale.line == 19 and scale.end == 26 and scale.body == (20, 26)
    assert scale.body_whole_lines and scale.doc_lines == (11, 18) and scale.returns
    assert scale.params == ("values", "factor") and scale.exported
    assert scale.throws == ("std::invalid_argument",)  # the lambda's throw is not its own
    assert scale.lines == (19, 20)  # where coverage says its code starts: the `{` line
    assert by_name["geo::hidden"].private  # an anonymous namespace
    ctor = by_name["geo::Shape::Shape"]  # the export macro does not hide the class
    assert not ctor.returns and ctor.params == ("sides",) and ctor.in_class
    assert by_name["geo::Shape::sides"].doc is not None  # a run of `///` lines
    assert by_name["geo::Shape::count"].private and by_name["geo::Shape::count"].params == ("a",)
    assert not by_name["geo::Shape::grow"].returns
    assert by_name["c_api"].params == ("name", "callback")
    later = by_name["geo::Shape::later"]
    assert later.body == (49, 51) and later.lines == (48, 49) and later.throws == ("Error",)
    assert ("geo::Shape", 28, 43) in found.classes
    assert source.region(SAMPLE, 22) == (11, 26)  # the function and its comment
    assert source.parses(SAMPLE) and not source.parses(
        SAMPLE.replace("return values;", "return ;;}")
    )


def test_the_doxygen_check_names_every_missing_part() -> None:
    path = "include/geo/shapes.h"
    assert source.check_doc(path, SAMPLE, "geo::scale") == ()
    assert source.check_doc(path, SAMPLE, "geo::Shape::sides") == ()
    bare = SAMPLE.replace(" * @return the scaled values\n", "").replace("@param factor", "@param f")
    joined = " ".join(source.check_doc(path, bare, "geo::scale"))
    assert "no @param for factor" in joined and "@param f names no parameter" in joined
    assert "no @return" in joined
    thrown = SAMPLE.replace(" * @throws std::invalid_argument when the factor is negative\n", "")
    assert source.check_doc(path, thrown, "geo::scale") == ("no @throws for std::invalid_argument",)
    backslash = SAMPLE.replace("@param values", "\\param[in] values")
    assert source.check_doc(path, backslash, "geo::scale") == ()  # Doxygen's other spelling
    assert source.check_doc(path, SAMPLE, "geo::Shape::grow") == ("no Doxygen comment",)


EXPORTED = """#if defined(_MSC_VER)
#   ifdef LIB_EXPORT
#       // the null directive with a comment, as in tinyxml2.h: the grammar reads an error
#       define LIB_API __declspec(dllexport)
#   endif
#endif
class LIB_API Widget { int x; };

/**
 * Adds two numbers.
 * @param a the first
 * @param b the second
 * @return the sum
 */
int add(int a, int b) {
  int c = a + b;
  c = c * 1;
  return c;
}
"""


def test_a_file_the_grammar_cannot_read_whole_still_has_its_functions_checked() -> None:
    # tinyxml2.h's null directive, fmt's FMT_MSC_WARNING(suppress : 6102): the grammar reads
    # an error where the compiler reads none. A function it read whole is checked as usual,
    # and an answer is judged by the errors it adds, not by the file's own
    path = "src/add.cc"
    assert not source.parses(EXPORTED)
    assert source.check_doc(path, EXPORTED, "add") == ()
    assert source.check_doc(path, EXPORTED.replace(" * @param b the second\n", ""), "add") == (
        "no @param for b",
    )
    broken = EXPORTED.replace("c = c * 1;", "c = c * ;")
    assert source.check_doc(path, broken, "add") == ("the function and its comment do not parse",)
    documented = EXPORTED.replace(" * Adds two numbers.", " * Adds two numbers, as ints.")
    assert source.parses(documented, EXPORTED)
    assert not source.parses(broken, EXPORTED)
    assert not source.parses(documented, "")  # a file of its own is read whole
    # an error traded for another is added, though there are no more of them
    null = next(line for line in EXPORTED.splitlines(keepends=True) if "null directive" in line)
    traded = broken.replace(null, "")
    assert not source.parses(traded, EXPORTED)


MACROS = """#define LIB_CONSTEXPR constexpr
#define LIB_BEGIN_NAMESPACE \\
  namespace lib {
#define LIB_END_NAMESPACE }
LIB_BEGIN_NAMESPACE
/**
 * Doubles a number.
 * @param x the number
 * @return twice x
 */
LIB_CONSTEXPR int twice(int x) {
  int y = x;
  y = y * 2;
  return y;
}
LIB_END_NAMESPACE
"""


def test_macros_the_grammar_cannot_expand_are_read_as_the_compiler_would_see_them() -> None:
    # fmt: FMT_BEGIN_NAMESPACE alone on a line, FMT_CONSTEXPR before a return type; their
    # #define lines stay as written
    assert source.parses(MACROS)
    [function] = source.outline("src/lib.cc", MACROS).functions
    assert function.qualname == "twice" and function.params == ("x",) and function.returns
    assert source.check_doc("src/lib.cc", MACROS, "twice") == ()
    assert "#define LIB_CONSTEXPR constexpr" in source.blank_macros(MACROS)
    assert "#define LIB_BEGIN_NAMESPACE \\\n  namespace lib {" in source.blank_macros(MACROS)


def test_tests_vendored_code_and_examples_are_not_the_project() -> None:
    from pinbench.core.snapshots import Snapshot

    files = (
        "src/node.cpp",
        "include/yaml/node.h",
        "test/node_test.cpp",
        "src/parser_test.cc",
        "third_party/gtest/gtest.h",
        "examples/demo.cpp",
        ".pc/patch/src/node.cpp",
        "util/read.cpp",
    )
    snap = Snapshot(digest="x", root=Path("/"), files=files, pythonpath=(), skipped=())
    assert source.code_files(snap) == ["include/yaml/node.h", "src/node.cpp", "util/read.cpp"]
    assert source.test_files(snap) == ["src/parser_test.cc", "test/node_test.cpp"]
    assert edits.test_path_for(["test/a_test.cpp", "test/b_test.cpp", "x_test.cpp"]) == (
        "test/pinbench_generated_test.cpp"
    )


def test_clang_tidy_output_is_read_and_configuration_diagnostics_left_out(tmp_path: Path) -> None:
    root = tmp_path
    output = (
        f"{root}/src/a.cpp:3:10: warning: the parameter 's' is copied "
        "[performance-unnecessary-value-param]\n"
        "int f(std::string s) {\n"
        "         ^\n"
        f"{root}/src/a.cpp:9:5: error: use of undeclared identifier 'x' [clang-diagnostic-error]\n"
        f"{root}/src/a.cpp:1:10: error: 'config.h' file not found [clang-diagnostic-error]\n"
        "/usr/include/c++/12/bits/x.h:1:1: warning: elsewhere [misc-x]\n"
    )
    first, second, third = tidy.parse(output, root)
    assert (first.path, first.line, first.column) == ("src/a.cpp", 3, 10)
    assert first.rule == "performance-unnecessary-value-param" and first.severity == "warning"
    assert (second.rule, second.severity) == ("clang-diagnostic-error", "error")
    assert tidy._excluded(third) and not tidy._excluded(second)


def test_raw_profiles_are_read_and_names_shortened() -> None:
    # two functions: the first ran (a counter above zero), the second did not
    def record(name: str, pointer: int, count: int) -> bytes:
        ref = struct.unpack("<Q", hashlib.md5(name.encode()).digest()[:8])[0]
        return struct.pack("<QQQQQI", ref, 0, pointer, 0, 0, count) + bytes(4)

    delta = 2 * 48  # the counters start right after the two data records
    records = record("_Z1fv", delta, 2) + record("_Z1gv", delta - 48 + 16, 1)
    counters = struct.pack("<3Q", 0, 5, 0)
    names = b"\x00" * 8
    header = struct.pack("<11Q", runner.PROFILE_MAGIC, 8, 0, 2, 0, 3, 0, len(names), delta, 0, 1)
    path = Path(__file__).parent / "_profile.tmp"
    try:
        path.write_bytes(header + records + counters + names)
        assert runner.hit_functions(str(path)) == {runner.name_ref("_Z1fv")}
        path.write_bytes(struct.pack("<11Q", runner.PROFILE_MAGIC, 9, *([0] * 9)))
        with pytest.raises(ValueError, match="version 9"):
            runner.hit_functions(str(path))
    finally:
        path.unlink(missing_ok=True)
    assert runner.short_name("yaml::Node<int>::size() const") == "size"
    assert runner.short_name("geo::Shape::~Shape()") == "~Shape"
    assert runner.short_name("geo::operator==(geo::A const&, geo::A const&)") == "operator=="
    assert runner.short_name("std::map<int, std::vector<int> > f(int)") == "f"
    assert runner.short_name("rb_push") == "rb_push"
    assert runner.short_name("strkit::slugify[abi:cxx11](std::string_view)") == "slugify"
    assert runner.short_name("strkit::(anonymous namespace)::find_unit(std::string)") == (
        "find_unit"
    )


def test_an_environment_for_another_clang_or_with_pins_is_an_environment_error() -> None:
    with pytest.raises(EnvError, match="clang 99 is asked for"):
        builder.resolve(EnvSpec(toolchain="cpp", version="99", pins=()))
    with pytest.raises(EnvError, match="take no pins"):
        builder.resolve(EnvSpec(toolchain="cpp", version=None, pins=("zlib==1",)))


# ------------------------------------------------------------------ the build agent


def _project(root: Path, cmake: str, files: dict[str, str]) -> Path:
    root.mkdir()
    (root / "CMakeLists.txt").write_text(cmake)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


HEADER = "cmake_minimum_required(VERSION 3.16)\nproject(p LANGUAGES CXX)\n"


def test_a_repository_that_cannot_be_built_is_rejected_with_its_reason(
    service: ExecutionService, tmp_path: Path
) -> None:
    make = tmp_path / "make"
    make.mkdir()
    (make / "Makefile").write_text("all:\n\tcc -o a a.c\n")
    (make / "a.c").write_text("int main(void) { return 0; }\n")
    with pytest.raises(RepoRejected, match="a Makefile project"):
        build_repo(make, service)
    untested = _project(tmp_path / "untested", HEADER + "add_library(p a.cpp)\n", {"a.cpp": ""})
    with pytest.raises(RepoRejected, match="registers no tests"):
        build_repo(untested, service)
    future = _project(
        tmp_path / "future",
        "cmake_minimum_required(VERSION 99.1)\nproject(p)\nenable_testing()\nadd_test(t t)\n",
        {},
    )
    with pytest.raises(RepoRejected, match=r"needs CMake 99\.1"):
        build_repo(future, service)
    network = _project(
        tmp_path / "network",
        HEADER + "include(FetchContent)\nFetchContent_Declare(fmt URL https://x.invalid/fmt.zip)\n"
        "FetchContent_MakeAvailable(fmt)\nadd_library(p a.cpp)\ntarget_link_libraries(p fmt::fmt)\n"
        "enable_testing()\nadd_test(NAME t COMMAND true)\n",
        {"a.cpp": "int f() { return 1; }\n"},
    )
    with pytest.raises(RepoRejected, match=r"does not pass a single test: cmake could not"):
        build_repo(network, service)


def test_a_suite_runs_each_test_alone_and_a_test_that_does_not_build_fails_alone(
    service: ExecutionService, tmp_path: Path
) -> None:
    """Two GoogleTest executables (one does not compile) and a plain CTest test: each test's
    outcome and coverage are its own; a crash, an exit or a hang fails only its test; an
    answer's selected tests build only their own executables."""
    lib = (
        "int twice(int x) {\n  int y = x;\n  return 2 * y;\n}\nint never(int x) {\n  return x;\n}\n"
    )
    tests = (
        "#include <gtest/gtest.h>\n#include <cstdlib>\nint twice(int);\n"
        "TEST(T, Twice) { EXPECT_EQ(twice(2), 4); }\n"
        "TEST(T, Wrong) { EXPECT_EQ(twice(2), 5); }\n"
        "TEST(T, Exits) { std::exit(0); }\n"
        "TEST(T, Aborts) { std::abort(); }\n"
        "TEST(T, DISABLED_Off) { FAIL(); }\n"
        "TEST(T, Plain) { SUCCEED(); }\n"
    )
    repo = _project(
        tmp_path / "suite",
        HEADER + "find_package(GTest REQUIRED)\nenable_testing()\ninclude(GoogleTest)\n"
        "add_library(lib src/lib.cpp)\n"
        "add_executable(good tests/good_test.cpp)\n"
        "target_link_libraries(good lib GTest::gtest_main)\n"
        "gtest_discover_tests(good)\n"
        "add_executable(bad tests/bad_test.cpp)\ntarget_link_libraries(bad lib GTest::gtest_main)\n"
        "gtest_discover_tests(bad)\n"
        "add_executable(plain tests/plain.cpp)\nadd_test(NAME plain COMMAND plain)\n",
        {
            "src/lib.cpp": lib,
            "tests/good_test.cpp": tests,
            "tests/bad_test.cpp": "#include <gtest/gtest.h>\nTEST(B, X) { not_declared(); }\n",
            "tests/plain.cpp": "int main() { return 3; }\n",
        },
    )
    build, env = build_repo(repo, service)
    outcomes = build.baseline.outcomes
    assert outcomes == {
        "tests/good_test.cpp::T.Twice": "passed",
        "tests/good_test.cpp::T.Wrong": "failed",
        "tests/good_test.cpp::T.Exits": "failed",  # no result written: not a pass
        "tests/good_test.cpp::T.Aborts": "failed",
        "tests/good_test.cpp::T.DISABLED_Off": "skipped",
        "tests/good_test.cpp::T.Plain": "passed",
        "tests/bad_test.cpp::(file)": "failed",
        "ctest::plain": "failed",
    }
    assert any("not_declared" in e for e in build.baseline.collect_errors)
    assert build.baseline.covering("src/lib.cpp", "twice", {1}) == ["tests/good_test.cpp::T.Twice"]
    assert build.baseline.covering("src/lib.cpp", "never", {5}) == []
    assert build.baseline.targets["lib"].library and build.baseline.targets["lib"].sources == [
        "src/lib.cpp"
    ]
    assert build.toolchain_version.startswith("clang 14.") and build.ecosystem == "cpp"

    def selected(*select: str) -> Execution:
        test = TestSpec(
            kind=TestKind.CPP_REPO, code="", repo=build.snapshot, path="src/lib.cpp", select=select
        )
        return service.run(env, lib, test, Limits(wall_seconds=300), (), fresh=True)

    # Selected tests build only their executable: the one that does not compile and the plain
    # test are not built, so they neither run nor fail the answer.
    done = selected("tests/good_test.cpp::T.Twice", "tests/good_test.cpp::T.Plain")
    assert done.status is Status.PASSED, done.message
    assert set(done.details["outcomes"]) == {
        f"tests/good_test.cpp::T.{name}" for name in ("Twice", "Plain", "DISABLED_Off")
    }
    assert not done.details["collect_errors"]
    # A selected test of the executable that does not compile fails with the compiler's error;
    # a wrong answer fails its selected test.
    done = selected("tests/bad_test.cpp::B.X")
    assert done.status is Status.FAILED and "not_declared" in done.message
    wrong = lib.replace("return 2 * y;", "return 3 * y;")
    test = TestSpec(
        kind=TestKind.CPP_REPO,
        code="",
        repo=build.snapshot,
        path="src/lib.cpp",
        select=("tests/good_test.cpp::T.Twice",),
    )
    done = service.run(env, wrong, test, Limits(wall_seconds=300), (), fresh=True)
    assert done.status is Status.FAILED and done.exc_type == "TestFailed", done.message
    # A test of CTest's own (no executable's source to map it to) builds everything.
    done = selected("ctest::plain")
    assert done.status is Status.FAILED and "ctest::plain" in done.details["outcomes"]
    assert "tests/bad_test.cpp::(file)" in done.details["outcomes"]


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
        base = built.build.baseline
        assert len(base.passing) >= 15 and set(base.outcomes.values()) == {"passed"}, name
        snap = snapshots.load(built.build.snapshot)
        generated = {p for p in snap.files if "DO NOT EDIT" in snap.read(p)[:300]}
        assert generated and not [c for c in built.cases if c.path in generated], name
        assert {c.language for c in built.cases} == {Language.CPP}, name
        assert all("```cpp" in prompt(c) for c in built.cases if c.scenario is Kind.FIX)
        for entry in base.functions:  # every covered function is the project's, at its line
            path, line, function = entry.rsplit(":", 2)
            found = source.outline(path, snap.read(path)).functions
            assert any(f.name == function and int(line) in f.lines for f in found), entry
    served = repos["cpp-strkit"].build.notes
    assert any("served by the machine's GoogleTest" in n for n in served)


# ------------------------------------------------------------------ the reference model


@pytest.mark.timeout(1800)  # every case builds the project in the sandbox
def test_the_reference_passes_doc_generate_test_workspace_and_fails_every_fix(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    """Every case's reference answer is scored; 4 generate and 4 test cases per repository
    are executed (`pinbench run --task ide -m reference` executes all of them)."""
    references = check_references(service, repos, executed=4)
    assert references >= 2


# ------------------------------------------------------------------ wrong answers fail


def test_doc_missing_a_tag_or_written_elsewhere_fails(repos: dict[str, Built]) -> None:
    built = repos["cpp-strkit"]
    case = next(c for c in built.cases if isinstance(c, DocCase) and "@param" in c.reference)
    assert static(case, case.reference)[1] is True
    first_param = next(line for line in case.reference.splitlines() if "@param" in line)
    assert static(case, case.reference.replace(first_param + "\n", ""))[1] is False
    assert static(case, "It does what it says.")[1] is False


def test_fix_that_hides_the_problem_or_breaks_the_code_fails(repos: dict[str, Built]) -> None:
    for built in repos.values():
        for case in [c for c in built.cases if isinstance(c, FixCase)][:2]:
            lines = snapshots.load(case.snapshot).read(case.path).splitlines()
            region = "\n".join(lines[case.region[0] - 1 : case.region[1]])
            hidden = region.replace("\n", "  // NOLINT\n", 1)
            scores, ok = static(case, f"```cpp\n{hidden}\n```")
            assert ok is False, (case.id, scores)
            broken = region + "\nint pinbench_broken() { return undeclared_name; }"
            scores, ok = static(case, f"```cpp\n{broken}\n```")
            assert ok is False, (case.id, scores)  # an error counts with what remains


def test_generate_wrong_body_fails_its_covering_tests(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    for built in repos.values():
        case = next(
            c
            for c in built.cases
            if isinstance(c, GenerateCase)
            and source.outline(c.path, snapshots.load(c.snapshot).read(c.path))
            .find(c.qualname)
            .returns  # type: ignore[union-attr]
        )
        wrong = "return 0;" if case.path.endswith(".c") else "return {};"  # C has no `{}`
        done = execute(service, built, case, f"```cpp\n{wrong}\n```")
        assert done.status is Status.FAILED and done.exc_type == "TestFailed", done.message
        done = execute(service, built, case, "```cpp\nreturn nosuchthing;\n```")
        assert done.status is Status.FAILED and done.exc_type == "LoadError", done.message
        assert "nosuchthing" in done.message


def test_test_that_fails_never_calls_the_focal_function_or_exits_fails(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    built = repos["c-ringbuf"]
    case = next(c for c in built.cases if isinstance(c, TestCase) and c.reference)
    assert case.test_path.endswith("/pinbench_generated_test.cpp")
    done = execute(service, built, case, f"```cpp\n{case.reference}\n```")
    assert done.status is Status.PASSED, done.message
    unrelated = "```cpp\n#include <gtest/gtest.h>\nTEST(G, Nothing) { EXPECT_EQ(2, 1 + 1); }\n```"
    done = execute(service, built, case, unrelated)
    assert done.exc_type == "FocalNotCalled", done.message
    for body in ("EXPECT_EQ(1, 2);", "std::exit(0);", "std::_Exit(0);", "std::abort();"):
        extra = f"\n#include <cstdlib>\nTEST(PinbenchExtra, Hostile) {{ {body} }}\n"
        done = execute(service, built, case, f"```cpp\n{case.reference}{extra}```")
        assert done.status is Status.FAILED, (body, done.message)
    # its own stand-in for the focal function: the library's is never called
    name = case.focal.name
    stand_in = (
        f'```cpp\n#include <gtest/gtest.h>\nextern "C" int {name}() {{ return 0; }}\n'
        f"TEST(G, Calls) {{ EXPECT_EQ({name}(), 0); }}\n```"
    )
    assert execute(service, built, case, stand_in).status is Status.FAILED
    with_main = f"```cpp\n{case.reference}\nint main() {{ return 0; }}\n```"
    assert execute(service, built, case, with_main).status is Status.FAILED


def test_ide_runs_choose_cpp(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from pinbench.cli import app

    summary = tmp_path / "s.json"
    result = CliRunner().invoke(
        app,
        [
            "run", "--task", "ide", "-d", "builtin", "-m", "reference", "--split", "workspace",
            "--language", "cpp", "--results", str(tmp_path / "res"), "--json", str(summary),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    samples = json.loads(summary.read_text())["samples"]
    assert {s["problem_id"].split("/")[1] for s in samples} == set(CPP_REPOS)
    assert all(s["outcome"] == "passed" for s in samples)


def test_the_include_a_test_needs_is_found() -> None:
    from pinbench.core.snapshots import Snapshot

    repo = next(p for p in builtin_repositories() if p.name == "c-ringbuf")
    snap = snapshots.take(repo)
    assert isinstance(snap, Snapshot)
    source_file = next(p for p in snap.files if p.startswith("src/") and p.endswith(".c"))
    function = next(f for f in source.outline(source_file, snap.read(source_file)).functions)
    header = edits.include_of(snap, source_file, function.name)
    assert header is not None and header.endswith(".h") and not header.startswith("include/")
    assert re.search(rf"\b{function.name}\s*\(", snap.read(f"include/{header}"))


def test_an_answer_that_calls_a_deprecated_function_passes_with_its_deprecation(
    service: ExecutionService, tmp_path: Path
) -> None:
    """clang's -Wdeprecated-declarations on the lines the answer wrote (the file compiled
    again, syntax only, as the build compiled it) is a deprecation signal of the execution;
    the same warning elsewhere in the file is the repository's."""
    header = (
        '#pragma once\n[[deprecated("use twice")]] int doubled(int x);\n'
        "/// Twice `x`, the long way round.\n/// @param x a number\n/// @return its double\n"
        "int twice(int x);\nint old(int x);\n"
    )
    lib = (
        '#include "lib.h"\nint doubled(int x) { return 2 * x; }\n'
        "int twice(int x) {\n  int y = x;\n  y = y + 0;\n  y = y * 1;\n  return 2 * y;\n}\n"
        "int old(int x) {\n  return doubled(x);\n}\n"
    )
    repo = _project(
        tmp_path / "deprecated",
        HEADER + "find_package(GTest REQUIRED)\nenable_testing()\ninclude(GoogleTest)\n"
        "add_library(lib src/lib.cpp)\ntarget_include_directories(lib PUBLIC src)\n"
        "add_executable(t tests/t_test.cpp)\ntarget_link_libraries(t lib GTest::gtest_main)\n"
        "gtest_discover_tests(t)\n",
        {
            "src/lib.h": header,
            "src/lib.cpp": lib,
            "tests/t_test.cpp": '#include <gtest/gtest.h>\n#include "lib.h"\n'
            "TEST(T, Twice) { EXPECT_EQ(twice(2), 4); }\n",
        },
    )
    build, env = build_repo(repo, service)
    context = Context(build, env, snapshots.load(build.snapshot), service, Quotas())
    collection = collect(context, [Kind.GENERATE])
    chosen = [c for c in collection.cases if isinstance(c, GenerateCase) and c.qualname == "twice"]
    assert chosen, collection.dropped
    built = Built(build, env, collection.cases)
    clean = execute(service, built, chosen[0], "```cpp\nreturn 2 * x;\n```")
    assert clean.status is Status.PASSED, clean.message
    assert clean.deprecations is not None and clean.deprecations.found == ()  # old()'s is not ours
    used = execute(service, built, chosen[0], "```cpp\nreturn doubled(x);\n```")
    assert used.status is Status.PASSED, used.message
    assert used.deprecations is not None
    (found,) = used.deprecations.found
    assert found.category == "deprecated-declarations" and found.api == "doubled"
    assert found.code == "return doubled(x);" and "use twice" in found.message
