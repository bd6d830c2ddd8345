"""Passes that use a deprecated API are reported apart from clean passes: a real run (replayed
answers, numpy 1.21.6 where `np.float` warns), its report (JSON, HTML, terminal) and compare."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pinbench.cli import app

HIDDEN = {"kind": "script", "code": "assert as_float(3) == 3.0 and type(as_float(3)) is float\n"}


def _problem(pid: str, change: str) -> dict[str, object]:
    return {
        "id": pid,
        "library": "numpy",
        "version": "1.21.6",
        "python_version": "3.9",
        "problem": "Write `as_float(x)` returning x as a Python float.",
        "starter_code": "import numpy as np\n\n\ndef as_float(x):\n",
        "solution": "import numpy as np\n\n\ndef as_float(x):\n    return float(x)\n",
        "hidden_test": HIDDEN,
        "change": change,
    }


DEPRECATED = "```python\nimport numpy as np\n\n\ndef as_float(x):\n    return np.float(x)\n```"
CLEAN = "```python\nimport numpy as np\n\n\ndef as_float(x):\n    return float(x)\n```"


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_run_reports_deprecated_passes_by_library_change_and_api(tmp_path: Path) -> None:
    dataset = tmp_path / "problems.jsonl"
    rows = [_problem("np-a", "argument change"), _problem("np-b", "rename")]
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers = tmp_path / "answers.jsonl"
    replies = [("np-a", 0, DEPRECATED), ("np-a", 1, CLEAN), ("np-b", 0, CLEAN), ("np-b", 1, CLEAN)]
    answers.write_text(
        "".join(
            json.dumps({"problem_id": p, "sample": s, "round": 0, "response": text}) + "\n"
            for p, s, text in replies
        )
    )
    results = tmp_path / "res"
    ids = []
    for model, extra in ((f"replay:{answers}", ["-n", "2"]), ("reference", [])):
        out = tmp_path / f"{len(ids)}.json"
        _invoke("run", "-d", str(dataset), "-m", model, *extra, "--results", str(results),
                "--json", str(out))  # fmt: skip
        ids.append(json.loads(out.read_text())["summary"]["run_id"])
    report, html = tmp_path / "r.json", tmp_path / "r.html"
    output = _invoke("report", ids[0], "--results", str(results), "--json", str(report),
                     "--html", str(html))  # fmt: skip
    assert "passes using a deprecated API: 1 of 4 (25.0%)" in output
    document = json.loads(report.read_text())
    summary = document["deprecations"]
    assert (summary["passes"], summary["captured"], summary["clean"]) == (4, 4, 3)
    assert summary["deprecated"] == 1 and summary["tampered"] == 0
    assert summary["apis"] == [{"library": "numpy", "api": "np.float", "passes": 1, "failures": 0}]
    changes = {g["name"]: g for g in document["by_change"]}
    assert changes["argument_or_attribute_change"]["deprecated_passes"] == 1
    assert changes["function_name_change"]["deprecated_passes"] == 0
    (library,) = document["by_library"]
    assert (library["captured_passes"], library["deprecated_passes"]) == (4, 1)
    page = html.read_text()
    assert "Passes that use deprecated API" in page and "<code>np.float</code>" in page
    comparison = tmp_path / "c.json"
    _invoke("compare", *ids, "--results", str(results), "--json", str(comparison))
    leaderboard = json.loads(comparison.read_text())["leaderboard"]
    shares = {e["run_id"]: e["deprecated"] for e in leaderboard}
    assert shares == {ids[0]: 0.25, ids[1]: 0.0}
