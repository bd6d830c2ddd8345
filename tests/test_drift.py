"""`pinbench drift`: failed programs written for the contrasting version are found by running
them there; the direction follows the version order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.splits import select_split

pytestmark = pytest.mark.integration


def test_programs_for_the_contrasting_version_are_version_confusion(tmp_path: Path) -> None:
    quick = select_split(load_dataset(Path("builtin")).problems, "quick")
    chosen = [p for p in quick if p.contrast is not None and p.contrast.solution][:3]
    wrong = quick[-1]  # answered with a program that works nowhere
    rows = [{"problem_id": p.id, "response": p.contrast.solution} for p in chosen]  # type: ignore[union-attr]
    rows.append({"problem_id": wrong.id, "response": "raise SystemExit('nothing works')"})
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    only = [arg for p in [*chosen, wrong] for arg in ("--only", p.id)]
    result = CliRunner().invoke(
        app,
        ["run", "-m", f"replay:{answers}", "--split", "quick", *only, "--results", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output

    out = tmp_path / "drift.json"
    result = CliRunner().invoke(
        app, ["drift", "latest", "--results", str(tmp_path), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(out.read_text())
    assert summary["failures"] == 4 and summary["confused"] == 3
    newer = sum(Version(p.contrast.version) > Version(p.version) for p in chosen)  # type: ignore[union-attr]
    assert (summary["too_new"], summary["too_old"]) == (newer, 3 - newer)
    example = {e["problem_id"]: e for e in summary["examples"]}
    for problem in chosen:
        assert example[problem.id]["works_on"] == [problem.contrast.version]  # type: ignore[union-attr]
        assert summary["matrix"][problem.library][problem.version][problem.contrast.version] >= 1  # type: ignore[union-attr]
    assert summary["matrix"][wrong.library][wrong.version].get("none", 0) >= 1
    assert "version confusion: 3 of 4" in result.output

    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        app, ["report", "latest", "--json", str(report), "--results", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text())["drift"]["confused"] == 3
    html = tmp_path / "report.html"
    result = CliRunner().invoke(
        app, ["report", "latest", "--html", str(html), "--results", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    page = html.read_text()
    assert "Version confusion" in page and page.count('class="drift-example"') == 3
    assert all(p.id in page for p in chosen)


def test_bad_versions_option_is_one_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["drift", "latest", "--results", str(tmp_path)])
    assert result.exit_code == 2 and "no run" in result.output


def _packaging_problem(pid: str) -> dict[str, object]:
    return {
        "id": pid, "library": "packaging", "version": "22.0", "python_version": "3.11",
        "problem": "Write `probe()` returning True.", "starter_code": "def probe():\n",
        "solution": "def probe():\n    return True\n",
        "hidden_test": {"kind": "script", "code": "assert probe() is True\n"},
    }  # fmt: skip


def test_the_matrix_gives_each_sample_its_range_and_the_model_a_profile(tmp_path: Path) -> None:
    programs = {
        "legacy": "from packaging.version import LegacyVersion\n\ndef probe():\n    return True\n",
        "steady": "from packaging.version import Version\n\n"
        "def probe():\n    return Version('1.2.3').micro == 3\n",
        "future": "import packaging.metadata\n\ndef probe():\n    return True\n",
    }
    dataset = tmp_path / "problems.jsonl"
    dataset.write_text("".join(json.dumps(_packaging_problem(p)) + "\n" for p in programs))
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"problem_id": p, "response": f"```python\n{code}```"}) + "\n"
            for p, code in programs.items()
        )
    )
    results = tmp_path / "res"
    run = CliRunner().invoke(
        app, ["run", "-d", str(dataset), "-m", f"replay:{answers}", "--results", str(results)]
    )
    assert run.exit_code == 0, run.output
    out = tmp_path / "matrix.json"
    result = CliRunner().invoke(
        app,
        ["drift", "latest", "--matrix", "--versions", "packaging=21.3,22.0,23.2",
         "--results", str(results), "--json", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    kept = json.loads(out.read_text())
    compat = kept["compatibility"]
    assert compat["versions"] == {"packaging": ["21.3", "22.0", "23.2"]}
    assert compat["executions"] == 6 and compat["infrastructure"] == 0
    ranges = {s["problem_id"]: s for s in compat["samples"]}
    assert ranges["legacy"]["range"] == "works on 21.3; breaks on 22.0–23.2"
    assert ranges["legacy"]["kind"] == "too_old"
    assert ranges["steady"]["range"] == "works on 21.3–23.2" and ranges["steady"]["kind"] == "exact"
    assert ranges["future"]["kind"] == "too_new" and ranges["future"]["works_on"] == ["23.2"]
    profile = compat["profile"]
    assert profile == {"samples": 3, "exact": 1, "too_old": 1, "too_new": 1, "both": 0,
                       "never": 0, "portable": 1}  # fmt: skip
    (matrix,) = compat["libraries"]
    assert matrix["cells"]["22.0"] == {"21.3": [2, 3], "22.0": [1, 3], "23.2": [2, 3]}
    assert kept["confused"] == 2 and (kept["too_old"], kept["too_new"]) == (1, 1)
    assert "range profile of 3 samples" in result.output
    html = tmp_path / "report.html"
    result = CliRunner().invoke(
        app, ["report", "latest", "--html", str(html), "--results", str(results)]
    )
    assert result.exit_code == 0, result.output
    page = html.read_text()
    assert "Compatibility matrix" in page and 'class="plot heatmap"' in page
    assert "works on 21.3; breaks on 22.0–23.2" in page


def test_minor_releases_are_the_latest_patch_of_each_minor_in_the_span() -> None:
    from pinbench.drift import minor_releases
    from pinbench.tasks.generation.problem import Problem

    problem = Problem.model_validate(_packaging_problem("x"))
    every = ["21.0", "21.1", "21.2", "21.3", "22.0", "23.0", "23.1", "23.2"]  # each a minor
    assert minor_releases(problem, "21.0", "23.2") == every
    assert minor_releases(problem, "22.0", "22.0") == ["22.0"]
    urllib3 = problem.model_copy(update={"library": "urllib3", "version": "1.26.0"})
    assert minor_releases(urllib3, "1.25.0", "1.26.18") == ["1.25.11", "1.26.18"]
