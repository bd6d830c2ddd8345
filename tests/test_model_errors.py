"""A model that gives no answers, over real HTTP: `pinbench run` says why once per kind of
failure (never the key), records every sample as an infrastructure outcome, stops asking when
the first requests all fail alike, and exits non-zero when no sample got an answer.

Generation only (`--no-execute`): nothing is built or executed, the model is what is tested."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from pinbench.cli import app
from pinbench.evaluation.runner import FIRST_BATCH
from tests.models.fault_server import FaultServer

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "data" / "sample" / "problems.jsonl"
IDS = ("packaging-22.0-01", "packaging-22.0-02", "packaging-22.0-03")
KEY = "sk-test-very-secret-0042"


def _run(tmp_path: Path, base_url: str, *args: str, model: str = "openai:fake") -> Result:
    only = [arg for pid in IDS for arg in ("--only", pid)]
    return CliRunner().invoke(
        app,
        [
            "run", "-d", str(SAMPLE), *only, "-m", model, "--base-url", base_url,
            "--api-key-env", "PINBENCH_TEST_KEY", "--no-execute", "--retries", "1",
            "--results", str(tmp_path), "--json", str(tmp_path / "run.json"), *args,
        ],
        env={"PINBENCH_TEST_KEY": KEY},
    )  # fmt: skip


def _lines(output: str, prefix: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(prefix)]


def _document(tmp_path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((tmp_path / "run.json").read_text())  # type: ignore[no-any-return]


def test_a_401_is_said_once_without_the_key_and_the_run_stops_asking(tmp_path: Path) -> None:
    with FaultServer() as server:
        server.script({"401": 1000})
        result = _run(tmp_path, server.url, "-n", "8", "-t", "0.8", "--concurrency", "2")
        sent = len(server.requests)
    assert result.exit_code == 1, result.output
    assert KEY not in result.output
    [line] = _lines(result.output, "model error")
    assert line.startswith("model error (24 samples): HTTP 401 from POST ")
    assert "Incorrect API key provided: ***" in line and "not retried" in line
    [last] = _lines(result.output, "error:")
    assert "no sample got an answer from openai:fake" in last
    # the first batch failed alike: the rest were not asked (at most those in flight were)
    assert FIRST_BATCH <= sent <= FIRST_BATCH + 2
    document = _document(tmp_path)
    samples = document["samples"]
    assert len(samples) == 24 and {s["outcome"] for s in samples} == {"model_error"}
    summary = document["summary"]
    assert summary["scores"]["infrastructure"] == {"model_error": 24}
    assert sent - 2 <= summary["requests"]["asked"] <= sent  # less those cancelled in flight
    [errors] = summary["model_errors"]
    assert (errors["kind"], errors["samples"]) == ("HTTP 401", 24)
    assert any("all failed alike (HTTP 401)" in note for note in summary["notes"])
    assert KEY not in json.dumps(document)


def test_requests_in_flight_when_the_first_batch_fails_are_not_waited_for(
    tmp_path: Path,
) -> None:
    with FaultServer() as server:
        server.script(["401"] * FIRST_BATCH + ["hang"] * 100)  # in order of arrival
        started = time.monotonic()
        result = _run(tmp_path, server.url, "-n", "8", "-t", "0.8")  # 24 requests at once
        seconds = time.monotonic() - started
    assert result.exit_code == 1, result.output
    assert seconds < 60  # not the client's 120 s timeout of the hung requests, nor retries
    [line] = _lines(result.output, "model error")
    assert line.startswith("model error (24 samples): HTTP 401 from POST ")
    samples = _document(tmp_path)["samples"]
    assert len(samples) == 24 and {s["outcome"] for s in samples} == {"model_error"}


def test_an_unknown_model_is_a_404_naming_it(tmp_path: Path) -> None:
    with FaultServer(models=("served",)) as server:
        result = _run(tmp_path, server.url, model="openai:nope")
    assert result.exit_code == 1, result.output
    [line] = _lines(result.output, "model error")
    assert line.startswith("model error (3 samples): HTTP 404 from POST ")
    assert "The model `nope` does not exist." in line


def test_a_refused_connection_is_named_and_every_sample_recorded(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    result = _run(tmp_path, url, "--retries", "0", "-n", "4", "-t", "0.5")
    assert result.exit_code == 1, result.output
    [line] = _lines(result.output, "model error")
    assert line == (
        f"model error (12 samples): connection refused: POST {url}/chat/completions "
        "(gave up after 1 attempt)"
    )
    samples = _document(tmp_path)["samples"]
    assert len(samples) == 12 and {s["outcome"] for s in samples} == {"model_error"}


def test_some_failures_among_answers_are_counted_and_the_run_succeeds(tmp_path: Path) -> None:
    with FaultServer() as server:
        server.script({"401": 100}, marker="unique_requirements")  # one problem's samples
        result = _run(tmp_path, server.url, "-n", "4", "-t", "0.8")
    assert result.exit_code == 0, result.output
    [line] = _lines(result.output, "model error")
    assert line.startswith("model error (4 samples): HTTP 401 from POST ")
    outcomes = [s["outcome"] for s in _document(tmp_path)["samples"]]
    assert sorted(outcomes) == ["generated"] * 8 + ["model_error"] * 4
    assert not _lines(result.output, "error:")


@pytest.mark.parametrize("kind", ["500", "close"])
def test_retryable_failures_that_recover_are_no_model_error(tmp_path: Path, kind: str) -> None:
    with FaultServer() as server:
        server.script([kind])
        result = _run(tmp_path, server.url, "--retries", "2")
    assert result.exit_code == 0, result.output
    assert not _lines(result.output, "model error")
