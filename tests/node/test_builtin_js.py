"""The builtin JavaScript/TypeScript benchmark: its shape (the issue's targets), the js-quick
split proven sound and discriminative, and that split run end to end by the embedded model and
by an OpenAI-compatible endpoint (a real HTTP server answering with the references)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Language, Problem
from pinbench.tasks.generation.splits import select_split
from pinbench.validation import Verdict, validate
from tests.models.fault_server import FaultServer


@pytest.fixture(scope="module")
def problems() -> list[Problem]:
    loaded = load_dataset(Path("builtin"), strict=True)
    assert not loaded.issues
    return [p for p in loaded.problems if p.language is not Language.PYTHON]


def test_shape(problems: list[Problem]) -> None:
    assert len(problems) >= 60
    npm = {p.library for p in problems} - {"node"}
    assert len(npm) >= 12, npm
    assert sum(p.library == "node" for p in problems) >= 6  # Node's own standard library
    assert len({(p.library, p.version) for p in problems}) >= 30
    assert len({p.node_version for p in problems}) >= 4
    years = {int(p.release_date[:4]) for p in problems if p.release_date}
    assert min(years) <= 2015 and max(years) >= 2025
    languages = Counter(p.language for p in problems)
    assert languages[Language.TYPESCRIPT] * 3 >= len(problems), languages


def test_every_problem_is_complete_and_contrasted(problems: list[Problem]) -> None:
    for p in problems:
        assert p.problem and p.starter_code and p.solution and p.docs and p.source, p.id
        assert p.visible_test is not None and p.hidden_test is not None, p.id
        assert p.release_date and p.node_version, p.id
        assert p.contrast is not None and p.contrast.solution, p.id
        assert p.contrast.version != p.version or p.contrast.node_version != p.node_version, p.id
        # the hidden test is the stronger one: it is not the visible test
        assert p.hidden_test.code.strip() != p.visible_test.code.strip(), p.id


def test_language_selection_matches_the_splits(problems: list[Problem]) -> None:
    everything = load_dataset(Path("builtin")).problems
    javascript = select_split(everything, "default", "javascript")
    assert {p.id for p in javascript} == {p.id for p in select_split(everything, "js")}
    typescript = select_split(everything, "full", "typescript")
    assert typescript and all(p.language is Language.TYPESCRIPT for p in typescript)
    quick = select_split(everything, "quick", "javascript")
    assert {p.id for p in quick} == {p.id for p in select_split(everything, "js-quick")}
    with pytest.raises(ValueError, match="unknown language 'cobol'"):
        select_split(everything, "full", "cobol")


@pytest.mark.integration
def test_js_quick_is_sound_and_discriminative(problems: list[Problem]) -> None:
    quick = select_split(problems, "js-quick")
    assert len(quick) >= 5 and any(p.language is Language.TYPESCRIPT for p in quick)
    reports = validate(quick, jobs=2, discriminative=True)
    failing = {
        r.id: {name: c.detail for name, c in r.checks.items() if not c.ok}
        for r in reports
        if r.verdict is not Verdict.SOUND
    }
    assert not failing
    assert len(reports) == len(quick)


def _run(tmp_path: Path, *args: str) -> dict[str, object]:
    out = tmp_path / "run.json"
    result = CliRunner().invoke(
        app,
        ["run", "--split", "js-quick", "--results", str(tmp_path), "--json", str(out), *args],
    )
    assert result.exit_code == 0, result.output
    document: dict[str, object] = json.loads(out.read_text())
    return document


@pytest.mark.integration
def test_the_embedded_model_runs_the_js_quick_split(
    tmp_path: Path, problems: list[Problem]
) -> None:
    quick = {p.id for p in select_split(problems, "js-quick")}
    document = _run(tmp_path, "-m", "embedded:smollm2", "--max-tokens", "128", "--parallel", "1")
    samples = document["samples"]
    assert isinstance(samples, list) and {s["problem_id"] for s in samples} == quick
    infrastructure = ("model_error", "harness_error", "environment_error")
    assert not [s for s in samples if s["outcome"] in infrastructure], samples


@pytest.mark.integration
def test_an_openai_endpoint_answering_the_references_passes_the_js_quick_split(
    tmp_path: Path, problems: list[Problem]
) -> None:
    quick = select_split(problems, "js-quick")
    answers = {}
    for p in quick:
        fence = "ts" if p.language is Language.TYPESCRIPT else "js"
        answers[p.problem.strip()[:80]] = f"Here it is:\n```{fence}\n{p.solution}\n```"
    with FaultServer(answers=answers) as server:
        document = _run(tmp_path, "-m", "openai:coder", "--base-url", server.url)
        asked = server.requests
    samples = document["samples"]
    assert isinstance(samples, list)
    assert {s["problem_id"]: s["outcome"] for s in samples} == {p.id: "passed" for p in quick}
    assert len(asked) == len(quick)
    # every prompt asks for JavaScript or TypeScript, never Python
    for request in asked:
        assert re.search(r"JavaScript|TypeScript", request.text), request.text[:300]
        assert "python" not in request.text.lower(), request.text[:300]


@pytest.mark.integration
def test_a_run_of_both_languages_breaks_down_by_language(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    args = ["run", "-m", "reference", "--split", "full", "--results", str(tmp_path)]
    args += ["--only", "uuid-3.3-01", "--only", "jinja2-3.1-05"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "weakest language groups:" in result.output
    report = CliRunner().invoke(app, ["report", "--results", str(tmp_path), "--json", str(out)])
    assert report.exit_code == 0, report.output
    groups = json.loads(out.read_text())["by_tag"]["language"]
    assert {g["name"]: g["problems"] for g in groups} == {"javascript": 1, "python": 1}
