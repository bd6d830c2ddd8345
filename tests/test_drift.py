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
