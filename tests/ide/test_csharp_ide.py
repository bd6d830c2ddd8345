"""The IDE scenarios on C# repositories, end to end with real parts: the shipped repositories
built by the .csproj build agent (Debian's Mono, mcs and NUnit 2.6), compiled in the sandbox,
each NUnit test run in a process of its own under pinbench's runner and Mono profiler; mcs's
warnings and the XML documentation check on the host; good answers pass, plausible wrong ones
fail, hostile tests do not pass."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pinbench.core import snapshots
from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.outcome import Status
from pinbench.envs.csharp import builder
from pinbench.execution.local import ExecutionService
from pinbench.sandbox.inside import _csharp as runner
from pinbench.tasks.ide.build import build_repo
from pinbench.tasks.ide.cases import DocCase, FixCase, GenerateCase, Kind, Language, TestCase
from pinbench.tasks.ide.collect import collect
from pinbench.tasks.ide.csharp import edits, mcs, source
from pinbench.tasks.ide.repo import RepoRejected
from pinbench.tasks.ide.selection import Context, Quotas
from pinbench.tasks.ide.task import prompt
from tests.ide.shipped import Built, built_repos, check_references, execute, planted, static

CSHARP_REPOS = ("cs-invoicing", "cs-textgrid")


@pytest.fixture(scope="module")
def service() -> Iterator[ExecutionService]:
    with ExecutionService(jobs=2) as svc:
        yield svc


@pytest.fixture(scope="module")
def repos(service: ExecutionService) -> dict[str, Built]:
    return built_repos(service, CSHARP_REPOS)


# ------------------------------------------------------------------ reading the source


SAMPLE = """using System;

namespace Shop.Billing
{
    public class Invoice
    {
        private readonly decimal rate = 0.2m;

        /// <summary>Make an invoice.</summary>
        /// <param name="number">its number</param>
        public Invoice(int number)
        {
            Number = number;
        }

        public int Number { get; }

        /// <summary>The total with tax.</summary>
        /// <param name="net">the net amount</param>
        /// <returns>the gross amount</returns>
        /// <exception cref="T:System.ArgumentException">when net is negative</exception>
        [Obsolete]
        public decimal Gross(decimal net)
        {
            if (net < 0)
            {
                throw new ArgumentException("negative");
            }
            Func<int, int> f = x => { throw new InvalidOperationException(); };
            return net * (1 + rate);
        }

