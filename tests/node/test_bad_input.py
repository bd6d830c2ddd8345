"""Bad JavaScript input through `pinbench run`: a malformed row is skipped with its file and
line, a Node release or a package version that is not published is one clear environment
error, recorded, and the rest of the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.tasks.generation.loaders import load_dataset

pytestmark = pytest.mark.integration


def test_bad_rows_and_unpublished_versions_are_named_and_the_run_goes_on(tmp_path: Path) -> None:
    good = next(p for p in load_dataset(Path("builtin")).problems if p.id == "uuid-3.3-01")
    row = json.loads(good.model_dump_json())
    rows = [
        row,
        {**row, "id": "bad-node-version", "node_version": "eighteen"},
        {**row, "id": "no-such-node", "node_version": "99.1.1"},
        {**row, "id": "no-such-version", "version": "0.0.1-nope"},
    ]
    dataset = tmp_path / "problems.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run.json"
    args = ["run", "-d", str(dataset), "--split", "js", "-m", "reference"]
    result = CliRunner().invoke(app, [*args, "--results", str(tmp_path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert f"skipped: {dataset}:2: row: Value error, node_version 'eighteen'" in result.output
    assert "environment error (1 sample): Node 99.1.1 is not published" in result.output
    assert "environment error (1 sample): uuid@0.0.1-nope" in result.output
    outcomes = {s["problem_id"]: s["outcome"] for s in json.loads(out.read_text())["samples"]}
    assert outcomes == {
        "uuid-3.3-01": "passed",
        "no-such-node": "environment_error",
        "no-such-version": "environment_error",
    }
