"""`pinbench view` as a command (a real process on a free port, stopped with Ctrl-C) and
`pinbench run --view` (the view's URL while the run goes, closed when it ends)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from tests.view.conftest import REPO, Runs

SAMPLE = REPO / "data" / "sample" / "problems.jsonl"

pytestmark = pytest.mark.timeout(120)


def test_view_serves_until_interrupted(runs: Runs) -> None:
    command = [sys.executable, "-m", "pinbench", "view", "--results", str(runs.results)]
    process = subprocess.Popen(
        [*command, "--port", "0", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/", url)
        assert match, url
        connection = http.client.HTTPConnection("127.0.0.1", int(match[1]), timeout=30)
        connection.request("GET", "/api/runs")
        response = connection.getresponse()
        assert response.status == 200
        assert json.loads(response.read())["total"] == 2
        connection.close()
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr


def test_view_without_a_store_says_so(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["view", "--results", str(tmp_path), "--no-open"])
    assert result.exit_code == 2
    assert "no results store at" in result.output
    assert not (tmp_path / "pinbench.sqlite").exists()  # looking creates nothing


def test_view_on_a_port_in_use_says_so(runs: Runs) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            app, ["view", "--results", str(runs.results), "--port", str(port), "--no-open"]
        )
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output and "--port 0" in result.output


def test_run_with_view_prints_the_runs_page_and_closes_it(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            *("run", "-d", str(SAMPLE), "--only", "packaging-22.0-01", "-m", "reference"),
            *("--no-execute", "--view", "--results", str(tmp_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    match = re.search(r"view: http://127\.0\.0\.1:(\d+)/#/run/([0-9a-f]{12})", result.output)
    assert match, result.output
    run_id = re.search(r"run ([0-9a-f]{12})", result.output)
    assert run_id and run_id[1] == match[2]
    with pytest.raises(OSError):  # the view lives as long as the run
        socket.create_connection(("127.0.0.1", int(match[1])), timeout=5).close()
