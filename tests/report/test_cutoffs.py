"""Knowledge cutoffs: the table of known models (and a user's own, first), one clear error for
a bad month or table, and a run's scores split at the cutoff in report and compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.core.records import ItemMeta
from pinbench.report.cutoffs import (
    AFTER,
    BEFORE,
    UNDATED,
    Cutoff,
    CutoffError,
    cutoff_for,
    load_table,
    side,
    split,
)


def test_known_models_are_found_with_or_without_their_backend_prefix() -> None:
    table = load_table()
    assert cutoff_for("openai:gpt-4o-2024-08-06", table).month == "2023-10"  # type: ignore[union-attr]
    assert cutoff_for("GPT-4o-mini", table).month == "2023-10"  # type: ignore[union-attr]
    assert cutoff_for("embedded:smollm2", table) is None


def test_a_users_table_comes_first_and_a_bad_one_is_named(tmp_path: Path) -> None:
    mine = tmp_path / "cutoffs.json"
    mine.write_text(json.dumps({"models": [{"pattern": "*gpt-4o*", "cutoff": "2024-01"}]}))
    found = cutoff_for("openai:gpt-4o", load_table(mine))
    assert found is not None and found.month == "2024-01" and "*gpt-4o*" in found.source
    mine.write_text(json.dumps({"models": [{"pattern": "x", "cutoff": "2024-13"}]}))
    with pytest.raises(CutoffError, match=str(mine)):
        load_table(mine)
    mine.write_text("{not json")
    with pytest.raises(CutoffError, match="not a cutoff table"):
        load_table(mine)
    with pytest.raises(CutoffError, match="no such cutoff table"):
        load_table(tmp_path / "missing.json")


def test_the_cutoff_month_itself_counts_as_before() -> None:
    assert side(ItemMeta(id="a", release_date="2023-10"), "2023-10") == BEFORE
    assert side(ItemMeta(id="a", release_date="2023-11-02"), "2023-10") == AFTER
    assert side(ItemMeta(id="a"), "2023-10") == UNDATED


def test_split_gives_intervals_and_splits_every_breakdown() -> None:
    metas = {
        f"p{i}": ItemMeta(id=f"p{i}", library=lib, release_date=date)
        for i, (lib, date) in enumerate(
            [("np", "2020-01"), ("np", "2021-05"), ("pd", "2022-02"), ("pd", "2024-03"),
             ("np", "2024-06"), ("pd", None)]
        )
    }  # fmt: skip
    rates = {"p0": 1.0, "p1": 1.0, "p2": 0.5, "p3": 0.0, "p4": 0.5, "p5": 1.0}
    result = split(
        Cutoff(month="2023-10", source="--cutoff"), rates, metas, {"library": lambda m: m.library}
    )
    assert result.before is not None and result.after is not None and result.gap is not None
    assert (result.before.problems, result.after.problems, result.undated) == (3, 2, 1)
    assert result.before.mean == pytest.approx(2.5 / 3) and result.after.mean == 0.25
    assert result.gap.mean == pytest.approx(0.25 - 2.5 / 3)
    assert result.gap.low <= result.gap.mean <= result.gap.high
    rows = {row.name: row for row in result.breakdowns["library"]}
    assert rows["np"].before.mean == 1.0 and rows["np"].after.mean == 0.5  # type: ignore[union-attr]
    assert rows["pd"].before.mean == 0.5 and rows["pd"].after.mean == 0.0  # type: ignore[union-attr]


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_report_and_compare_split_a_run_at_the_cutoff(tmp_path: Path) -> None:
    rows = []
    for pid, released in (("old", "2019-07"), ("new", "2024-02")):
        rows.append(
            {
                "id": pid, "library": "packaging", "version": "22.0", "python_version": "3.11",
                "release_date": released, "problem": "Write `major(v)`.",
                "starter_code": "def major(v):\n",
                "solution": "def major(v):\n    return int(v.split('.')[0])\n",
                "hidden_test": {"kind": "script", "code": "assert major('3.1') == 3\n"},
            }
        )  # fmt: skip
    dataset = tmp_path / "problems.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers = tmp_path / "answers.jsonl"
    good = "```python\ndef major(v):\n    return int(v.split('.')[0])\n```"
    answers.write_text(
        "".join(
            json.dumps({"problem_id": p, "sample": 0, "round": 0, "response": text}) + "\n"
            for p, text in (("old", good), ("new", "```python\ndef major(v):\n    return 0\n```"))
        )
    )
    results = tmp_path / "res"
    ids = []
    for model in (f"replay:{answers}", "reference"):
        out = tmp_path / f"{len(ids)}.json"
        _invoke("run", "-d", str(dataset), "-m", model, "--results", str(results),
                "--json", str(out))  # fmt: skip
        ids.append(json.loads(out.read_text())["summary"]["run_id"])
    report, html = tmp_path / "r.json", tmp_path / "r.html"
    output = _invoke("report", ids[0], "--cutoff", "2023-10", "--results", str(results),
                     "--json", str(report), "--html", str(html))  # fmt: skip
    assert "knowledge cutoff 2023-10 (--cutoff)" in output
    cut = json.loads(report.read_text())["cutoff"]
    assert cut["before"]["mean"] == 1.0 and cut["after"]["mean"] == 0.0 and cut["gap"]["mean"] == -1
    assert "Before and after the knowledge cutoff" in html.read_text()
    plain = tmp_path / "plain.json"  # no cutoff given, none known for a replayed model
    _invoke("report", ids[0], "--results", str(results), "--json", str(plain))
    assert json.loads(plain.read_text())["cutoff"] is None
    comparison = tmp_path / "c.json"
    output = _invoke("compare", *ids, "--cutoff", "2023-10", "--results", str(results),
                     "--json", str(comparison))  # fmt: skip
    assert "knowledge cutoff" in output
    gaps = {
        e["run_id"]: e["cutoff"]["gap"]["mean"]
        for e in json.loads(comparison.read_text())["leaderboard"]
    }
    assert gaps == {ids[0]: -1.0, ids[1]: 0.0}
    bad = CliRunner().invoke(
        app, ["report", ids[0], "--cutoff", "2023/10", "--results", str(results)]
    )
    assert bad.exit_code != 0 and "not a month like 2023-10" in bad.output
