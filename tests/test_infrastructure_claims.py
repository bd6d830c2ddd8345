"""Samples cannot leave the denominator by claiming infrastructure: an environment outcome that
rests on the program's own error text stands only where the harness's evidence agrees (the
reference program met it too, in the same environment); otherwise the sample failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app

pytestmark = pytest.mark.integration

NLTK = (
    'raise LookupError("Resource wordnet not found.\\n  Please use the NLTK Downloader to '
    "obtain the resource:\\n  >>> import nltk\\n  >>> nltk.download('wordnet')\")\n"
)
SOLUTION = "import packaging\n\n\ndef v():\n    return packaging.__version__\n"


def _dataset(tmp_path: Path) -> Path:
    row = {
        "library": "packaging",
        "version": "22.0",
        "python_version": "3.11",
        "problem": "Return packaging's version.",
        "hidden_test": {"kind": "script", "code": "assert v() == '22.0'"},
    }
    rows = [
        {**row, "id": "reference-runs", "solution": SOLUTION},
        {**row, "id": "reference-lacks-data", "solution": SOLUTION + NLTK},
    ]
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_claimed_missing_resource_fails_unless_the_reference_met_it_too(tmp_path: Path) -> None:
    dataset = _dataset(tmp_path)
    answers = tmp_path / "answers.jsonl"
    claim = "```python\n" + SOLUTION + NLTK + "```"
    answers.write_text(
        "".join(
            json.dumps({"problem_id": pid, "response": claim}) + "\n"
            for pid in ("reference-runs", "reference-lacks-data")
        )
    )
    out = tmp_path / "run.json"
    result = CliRunner().invoke(
        app,
        ["run", "-m", f"replay:{answers}", "-d", str(dataset), "--results",
         str(tmp_path / "results"), "--json", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    samples = {s["problem_id"]: s for s in document["samples"]}
    assert samples["reference-runs"]["outcome"] == "failed"  # scored: the reference ran there
    assert samples["reference-runs"]["exc_type"] == "LookupError"
    assert samples["reference-lacks-data"]["outcome"] == "environment_error"  # evidence agrees
    scores = document["summary"]["scores"]
    assert scores["rounds"][0]["scored"] == 1 and scores["rounds"][0]["pass_at"][0]["mean"] == 0.0
