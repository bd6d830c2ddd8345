"""pinbench's own benchmark: its shape (the issue's targets) and its soundness, proven."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.problem import ChangeCategory, Problem
from pinbench.tasks.generation.splits import select_split
from pinbench.validation import Verdict, validate

BUILTIN = Path("builtin")


@pytest.fixture(scope="module")
def problems() -> list[Problem]:
    loaded = load_dataset(BUILTIN, strict=True)
    assert not loaded.issues
    return loaded.problems


def test_shape(problems: list[Problem]) -> None:
    assert len(problems) >= 120
    assert len({p.library for p in problems}) >= 12
    assert len({(p.library, p.version) for p in problems}) >= 40
    assert len({p.python_version for p in problems}) >= 3
    years = {int(p.release_date[:4]) for p in problems if p.release_date}
    assert min(years) <= 2016 and max(years) >= 2025
    changes = Counter(p.change.category for p in problems)
    for category in set(ChangeCategory) - {ChangeCategory.UNKNOWN}:
        assert changes[category] >= 15, (category, changes[category])


def test_every_problem_is_complete(problems: list[Problem]) -> None:
    for p in problems:
        assert p.source and p.docs and p.problem and p.starter_code, p.id
        assert p.visible_test is not None and p.release_date, p.id
        assert p.contrast is not None and p.contrast.version != p.version, p.id


def test_splits(problems: list[Problem]) -> None:
    quick = select_split(problems, "quick")
    assert 15 <= len(quick) <= 25
    default = select_split(problems, "default")
    assert all("heavy" not in p.tags for p in default)
    assert len(select_split(problems, "full")) == len(problems)


def test_datasets_stats_json(tmp_path: Path) -> None:
    out = tmp_path / "stats.json"
    done = subprocess.run(
        [sys.executable, "-m", "pinbench", "datasets", "stats", "builtin", "--json", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    stats = json.loads(out.read_text())
    assert stats["schema_version"] == 1 and stats["problems"] >= 120
    assert sum(stats["by_library"].values()) == stats["problems"]
    assert sum(stats["by_change"].values()) == stats["problems"]
    assert stats["with_contrast"] == stats["problems"]


@pytest.mark.integration
def test_quick_split_is_sound_and_discriminative(problems: list[Problem]) -> None:
    reports = validate(select_split(problems, "quick"), jobs=2, discriminative=True)
    failing = {
        r.id: {name: c.detail for name, c in r.checks.items() if not c.ok}
        for r in reports
        if r.verdict is not Verdict.SOUND
    }
    assert not failing


def test_datasets_list_and_show(problems: list[Problem]) -> None:
    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "pinbench", "datasets", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    listing = cli("list")
    assert "builtin" in listing and "quick" in listing and str(len(problems)) in listing
    one = problems[0]
    shown = json.loads(cli("show", "builtin", one.id))
    assert shown["id"] == one.id and shown["contrast"]["version"] == one.contrast.version  # type: ignore[union-attr]
    assert one.id in cli("show", "builtin", "--split", "full")
