"""Pins are index releases: a direct reference (`name @ file:…`, a URL, a repository) would make
uv build the dataset's own files on the host, so it is refused at load with the row's
`file:line` unless `--allow-direct-references`; `library` and `version` are checked at load too
(a marker or an option in `version` is the row's error, not a late environment failure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.tasks.generation.loaders import load_dataset

REPO = Path(__file__).resolve().parent.parent.parent
SAMPLE = REPO / "data" / "sample" / "problems.jsonl"


def _rows(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "setup-py-ran"
    package = tmp_path / "evil"
    package.mkdir()
    (package / "setup.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    good = json.loads(SAMPLE.read_text().splitlines()[0])
    rows = [
        good,
        {**good, "id": "file-ref", "extra_pins": [f"evil @ file://{package}"]},
        {**good, "id": "url-ref", "harness_pins": ["pytest @ https://example.invalid/p.whl"]},
        {**good, "id": "vcs-ref", "extra_pins": ["x @ git+https://example.invalid/x.git"]},
        {**good, "id": "marker-version", "version": "1.22.4 ; python_version < '3'"},
        {**good, "id": "option-version", "version": "--index-url=http://evil"},
        {**good, "id": "bad-library", "library": "numpy; rm"},
    ]
    path = tmp_path / "problems.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path, marker


def test_direct_references_and_malformed_pins_are_row_errors(tmp_path: Path) -> None:
    path, marker = _rows(tmp_path)
    loaded = load_dataset(path)
    assert [p.id for p in loaded.problems] == [json.loads(SAMPLE.read_text().splitlines()[0])["id"]]
    issues = {str(i).split(": ", 1)[0]: str(i) for i in loaded.issues}
    assert set(issues) == {f"{path}:{n}" for n in range(2, 8)}
    assert "file-ref: direct references evil @ file://" in issues[f"{path}:2"]
    assert "--allow-direct-references" in issues[f"{path}:3"]
    assert "is not a version" in issues[f"{path}:5"] and "is not a version" in issues[f"{path}:6"]
    assert "is not a distribution name" in issues[f"{path}:7"]
    allowed = load_dataset(path, allow_direct_references=True)
    assert {p.id for p in allowed.problems} >= {"file-ref", "url-ref", "vcs-ref"}
    assert not marker.exists()


@pytest.mark.integration
def test_validate_and_run_refuse_them_and_never_build_them(tmp_path: Path) -> None:
    path, marker = _rows(tmp_path)
    runner = CliRunner()
    for command in (
        ["validate", str(path), "--only", "file-ref"],
        ["run", "-m", "reference", "-d", str(path), "--only", "file-ref",
         "--results", str(tmp_path / "r")],
    ):  # fmt: skip
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        assert f"{path}:2: file-ref: direct references" in result.output
        assert "no problem to" in result.output
    assert not marker.exists()  # nothing of the dataset ran on the host
