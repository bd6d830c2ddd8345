"""`pinbench run` end to end: real environments, real sandbox, real HTTP, a real SQLite store.

The problems are the sample dataset's packaging==22.0 ones (a cheap environment that the sample
dataset's own tests build anyway)."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.evaluation.config import RunConfig
from pinbench.evaluation.runner import Runner
from pinbench.execution.local import LocalExecutor
from pinbench.models.openai import OpenAICompatible
from pinbench.store.runs import RunStore
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.task import GenerationTask, item_of
from tests.models.fault_server import Fault, FaultServer

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample" / "problems.jsonl"
IDS = ("packaging-22.0-01", "packaging-22.0-02", "packaging-22.0-03")
ONLY = [arg for pid in IDS for arg in ("--only", pid)]

pytestmark = pytest.mark.integration


def _problems() -> list[Problem]:
    return [p for p in load_dataset(SAMPLE).problems if p.id in IDS]


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, ["run", "-d", str(SAMPLE), *ONLY, *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_reference_scores_full_marks_and_a_rerun_asks_and_runs_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    _invoke("-m", "reference", "--results", str(tmp_path), "--json", str(out))
    document = json.loads(out.read_text())
    assert document["schema_version"] == 1
    summary = document["summary"]
    assert summary["scores"]["rounds"][0]["pass_at"][0]["mean"] == 1.0
    assert summary["scores"]["rounds"][0]["compile_rate"] == 1.0
    assert {s["problem_id"] for s in document["samples"]} == set(IDS)
    assert all(s["passed"] and s["outcome"] == "passed" for s in document["samples"])
    assert summary["requests"] == {"asked": 3, "cached": 0, "errors": 0}

    again = tmp_path / "again.json"
    output = _invoke("-m", "reference", "--results", str(tmp_path), "--json", str(again))
    second = json.loads(again.read_text())["summary"]
    assert second["resumed"] is True
    assert second["run_id"] == summary["run_id"]
    assert second["requests"] == {"asked": 0, "cached": 0, "errors": 0}  # all samples were done
    assert second["scores"] == summary["scores"]
    assert "resumed" in output


def test_generations_are_cached_across_runs_by_prompt_and_parameters(tmp_path: Path) -> None:
    out = tmp_path / "a.json"
    _invoke("-m", "reference", "--results", str(tmp_path), "--json", str(out), "--timeout", "30")
    # another run (different timeout cap): new run id, same prompts: nothing asked of the model
    _invoke("-m", "reference", "--results", str(tmp_path), "--json", str(out), "--timeout", "40")
    summary = json.loads(out.read_text())["summary"]
    assert summary["resumed"] is False
    assert summary["requests"] == {"asked": 0, "cached": 3, "errors": 0}


def _wrong(problem: Problem) -> str:
    """A program that defines the function but returns nonsense: fails the visible test."""
    name = problem.starter_code.split("def ", 1)[1].split("(", 1)[0]
    return f"```python\ndef {name}(*args, **kwargs):\n    return 'wrong'\n```"


def test_error_feedback_round_shows_the_visible_error_never_the_hidden_test(
    tmp_path: Path,
) -> None:
    problems = _problems()
    replay = tmp_path / "answers.jsonl"
    rows = []
    for p in problems:
        rows.append({"problem_id": p.id, "sample": 0, "round": 0, "response": _wrong(p)})
        rows.append({"problem_id": p.id, "sample": 0, "round": 1, "response": p.solution})
    replay.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run.json"
    _invoke(
        "-m",
        f"replay:{replay}",
        "--feedback-rounds",
        "2",
        "--results",
        str(tmp_path),
        "--json",
        str(out),
    )
    document = json.loads(out.read_text())
    rounds = document["summary"]["scores"]["rounds"]
    assert [r["pass_at"][0]["mean"] for r in rounds] == [0.0, 1.0, 1.0]
    # round 1 passed its visible test: no round 2 was asked for
    assert {s["round"] for s in document["samples"]} == {0, 1}
    store = RunStore(tmp_path / "pinbench.sqlite")
    try:
        prompts = [
            row["request"]
            for row in store.export_rows(document["summary"]["run_id"])
            if row["round"] == 1
        ]
    finally:
        store.close()
    by_id = {p.id: p for p in problems}
    for request in prompts:
        problem = by_id[request["problem_id"]]
        text = "\n".join(m["content"] for m in request["messages"])
        assert "'wrong'" in text  # the previous program
        assert "AssertionError" in text  # the visible test's error
        visible = problem.visible_test.code if problem.visible_test else ""
        for line in problem.hidden_test.code.splitlines():
            if len(line.strip()) > 12 and line.strip() not in visible:
                assert line.strip() not in text


def test_export_replays_to_the_same_outcomes(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    _invoke("-m", "reference", "--results", str(tmp_path), "--json", str(out))
    exported = tmp_path / "export.jsonl"
    result = CliRunner().invoke(
        app, ["runs", "export", "latest", "-o", str(exported), "--results", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in exported.read_text().splitlines()]
    assert len(rows) == 3 and all(r["response"] and r["request"] for r in rows)
    csv_out = tmp_path / "export.csv"
    result = CliRunner().invoke(
        app,
        [
            "runs",
            "export",
            "latest",
            "-o",
            str(csv_out),
            "--format",
            "csv",
            "--results",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    with csv_out.open(newline="") as handle:
        table = list(csv.DictReader(handle))
    assert [r["problem_id"] for r in table] == list(IDS)
    assert table[0]["program"] == rows[0]["program"]  # multi-line fields survive the round trip
    replayed = tmp_path / "replayed.json"
    _invoke("-m", f"replay:{exported}", "--results", str(tmp_path), "--json", str(replayed))
    samples = json.loads(replayed.read_text())["samples"]
    assert [s["outcome"] for s in samples] == ["passed"] * 3
    listed = CliRunner().invoke(app, ["runs", "list", "--results", str(tmp_path)])
    assert listed.exit_code == 0 and "reference" in listed.output and "replay" in listed.output


def test_an_unreachable_model_is_an_infrastructure_outcome_not_a_failure(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    args = ["-m", "openai:nothing", "--base-url", "http://127.0.0.1:9/v1", "--retries", "1"]
    result = CliRunner().invoke(
        app,
        ["run", "-d", str(SAMPLE), *ONLY, *args, "--results", str(tmp_path), "--json", str(out)],
    )
    assert result.exit_code == 1, result.output  # no sample got an answer: the run did not work
    summary = json.loads(out.read_text())["summary"]
    assert summary["scores"]["infrastructure"] == {"model_error": 3}
    assert summary["scores"]["rounds"][0]["pass_at"][0]["mean"] is None  # nothing to score
    assert "infrastructure" in result.output
    assert "model error (3 samples): connection refused: POST http://127.0.0.1:9/v1/" in (
        result.output
    )


def test_an_unbuildable_environment_is_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    fixture = REPO / "tests" / "fixtures" / "validate" / "problems.jsonl"
    out = tmp_path / "run.json"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "-d",
            str(fixture),
            "-m",
            "reference",
            "--only",
            "unbuildable",
            "--only",
            "sound-script",
            "--results",
            str(tmp_path),
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    samples = {s["problem_id"]: s for s in json.loads(out.read_text())["samples"]}
    assert samples["unbuildable"]["outcome"] == "environment_error"
    assert samples["sound-script"]["outcome"] == "passed"


def test_faulty_server_run_finishes_and_accounts_for_every_sample(tmp_path: Path) -> None:
    problems = _problems()
    config = RunConfig(model="openai:fake", dataset=str(SAMPLE), n=4, k=(1, 4), temperature=0.8)
    with FaultServer() as server:
        server.script({"429": 2}, marker="sort_versions")
        server.script(["500", "malformed", "drop", "close", "no_choices"])
        server.script({"503": 20}, marker="unique_requirements")  # outlasts every retry
        server.script([Fault("hang")], marker="Requirement")

        async def go() -> object:
            model = OpenAICompatible(
                base_url=server.url,
                model="fake",
                max_retries=3,
                timeout=2.0,
                backoff_base=0.01,
                backoff_max=0.05,
            )
            executor = LocalExecutor(jobs=2)
            store = RunStore(tmp_path / "pinbench.sqlite")
            try:
                items = [item_of(p) for p in problems]
                runner = Runner(config, items, model, store, executor, task=GenerationTask())
                return await runner.run()
            finally:
                await model.aclose()
                executor.close()
                store.close()

        summary = asyncio.run(go())
    scores = summary.scores  # type: ignore[attr-defined]
    assert scores.samples == len(problems) * 4  # every sample accounted for
    assert scores.infrastructure.get("model_error") == 4  # unique_requirements's four samples
    statuses = sum(scores.statuses.values())
    assert statuses == 12
    assert any("model_error 4" in note for note in summary.notes)  # type: ignore[attr-defined]


def test_kill_9_mid_run_then_rerun_loses_and_repeats_nothing(tmp_path: Path) -> None:
    results = tmp_path / "results"
    with FaultServer(delay=0.15) as server:
        cmd = [
            sys.executable,
            "-m",
            "pinbench",
            "run",
            "-d",
            str(SAMPLE),
            *ONLY,
            "-m",
            "openai:fake",
            "--base-url",
            server.url,
            "-n",
            "8",
            "-t",
            "0.8",
            "--concurrency",
            "2",
            "--results",
            str(results),
        ]
        env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
        process = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        db = results / "pinbench.sqlite"
        deadline = time.monotonic() + 120
        recorded = 0
        while recorded < 8 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
            if db.exists():
                try:
                    with sqlite3.connect(db) as conn:
                        recorded = conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
                except sqlite3.OperationalError:
                    pass
        assert process.poll() is None, "the run finished before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait()
        with sqlite3.connect(db) as conn:
            before = {(r[0], r[1]) for r in conn.execute("SELECT problem_id, sample FROM samples")}
        assert 8 <= len(before) < 24
        asked_before = len(server.requests)

        finished = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stdout + finished.stderr
        assert "resumed" in finished.stdout

    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT problem_id, sample, COUNT(*) FROM samples GROUP BY 1, 2")
        counts = {(p, s): c for p, s, c in rows}
        runs = conn.execute("SELECT status FROM runs").fetchall()
    assert len(counts) == 24 and set(counts.values()) == {1}  # all there, none twice
    assert runs == [("finished",)]
    # the second run asked only for samples the first had not recorded (+ those in flight)
    asked_after = len(server.requests) - asked_before
    assert asked_after <= 24 - len(before) + 2
    recorded_prompts = set()
    for request in server.requests[:asked_before]:
        recorded_prompts.add((request.text, request.body.get("seed")))
    repeated = [
        r
        for r in server.requests[asked_before:]
        if (r.text, r.body.get("seed")) in recorded_prompts
    ]
    assert len(repeated) <= 2  # at most the requests in flight at the kill


def test_presets_set_the_papers_protocol_and_explicit_flags_win(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    _invoke(
        "-m",
        "reference",
        "--preset",
        "pass@10",
        "-n",
        "3",
        "-k",
        "1,2",
        "--seeds",
        "2",
        "--no-execute",
        "--results",
        str(tmp_path),
        "--json",
        str(out),
    )
    document = json.loads(out.read_text())
    config = document["summary"]["config"]
    assert (config["temperature"], config["top_p"], config["top_k"]) == (0.8, 0.95, 50)
    assert (config["n"], config["k"], config["seeds"]) == (3, [1, 2], 2)
    assert len(document["samples"]) == 3 * 3 * 2
    assert {s["outcome"] for s in document["samples"]} == {"generated"}
    assert any("generation only" in note for note in document["summary"]["notes"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-n", "2", "-k", "5"), "k <= n"),
        (("--preset", "pass@1000"), "unknown preset"),
        (("-m", "openai:x"), "--base-url"),
        (("-m", "embedded:gpt-99"), "unknown embedded model"),
        (("-k", "one"), "-k takes integers"),
    ],
)
def test_bad_options_get_one_clear_error(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    result = CliRunner().invoke(
        app, ["run", "-d", str(SAMPLE), *ONLY, "--results", str(tmp_path), *args]
    )
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_completion_style_with_docs_reaches_the_completions_route(tmp_path: Path) -> None:
    problem = _problems()[0]
    with FaultServer() as server:
        result = CliRunner().invoke(
            app,
            [
                "run",
                "-d",
                str(SAMPLE),
                "--only",
                problem.id,
                "-m",
                "openai:base-model",
                "--base-url",
                server.url,
                "--style",
                "completion",
                "--doc-prompting",
                "--results",
                str(tmp_path),
            ],
        )
        assert result.exit_code == 0, result.output
        (received,) = server.requests
    assert received.path.endswith("/v1/completions")
    body = received.body
    assert body["model"] == "base-model" and body["stop"]
    assert body["prompt"].rstrip().endswith(problem.starter_code.rstrip())  # continued by model
    assert problem.docs.strip().splitlines()[0][:40] in body["prompt"]


def test_the_embedded_model_runs_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    output = _invoke(
        "-m",
        "embedded:smollm2",
        "--only",
        IDS[0],
        "--max-tokens",
        "96",
        "--parallel",
        "1",
        "--results",
        str(tmp_path),
        "--json",
        str(out),
    )
    document = json.loads(out.read_text())
    (sample,) = [s for s in document["samples"] if s["problem_id"] == IDS[0]]
    assert sample["outcome"] not in ("model_error", "harness_error", "environment_error")
    assert document["summary"]["model_name"].startswith("embedded:smollm2-135m-instruct@")
    assert document["summary"]["requests"]["asked"] == len(IDS)
    assert "pass@1" in output


def test_an_edited_dataset_is_a_new_run_not_a_resumed_one(tmp_path: Path) -> None:
    rows = [line for line in SAMPLE.read_text().splitlines() if '"packaging-22.0-01"' in line]
    dataset = tmp_path / "one.jsonl"
    dataset.write_text(rows[0] + "\n")
    out = tmp_path / "run.json"
    args = ["run", "-d", str(dataset), "-m", "reference", "--results", str(tmp_path)]
    assert CliRunner().invoke(app, [*args, "--json", str(out)]).exit_code == 0
    first = json.loads(out.read_text())["summary"]["run_id"]
    edited = json.loads(rows[0])
    edited["problem"] += " Keep the original spelling."
    dataset.write_text(json.dumps(edited) + "\n")
    assert CliRunner().invoke(app, [*args, "--json", str(out)]).exit_code == 0
    second = json.loads(out.read_text())["summary"]
    assert second["run_id"] != first and second["resumed"] is False