        private static int Helper(int first, params int[] xs) => xs.Length;
    }
}
"""


def test_the_outline_reads_methods_constructors_xml_docs_and_what_they_throw() -> None:
    found = source.outline("src/Shop/Invoice.cs", SAMPLE)
    by_name = {f.qualname: f for f in found.functions}
    assert set(by_name) == {
        "Shop.Billing.Invoice.Invoice",
        "Shop.Billing.Invoice.Gross",
        "Shop.Billing.Invoice.Helper",
    }
    gross = by_name["Shop.Billing.Invoice.Gross"]
    assert gross.line == 22 and gross.end == 31 and gross.body == (24, 31)  # its attribute
    assert gross.body_whole_lines and gross.doc_lines == (18, 21) and gross.returns
    assert gross.params == ("net",) and gross.exported and gross.throws == ("ArgumentException",)
    assert gross.lines == (22, 23, 24)  # Mono starts a method at its opening brace
    ctor = by_name["Shop.Billing.Invoice.Invoice"]
    assert not ctor.returns and ctor.params == ("number",) and 7 in ctor.lines  # initializer
    helper = by_name["Shop.Billing.Invoice.Helper"]
    assert helper.private and helper.body is None and helper.params == ("first", "xs")
    assert found.classes == (("Shop.Billing.Invoice", 5, 34),)
    assert source.region(SAMPLE, 27) == (18, 31)
    assert source.parses(SAMPLE) and not source.parses(SAMPLE.replace("return net", "return ne t"))


def test_the_xml_doc_check_names_every_missing_part() -> None:
    path = "src/Shop/Invoice.cs"
    assert source.check_doc(path, SAMPLE, "Shop.Billing.Invoice.Gross") == ()
    assert source.check_doc(path, SAMPLE, "Shop.Billing.Invoice.Invoice") == ()
    bare = SAMPLE.replace("        /// <returns>the gross amount</returns>\n", "").replace(
        'name="net"', 'name="amount"'
    )
    joined = " ".join(source.check_doc(path, bare, "Shop.Billing.Invoice.Gross"))
    assert "no @param for net" in joined and "@param amount names no parameter" in joined
    assert "no @return" in joined
    broken = SAMPLE.replace("<summary>The total with tax.</summary>", "<summary>The total")
    assert source.check_doc(path, broken, "Shop.Billing.Invoice.Gross") == (
        "the XML documentation comment is not well-formed XML",
    )
    hostile = SAMPLE.replace(
        "/// <summary>The total with tax.</summary>",
        '/// <!DOCTYPE d [<!ENTITY e "x">]><summary>&e;</summary>',
    )
    assert "not well-formed" in " ".join(
        source.check_doc(path, hostile, "Shop.Billing.Invoice.Gross")
    )


def test_the_summary_of_an_xml_comment_is_its_text_with_references_named() -> None:
    # Newtonsoft.Json writes <summary> on a line of its own: the summary was "<summary>",
    # so no workspace question was ever asked of it
    from pinbench.tasks.ide.braces import summary
    from pinbench.tasks.ide.csharp.collect import synthesize

    doc = (
        '/// <summary>\n/// Converts the <see cref="T:System.DateTime"/> to its JSON\n'
        '/// string, per <paramref name="format"/>.\n/// </summary>\n'
        '/// <param name="format">The format.</param>'
    )
    assert summary(doc) == "Converts the DateTime to its JSON string, per format."
    assert summary("/// <summary>The total with tax.</summary>") == "The total with tax."
    assert summary("/// <summary>broken") == ""
    [_, function] = edits.EDITS.outline("A.cs", SAMPLE).functions[:2]
    assert synthesize(function, summary(function.doc)).startswith(
        f"/// <summary>{summary(function.doc)}</summary>"
    )
    assert "<summary><summary>" not in synthesize(function, summary(function.doc))


CONDITIONAL = """\ufeff#if !(NET20 || PORTABLE) // the full framework
using System.Linq;
#endif
namespace Shop
{
    public static class Ticks
    {
        /// <summary>The ticks of a date.</summary>
        /// <param name="value">A date.</param>
        /// <returns>Its ticks.</returns>
        public static long Of(object value)
        {
            long ticks = 0;
            if (value is System.DateTime)
            {
                ticks = ((System.DateTime)value).Ticks;
            }
#if !NET20
            else
            {
                ticks = ((System.DateTimeOffset)value).Ticks;
            }
#endif
#if NET20 && !(DEBUG == true)
            else { ticks = -1; }
            public static long Broken(
#elif false
            more broken (
#else
            ticks += 0;
#endif
            return ticks;
        }
    }
}
"""


def test_conditional_compilation_is_applied_before_a_file_is_read() -> None:
    # Newtonsoft.Json's `} #if !NET20 else {...} #endif`: the grammar read both branches and
    # the #if as a node, so 27 of its files did not parse and 440 methods gave no doc case
    from pinbench.tasks.ide.csharp import preprocess

    path = "src/Shop/Ticks.cs"
    assert source.parses(CONDITIONAL)
    [function] = edits.EDITS.outline(path, CONDITIONAL).functions
    assert function.qualname == "Shop.Ticks.Of" and function.lines[0] == 11
    assert source.check_doc(path, CONDITIONAL, "Shop.Ticks.Of") == ()
    as_built = preprocess.active(CONDITIONAL).splitlines()
    assert len(as_built) == len(CONDITIONAL.splitlines())  # every line keeps its number
    assert "ticks = -1" not in "\n".join(as_built) and as_built[29].strip() == "ticks += 0;"
    legacy = preprocess.active(CONDITIONAL, frozenset({"NET20"}))
    assert "ticks = -1" in legacy and "DateTimeOffset" not in legacy
    defined = "#define A\n#if A && (B || !C)\nyes\n#endif\n#undef A\n#if A\nno\n#endif\n"
    assert preprocess.active(defined).split() == ["yes"]
    # a condition this reader does not know keeps its branch; none is ever evaluated as code
    assert preprocess.active("#if __import__('os')\nkept\n#endif\n").split() == ["kept"]


def test_the_top_level_types_of_a_fixture_file_are_found_past_comments_and_strings() -> None:
    text = (
        "namespace A.B {\n  /* a comment\n     with a brace { */\n"
        "  public partial class X {\n    class Nested { }\n"
        '    string s = "}"; char c = \'{\'; string v = @"\n}}""{";\n  }\n'
        "  // class NotOne {\n  internal enum E { a }\n}\n"
        "namespace C { static class Y { } }\n"
    )
    assert runner.declared_types(text) == {("A.B", "X"), ("A.B", "E"), ("C", "Y")}
    assert runner.declared_types(text, whole=True) == {("A.B", "E"), ("C", "Y")}  # X: partial
    assert runner.declared_types("namespace D;\nrecord R(int A);\n") == {("D", "R")}


def test_projects_are_read_from_sdk_and_old_style_csproj() -> None:
    from xml.etree import ElementTree

    files = {
        "src/Lib/Lib.csproj": '<Project Sdk="Microsoft.NET.Sdk"><ItemGroup>'
        '<Compile Remove="Old/**" /><Reference Include="System.Xml, Version=4.0.0.0" />'
        "</ItemGroup></Project>",
        "src/Lib/A.cs": "",
        "src/Lib/Old/B.cs": "",
        "src/Lib/obj/Gen.cs": "",
        "tests/T/T.csproj": '<Project xmlns="http://schemas.microsoft.com/developer/msbuild/2003">'
        "<PropertyGroup><DefineConstants>DEBUG;TRACE</DefineConstants>"
        "<SignAssembly>true</SignAssembly><AssemblyOriginatorKeyFile>..\\k.snk"
        "</AssemblyOriginatorKeyFile></PropertyGroup><ItemGroup>"
        '<Compile Include="ATest.cs" /><Reference Include="nunit.framework" />'
        '<ProjectReference Include="..\\..\\src\\Lib\\Lib.csproj" /></ItemGroup></Project>',
        "tests/T/ATest.cs": "",
        "tests/T/Unlisted.cs": "",
        "tests/k.snk": "",  # a snapshot keeps the binary key file: mcs is never given it
    }
    projects = runner.read_projects(sorted(files), files.__getitem__, ElementTree.fromstring)
    lib, tests = projects
    assert lib["sources"] == ["src/Lib/A.cs"] and lib["references"] == ["System.Xml"]
    assert not lib["test"] and tests["test"] and tests["sources"] == ["tests/T/ATest.cs"]
    assert tests["project_refs"] == ["src/Lib/Lib.csproj"] and tests["defines"] == [
        "DEBUG",
        "TRACE",
    ]
    assert tests["unsigned"]  # built unsigned, its friends named without their keys
    assert [p["name"] for p in runner.order([tests, lib])] == ["Lib", "T"]
    assert runner.unsigned_copy('[assembly: InternalsVisibleTo ("T, PublicKey=00240000")]') == (
        '[assembly: InternalsVisibleTo ("T")]'
    )
    assert runner.method_name("Shop.Billing.Invoice:.ctor (int)") == "Invoice"
    assert runner.method_name("Shop.Outer/Inner:get_Total ()") == "Total"
    assert runner.method_name("Shop.Box`1<int>:Get ()") == "Get"


def _old_style(version: str, extra: str = "", name: str = "Lib") -> str:
    return (
        '<Project xmlns="http://schemas.microsoft.com/developer/msbuild/2003"><PropertyGroup>'
        f"<AssemblyName>{name}</AssemblyName>"
        f"<TargetFrameworkVersion>{version}</TargetFrameworkVersion>{extra}</PropertyGroup>"
        '<ItemGroup><Compile Include="*.cs" /></ItemGroup></Project>'
    )


def test_sibling_projects_of_one_assembly_build_once_for_the_newest_framework_mono_has() -> None:
    # Newtonsoft.Json 6.0.8 ships Lib.csproj (4.5) beside Lib.Net20/Net35/Net40/Portable/WinRT:
    # all of them compiled into one bin, the .NET 2.0 variant's own Func clashed with System's
    from xml.etree import ElementTree

    portable = "<TargetFrameworkProfile>Profile259</TargetFrameworkProfile>"
    files = {
        "Src/Lib/Lib.Net20.csproj": _old_style("v2.0"),
        "Src/Lib/Lib.Net40.csproj": _old_style(
            "v4.0", "<TargetFrameworkProfile>Client</TargetFrameworkProfile>"
        ),
        "Src/Lib/Lib.Portable.csproj": _old_style("v4.6", portable),
        "Src/Lib/Lib.WinRT.csproj": _old_style("v4.5").replace(
            "</Project>",
            '<Import Project="$(MSBuildExtensionsPath)\\Microsoft\\WindowsXaml\\x.targets" />'
            "</Project>",
        ),
        "Src/Lib/Lib.csproj": _old_style("v4.5"),
        "Src/Lib/A.cs": "",
        "Src/Tests/Tests.Net20.csproj": _old_style("v2.0", name="Lib.Tests").replace(
            "</ItemGroup>",
            '<Reference Include="nunit.framework" />'
            '<ProjectReference Include="..\\Lib\\Lib.Net20.csproj" /></ItemGroup>',
        ),
        "Src/Tests/T.cs": "",
        "Src/Other/Other.csproj": _old_style("v9.0", name="Other"),
        "Src/Other/O.cs": "",
    }
    projects = runner.read_projects(sorted(files), files.__getitem__, ElementTree.fromstring)
    assert [p["path"] for p in projects] == [
        "Src/Lib/Lib.csproj",
        "Src/Other/Other.csproj",  # alone: kept whatever its framework
        "Src/Tests/Tests.Net20.csproj",
    ]
    lib, _, tests = projects
    assert lib["variants"] == [
        "Src/Lib/Lib.Net20.csproj",
        "Src/Lib/Lib.Net40.csproj",
        "Src/Lib/Lib.Portable.csproj",
        "Src/Lib/Lib.WinRT.csproj",
    ]
    assert tests["project_refs"] == ["Src/Lib/Lib.csproj"]  # redirected to the chosen one
    sdk = {
        "a/Lib.csproj": '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup>'
        "<TargetFramework>net6.0</TargetFramework><AssemblyName>L</AssemblyName>"
        "</PropertyGroup></Project>",
        "b/Lib.Mono.csproj": '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup>'
        "<TargetFramework>net472</TargetFramework><AssemblyName>L</AssemblyName>"
        "</PropertyGroup></Project>",
    }
    [chosen] = runner.read_projects(sorted(sdk), sdk.__getitem__, ElementTree.fromstring)
    assert chosen["path"] == "b/Lib.Mono.csproj" and chosen["framework"] == [True, [4, 7, 2]]


def test_mcs_output_is_read_with_rule_line_and_column() -> None:
    output = (
        "src/A.cs(13,17): warning CS0219: The variable `x' is assigned but its value is never "
        "used\n"
        "src/A.cs(21,13): warning CS0162: Unreachable code detected\n"
        "src/A.cs(21,13): warning CS0162: Unreachable code detected\n"
        "Compilation succeeded - 2 warning(s)\n"
    )
    first, second = mcs.parse(output)
    assert (first.path, first.line, first.column, first.rule) == ("src/A.cs", 13, 17, "CS0219")
    assert second.rule == "CS0162" and second.severity == "warning"


def test_an_environment_for_another_mono_or_with_pins_is_an_environment_error() -> None:
    with pytest.raises(EnvError, match="Mono 99 is asked for"):
        builder.resolve(EnvSpec(toolchain="csharp", version="99", pins=()))
    with pytest.raises(EnvError, match="take no pins"):
        builder.resolve(EnvSpec(toolchain="csharp", version=None, pins=("Newtonsoft.Json==13",)))


# ------------------------------------------------------------------ the build agent


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


SDK = '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net472</TargetFramework>'
TESTS = (
    SDK + '</PropertyGroup><ItemGroup><ProjectReference Include="../../src/Lib/Lib.csproj" />'
    '<PackageReference Include="NUnit" Version="2.6.4" /></ItemGroup></Project>'
)
LIB = (
    "namespace Lib {\n    public static class Numbers {\n        public static int Twice(int x)\n"
    "        {\n            int y = x;\n            return 2 * y;\n        }\n"
    "        public static int Never(int x)\n        {\n            return x;\n        }\n"
    "    }\n}\n"
)


def test_a_suite_runs_each_test_alone_and_a_test_file_that_does_not_compile_fails_alone(
    service: ExecutionService, tmp_path: Path
) -> None:
    repo = _project(
        tmp_path / "suite",
        {
            "src/Lib/Lib.csproj": SDK + "</PropertyGroup></Project>",
            "src/Lib/Numbers.cs": LIB,
            "tests/Lib.Tests/Lib.Tests.csproj": TESTS,
            "tests/Lib.Tests/NumbersTests.cs": (
                "using System;\nusing NUnit.Framework;\nnamespace Lib.Tests {\n"
                "  [TestFixture]\n  public class NumbersTests {\n"
                "    [Test] public void Twice() { Assert.AreEqual(4, Numbers.Twice(2)); }\n"
                "    [Test] public void Wrong() { Assert.AreEqual(5, Numbers.Twice(2)); }\n"
                "    [Test] public void Exits() { Environment.Exit(0); }\n"
                "    [TestCase(1, 2)] [TestCase(3, 6)]\n"
                "    public void Cases(int x, int y) { Assert.AreEqual(y, Numbers.Twice(x)); }\n"
                '    [Test, Ignore("later")] public void Later() { }\n  }\n}\n'
            ),
            # needs a package the machine does not have: this file fails, the others run
            "tests/Lib.Tests/FSharpTests.cs": (
                "using NUnit.Framework;\nusing Microsoft.FSharp.Core;\nnamespace Lib.Tests {\n"
                "  public class FSharpTests {\n"
                "    [Test] public void Option() { Assert.IsNull(FSharpOption<int>.None); }\n"
                "  }\n}\n"
            ),
        },
    )
    build, _ = build_repo(repo, service)
    prefix = "tests/Lib.Tests/NumbersTests.cs::Lib.Tests.NumbersTests."
    assert build.baseline.outcomes == {
        "tests/Lib.Tests/FSharpTests.cs::(file)": "failed",
        prefix + "Twice": "passed",
        prefix + "Wrong": "failed",
        prefix + "Exits": "failed",  # it ended the process: not a pass
        prefix + "Cases(1,2)": "passed",
        prefix + "Cases(3,6)": "passed",
        prefix + "Later": "skipped",
    }
    assert build.baseline.covering("src/Lib/Numbers.cs", "Twice", {3, 4}) == [
        prefix + "Cases(1,2)",
        prefix + "Cases(3,6)",
        prefix + "Twice",
    ]
    assert build.baseline.covering("src/Lib/Numbers.cs", "Never", {8, 9}) == []
    assert build.ecosystem == "csharp" and build.toolchain_version.startswith("Mono 6.")
    assert any("NUnit" in n for n in build.notes)
    broken = _project(
        tmp_path / "broken",
        {
            "src/Lib/Lib.csproj": SDK + "</PropertyGroup></Project>",
            "src/Lib/Numbers.cs": LIB.replace("return x;", "return undefinedName;"),
            "tests/Lib.Tests/Lib.Tests.csproj": TESTS,
            "tests/Lib.Tests/NumbersTests.cs": "using NUnit.Framework;\n",
        },
    )
    with pytest.raises(RepoRejected, match="undefinedName"):
        build_repo(broken, service)
    xunit = _project(
        tmp_path / "xunit",
        {
            "src/Lib/Lib.csproj": SDK + "</PropertyGroup></Project>",
            "tests/T/T.csproj": SDK
            + '</PropertyGroup><ItemGroup><PackageReference Include="xunit" Version="2.9.3" />'
            "</ItemGroup></Project>",
        },
    )
    with pytest.raises(RepoRejected, match=r"no NUnit test project.*xunit"):
        build_repo(xunit, service)


# ------------------------------------------------------------------ collection


def test_fix_cases_are_exactly_the_planted_warnings(repos: dict[str, Built]) -> None:
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
        assert {c.language for c in built.cases} == {Language.CSHARP}, name
        assert all("```csharp" in prompt(c) for c in built.cases if c.scenario is Kind.FIX)
        for entry in base.functions:  # every entered method is the project's, at its line
            path, line, method = entry.rsplit(":", 2)
            found = source.outline(path, snap.read(path))
            known = any(f.name == method and int(line) in f.lines for f in found.functions)
            # operators (`op_Equality`) and property accessors (named after the property)
            # are not in the outline: they are within one of the file's classes
            member = any(start <= int(line) <= end for _, start, end in found.classes)
            assert path.startswith("src/") and (known or member), entry


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
    built = repos["cs-invoicing"]
    case = next(c for c in built.cases if isinstance(c, DocCase) and "<param" in c.reference)
    assert static(case, case.reference)[1] is True
    first_param = next(line for line in case.reference.splitlines() if "<param" in line)
    assert static(case, case.reference.replace(first_param + "\n", ""))[1] is False
    assert static(case, "It does what it says.")[1] is False
    assert static(case, case.reference.replace("///", "//"))[1] is False


def test_fix_that_hides_the_problem_or_breaks_the_code_fails(repos: dict[str, Built]) -> None:
    for built in repos.values():
        for case in [c for c in built.cases if isinstance(c, FixCase)][:2]:
            lines = snapshots.load(case.snapshot).read(case.path).splitlines()
            region = "\n".join(lines[case.region[0] - 1 : case.region[1]])
            hidden = f"#pragma warning disable {case.diagnostic.rule}\n{region}"
            scores, ok = static(case, f"```csharp\n{hidden}\n```")
            assert ok is False, (case.id, scores)
            broken = region.replace("{", "{ int pinbenchBroken = undefinedName;", 1)
            scores, ok = static(case, f"```csharp\n{broken}\n```")
            assert ok is False, (case.id, scores)


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
        answer = "```csharp\nthrow new System.NotImplementedException();\n```"
        done = execute(service, built, case, answer)
        assert done.status is Status.FAILED and done.exc_type == "TestFailed", done.message
        done = execute(service, built, case, "```csharp\nreturn nosuchthing;\n```")
        assert done.status is Status.FAILED and done.exc_type == "LoadError", done.message
        assert "nosuchthing" in done.message


def test_test_that_fails_never_calls_the_focal_method_or_exits_fails(
    service: ExecutionService, repos: dict[str, Built]
) -> None:
    built = repos["cs-textgrid"]
    case = next(c for c in built.cases if isinstance(c, TestCase) and c.reference)
    assert case.test_path.endswith("/" + edits.GENERATED_TEST)
    done = execute(service, built, case, f"```csharp\n{case.reference}\n```")
    assert done.status is Status.PASSED, done.message
    unrelated = (
        "```csharp\nusing NUnit.Framework;\nnamespace G {\n  [TestFixture]\n"
        "  public class GTests {\n    [Test] public void Nothing() { Assert.AreEqual(2, 1 + 1); }"
        "\n  }\n}\n```"
    )
    done = execute(service, built, case, unrelated)
    assert done.exc_type == "FocalNotCalled", done.message
    for body in (
        "Assert.AreEqual(1, 2);",
        "System.Environment.Exit(0);",
        'System.Environment.FailFast("x");',
    ):
        extra = (
            "\nnamespace PinbenchExtra {\n  [NUnit.Framework.TestFixture]\n"
            "  public class Hostile {\n"
            f"    [NUnit.Framework.Test] public void Z() {{ {body} }}\n  }}\n}}\n"
        )
        done = execute(service, built, case, f"```csharp\n{case.reference}{extra}```")
        assert done.status is Status.FAILED, (body, done.message)


def test_ide_runs_choose_csharp(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from pinbench.cli import app

    summary = tmp_path / "s.json"
    result = CliRunner().invoke(
        app,
        [
            "run", "--task", "ide", "-d", "builtin", "-m", "reference", "--split", "workspace",
            "--language", "csharp", "--results", str(tmp_path / "res"), "--json", str(summary),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    samples = json.loads(summary.read_text())["samples"]
    assert {s["problem_id"].split("/")[1] for s in samples} == set(CSHARP_REPOS)
    assert all(s["outcome"] == "passed" for s in samples)


def test_a_generated_fixture_reaches_internals_the_library_grants_its_test_project(
    service: ExecutionService, tmp_path: Path
) -> None:
    """dbus-sharp tests its internal classes through InternalsVisibleTo("...tests"): a
    generated fixture joins that test project's assembly name, so it may too."""
    internal = LIB.replace("public static class Numbers", "internal static class Numbers")
    internal = internal.replace(  # long enough to be a focal method
        "int y = x;", "int y = x;\n            y = y + 0;\n            y = y * 1;"
    )
    repo = _project(
        tmp_path / "friends",
        {
            "src/Lib/Lib.csproj": SDK + "</PropertyGroup></Project>",
            "src/Lib/Numbers.cs": internal.replace(
                "        public static int Twice",
                '        /// <summary>Twice <paramref name="x"/>.</summary>\n'
                '        /// <param name="x">A number.</param>\n'
                "        /// <returns>Its double.</returns>\n        public static int Twice",
            ),
            "src/Lib/Friends.cs": "[assembly: System.Runtime.CompilerServices.InternalsVisibleTo"
            '("Lib.Tests")]\n',
            "tests/Lib.Tests/Lib.Tests.csproj": TESTS,
            # in a directory of its own: the generated fixture goes where most test files are,
            # and a C# project compiles all its directories
            "tests/Lib.Tests/Numbers/NumbersTests.cs": (
                "using NUnit.Framework;\nnamespace Lib.Tests {\n  [TestFixture]\n"
                "  public class NumbersTests {\n"
                '    public class Box { public string Open = "{"; }\n'
                "    [Test] public void Twice()\n"
                "    { Assert.AreEqual(Expect.Four, Numbers.Twice(Sample.Two)); }\n"
                "  }\n}\n"
            ),
            # a type another fixture's file declares (Newtonsoft.Json's TestDynamicObject, in
            # DynamicTests.cs): the generated fixture is compiled with it; that file's tests
            # do not run with the generated fixture's (one of them fails); both fixtures
            # nest a `Box`, which is no clash
            "tests/Lib.Tests/OtherTests.cs": (
                "using NUnit.Framework;\nnamespace Lib.Tests {\n"
                "  public static class Sample { public static int Two { get { return 2; } } }\n"
                "  [TestFixture] public class OtherTests {\n"
                "    public class Box { }\n"
                "    [Test] public void Fails() { Assert.AreEqual(1, Numbers.Twice(1)); }\n"
                "  }\n}\n"
            ),
            "tests/Lib.Tests/MoreTests.cs": (
                "using NUnit.Framework;\nnamespace Lib.Tests {\n"
                "  [TestFixture] public class MoreTests { [Test] public void Runs() { } }\n}\n"
            ),
            # the test project's helpers join a generated fixture (Newtonsoft.Json's tests
            # use their TestFixtureBase and TestObjects); one that does not compile is left out
            "tests/Lib.Tests/Expect.cs": (
                "namespace Lib.Tests {\n  public static class Expect {\n"
                "    public static int Four { get { return 4; } }\n  }\n}\n"
            ),
            "tests/Lib.Tests/Union.cs": (
                "using Microsoft.FSharp.Core;\nnamespace Lib.Tests {\n"
                "  public class Union { public FSharpOption<int> Value; }\n}\n"
            ),
        },
    )
    build, env = build_repo(repo, service)
    assert build.baseline.outcomes["tests/Lib.Tests/OtherTests.cs::Lib.Tests.OtherTests.Fails"] == (
        "failed"
    ), build.baseline.outcomes
    context = Context(build, env, snapshots.load(build.snapshot), service, Quotas())
    collection = collect(context, [Kind.TEST])
    cases = collection.cases
    chosen = [c for c in cases if isinstance(c, TestCase) and c.qualname.endswith("Twice")]
    assert chosen, (collection.dropped, cases)
    case = chosen[0]
    assert case.reference, case
    # the reference is NumbersTests.cs itself: that file is left out, not compiled twice
    assert "class NumbersTests" in case.reference
    assert case.test_path == "tests/Lib.Tests/" + edits.GENERATED_TEST
    done = execute(service, Built(build, env, cases), case, f"```csharp\n{case.reference}\n```")
    assert done.status is Status.PASSED, done.message
    # an answer that subclasses the suite's fixture writes no test of its own: the inherited
    # ones are not the answer's, and it fails (no test collected)
    sneaky = (
        "using NUnit.Framework;\nnamespace Lib.Tests {\n"
        "  [TestFixture] public class Sneaky\n    : Lib.Tests.NumbersTests { }\n}\n"
    )
    done = execute(service, Built(build, env, cases), case, f"```csharp\n{sneaky}\n```")
    assert done.status is not Status.PASSED, done.message


def test_an_answer_that_calls_an_obsolete_method_passes_with_its_deprecation(
    service: ExecutionService, tmp_path: Path
) -> None:
    """mcs's CS0618 on the lines the answer wrote is a deprecation signal of the execution;
    the same warning elsewhere in the file is the repository's, not the answer's."""
    numbers = (
        "namespace Lib {\n    public static class Numbers {\n"
        '        [System.Obsolete("use Twice")]\n'
        "        public static int Double(int x) { return 2 * x; }\n\n"
        '        /// <summary>Twice <paramref name="x"/>, the long way round.</summary>\n'
        '        /// <param name="x">A number.</param>\n'
        "        /// <returns>Its double.</returns>\n"
        "        public static int Twice(int x)\n        {\n            int y = x;\n"
        "            y = y + 0;\n            y = y * 1;\n            return 2 * y;\n        }\n\n"
        "        public static int Old(int x)\n        {\n            return Double(x);\n"
        "        }\n    }\n}\n"
    )
    repo = _project(
        tmp_path / "obsolete",
        {
            "src/Lib/Lib.csproj": SDK + "</PropertyGroup></Project>",
            "src/Lib/Numbers.cs": numbers,
            "tests/Lib.Tests/Lib.Tests.csproj": TESTS,
            "tests/Lib.Tests/NumbersTests.cs": (
                "using NUnit.Framework;\nnamespace Lib.Tests {\n  [TestFixture]\n"
                "  public class NumbersTests {\n"
                "    [Test] public void Twice() { Assert.AreEqual(4, Numbers.Twice(2)); }\n"
                "  }\n}\n"
            ),
        },
    )
    build, env = build_repo(repo, service)
    context = Context(build, env, snapshots.load(build.snapshot), service, Quotas())
    cases = collect(context, [Kind.GENERATE]).cases
    case = next(c for c in cases if isinstance(c, GenerateCase) and c.qualname.endswith("Twice"))
    built = Built(build, env, cases)
    clean = execute(service, built, case, "```csharp\nreturn 2 * x;\n```")
    assert clean.status is Status.PASSED, clean.message
    assert clean.deprecations is not None and clean.deprecations.found == ()  # Old's is not ours
    used = execute(service, built, case, "```csharp\nreturn Double(x);\n```")
    assert used.status is Status.PASSED, used.message
    assert used.deprecations is not None
    (found,) = used.deprecations.found
    assert found.category == "CS0618" and found.api == "Lib.Numbers.Double(int)"
    assert found.code == "return Double(x);" and "use Twice" in found.message
