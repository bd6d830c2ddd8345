"""`pinbench ide collect` and `pinbench run --task ide` end to end: a moved dataset, a
malformed row, rejected repositories, the builtin repositories, the reports, a real model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.tasks.ide.collect import builtin_repositories
from pinbench.tasks.ide.family import builtin_cases
from tests.ide.conftest import write_repo

pytestmark = pytest.mark.integration


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _builtin_rows() -> list[dict[str, Any]]:
    """Every shipped repository's cases, as the files of cases hold them."""
    builtin = builtin_cases(jobs=2)
    assert not builtin.rejected and not builtin.issues
    return [json.loads(line) for path in builtin.paths for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    repo = write_repo(root / "shapes")
    out = root / "cases.jsonl"
    code, output = _invoke("ide", "collect", str(repo), "-o", str(out))
    assert code == 0, output
    return out


def test_collect_writes_cases_of_every_scenario_and_the_snapshot(collected: Path) -> None:
    rows = [json.loads(line) for line in collected.read_text().splitlines()]
    assert {r["scenario"] for r in rows} == {"doc", "fix", "generate", "test", "workspace"}
    assert {r["repo"] for r in rows} == {"shapes"}
    [digest] = {r["snapshot"] for r in rows}
    assert (collected.parent / "cases.repos" / f"{digest}.tar.gz").is_file()
    record = json.loads((collected.parent / "cases.repos" / f"{digest}.build.json").read_text())
    assert record["env"]["pins"] == [] and record["sources"] == ["pyproject.toml"]
    assert len(record["baseline"]["outcomes"]) == 4


def test_a_moved_dataset_runs_on_a_fresh_home_and_a_bad_row_is_named(
    collected: Path, tmp_path: Path
) -> None:
    moved = tmp_path / "moved.jsonl"
    shutil.copy(collected, moved)
    shutil.copytree(collected.parent / "cases.repos", tmp_path / "moved.repos")
    with moved.open("a") as fh:
        fh.write('{"scenario": "doc", "id": "broken"}\n')
    env = {**os.environ, "PINBENCH_HOME": str(tmp_path / "home")}
    args = ["run", "--task", "ide", "-d", str(moved), "-m", "reference", "--split", "doc"]
    done = subprocess.run(
        [sys.executable, "-m", "pinbench", *args, "--results", str(tmp_path / "res")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = len(collected.read_text().splitlines())
    assert f"moved.jsonl:{lines + 1}:" in done.stderr
    assert "doc.format@1 100.0%" in " ".join(done.stdout.split())


def test_unknown_split_and_missing_repositories_are_one_clear_error(
    collected: Path, tmp_path: Path
) -> None:
    code, output = _invoke("run", "--task", "ide", "-d", str(collected), "--split", "nope")
    assert code == 2 and "--split for IDE cases" in output
    code, output = _invoke("run", "-d", str(collected), "-m", "reference")
    assert code == 2 and "holds IDE cases: run it with --task ide" in " ".join(output.split())
    code, output = _invoke("ide", "collect", str(tmp_path / "missing"))
    assert code == 2 and "no such repository" in output
    bad = write_repo(tmp_path / "bad")
    (bad / "requirements.txt").write_text("pinbench-no-such-package-xyz==1.0\n")
    code, output = _invoke("ide", "collect", str(bad), "-o", str(tmp_path / "x.jsonl"))
    assert code == 1
    assert "rejected" in output and "pinbench-no-such-package-xyz" in output
    assert "no case collected" in output


@pytest.mark.timeout(1800)  # every case builds the project in the sandbox
def test_builtin_repositories_give_cases_the_reference_answers_pass(tmp_path: Path) -> None:
    names = [p.name for p in builtin_repositories()]
    assert names == [
        "c-ringbuf", "cpp-strkit", "cs-invoicing", "cs-textgrid", "csvkit-js", "java-money",
        "java-textstats", "jsdate-range", "ledger", "textkit", "ts-eventbus", "ts-inventory",
        "unitconv",
    ]  # fmt: skip
    # one generate case per repository: the language suites run every reference (CI time)
    rows = _builtin_rows()
    chosen: dict[str, str] = {}
    for row in rows:
        if row["scenario"] == "generate":
            chosen.setdefault(row["repo"], row["id"])
    assert set(chosen) == set(names)
    only = [arg for case in chosen.values() for arg in ("--only", case)]
    results = str(tmp_path / "res")
    code, output = _invoke(
        "run", "--task", "ide", "-d", "builtin", "-m", "reference", "--split", "generate",
        *only, "--results", results,
    )  # fmt: skip
    assert code == 0, output
    report, html = tmp_path / "report.json", tmp_path / "report.html"
    code, output = _invoke(
        "report", "latest", "--results", results, "--json", str(report), "--html", str(html)
    )
    assert code == 0, output
    page = html.read_text()
    assert "Scenario metrics" in page and "generate.syntax" in page and "unitconv" in page
    document = json.loads(report.read_text())
    statuses = document["summary"]["scores"]["statuses"]
    assert set(statuses) == {"passed"}, statuses  # every reference body passes its tests
    repos = {g["name"] for g in document["by_tag"]["repo"]}
    assert repos == set(names)
    languages = {g["name"] for g in document["by_tag"]["language"]}
    assert languages == {"python", "javascript", "typescript", "java", "cpp", "csharp"}
    assert "generate.syntax" in document["summary"]["scores"]["strings"]


def test_the_embedded_model_answers_ide_cases(collected: Path, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in collected.read_text().splitlines()]
    chosen = [next(r["id"] for r in rows if r["scenario"] == k) for k in ("doc", "workspace")]
    results = str(tmp_path / "res")
    only = [arg for case in chosen for arg in ("--only", case)]
    code, output = _invoke(
        "run", "--task", "ide", "-d", str(collected), "-m", "embedded:smollm2",
        "--max-tokens", "48", *only, "--results", results, "--json", str(tmp_path / "s.json"),
    )  # fmt: skip
    assert code == 0, output
    document = json.loads((tmp_path / "s.json").read_text())
    samples = {s["problem_id"]: s for s in document["samples"]}
    assert set(samples) == set(chosen)
    assert all(s["outcome"] in ("passed", "failed") for s in samples.values())
    workspace = samples[chosen[1]]
    assert set(workspace["metrics"]) == {"workspace.mrr", "workspace.keywords"}


def test_the_embedded_model_answers_one_case_per_language(tmp_path: Path) -> None:
    """SmolLM2 on the shipped repositories: one doc case in each language, scored."""
    rows = _builtin_rows()
    chosen = {}
    for row in rows:
        if row["scenario"] == "doc":
            chosen.setdefault(row.get("language", "python"), row["id"])
    assert set(chosen) == {"python", "javascript", "typescript", "java", "cpp", "csharp"}
    only = [arg for case in chosen.values() for arg in ("--only", case)]
    summary = tmp_path / "s.json"
    code, output = _invoke(
        "run", "--task", "ide", "-d", "builtin", "-m", "embedded:smollm2", "--max-tokens", "64",
        *only, "--results", str(tmp_path / "res"), "--json", str(summary),
    )  # fmt: skip
    assert code == 0, output
    samples = json.loads(summary.read_text())["samples"]
    assert {s["problem_id"] for s in samples} == set(chosen.values())
    for sample in samples:
        assert sample["outcome"] in ("passed", "failed")
        assert set(sample["metrics"]) == {"doc.syntax", "doc.format"}


def test_builtin_cases_find_the_planted_diagnostics_and_skip_generated_files() -> None:
    rows = _builtin_rows()
    ledger_fixes = {
        (r["path"], r["diagnostic"]["line"], r["diagnostic"]["rule"])
        for r in rows
        if r["repo"] == "ledger" and r["scenario"] == "fix"
    }
    assert ledger_fixes == {  # PLANTED.md, less R1705 (pylint's refactor hints are not scored)
        ("ledger/money.py", 9, "unused-import"),
        ("ledger/money.py", 59, "reportReturnType"),
        ("ledger/accounts.py", 35, "dangerous-default-value"),
        ("ledger/accounts.py", 181, "reportOptionalMemberAccess"),
        ("ledger/report.py", 75, "unused-variable"),
        ("ledger/report.py", 107, "reportPossiblyUnboundVariable"),
        ("ledger/report.py", 121, "unspecified-encoding"),
    }
    assert not [r for r in rows if "_generated" in r["path"]]
    assert {r["scenario"] for r in rows if r["repo"] == "unitconv"} == {
        "doc", "fix", "generate", "test", "workspace",
    }  # fmt: skip


def test_a_repository_build_gets_more_than_a_short_timeout(tmp_path: Path) -> None:
    """--timeout caps a program's run, but a C/C++ case builds the project first: its cap is
    at least what collection allowed the suite (a real project's build takes minutes)."""
    rows = _builtin_rows()
    case = next(r["id"] for r in rows if r["repo"] == "c-ringbuf" and r["scenario"] == "generate")
    summary = tmp_path / "s.json"
    code, output = _invoke(
        "run", "--task", "ide", "-d", "builtin", "-m", "reference", "--only", case,
        "--timeout", "2", "--results", str(tmp_path / "res"), "--json", str(summary),
    )  # fmt: skip
    assert code == 0, output
    (sample,) = json.loads(summary.read_text())["samples"]
    assert sample["outcome"] == "passed", output


def test_builtin_collects_only_the_language_asked_for_and_a_missing_toolchain_is_one_issue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-d builtin --language cpp` on a new home collects the C/C++ repositories alone; with
    the C/C++ toolchain missing, each is rejected with the reason as a load issue, the run
    goes on (here with nothing to run) and nothing of another language is collected."""
    from pinbench.core.env import EnvError
    from pinbench.envs.cpp import builder
    from pinbench.tasks.base import Settings
    from pinbench.tasks.ide.family import FAMILY

    def missing() -> builder.Toolchain:
        raise EnvError("the C/C++ toolchain needs clang and CMake: install Debian's clang")

    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(builder, "toolchain", missing)
    builtin = builtin_cases(jobs=2, language="cpp")
    assert builtin.cases == [] and builtin.paths == []
    assert sorted(r.split(":")[0] for r in builtin.rejected) == [
        "builtin repository c-ringbuf",
        "builtin repository cpp-strkit",
    ]
    assert all("install Debian's clang" in r for r in builtin.rejected)
    assert not (tmp_path / "home" / "ide").exists()  # no other language was collected
    settings = Settings(dataset=Path("builtin"), language="cpp", jobs=2)
    loaded = FAMILY.load("builtin", settings)
    assert loaded.items == [] and len(loaded.skipped) == 2
