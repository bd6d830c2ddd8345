"""`pinbench mine` against facts from the libraries' changelogs, in real environments."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinbench.cli import app
from pinbench.cli.mine import FILES
from pinbench.mining.lifespans import Change, Snapshot, changes, lifespans

pytestmark = pytest.mark.integration


def _mine(tmp_path: Path, library: str, versions: str, *args: str) -> dict:  # type: ignore[type-arg]
    out = tmp_path / library
    command = ["mine", library, "--versions", versions, "-o", str(out), *args]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    return json.loads((out / "lifespans.json").read_text())  # type: ignore[no-any-return]


def _has(mined: dict, kind: str, name: str, detail: str = "") -> bool:  # type: ignore[type-arg]
    return any(
        c["kind"] == kind and c["name"] == name and detail in c["detail"] for c in mined["changes"]
    )


def test_packaging_22_removed_legacy_version(tmp_path: Path) -> None:
    mined = _mine(tmp_path, "packaging", "22.0,21.3", "--json", str(tmp_path / "m" / "mine.json"))
    assert _has(mined, "removed", "packaging.version.LegacyVersion")
    document = json.loads((tmp_path / "m" / "mine.json").read_text())
    assert document["schema_version"] == 1 and document["library"] == "packaging"
    assert [v["version"] for v in document["versions"]] == ["21.3", "22.0"]  # oldest first
    assert all(v["apis"] > 20 and v["error"] is None for v in document["versions"])
    assert document["changes"] == mined["changes"]
    assert document["summary"]["22.0"]["removed"] == sum(
        c["kind"] == "removed" for c in mined["changes"]
    )
    assert document["lifespans"] == len(mined["lifespans"])
    out = tmp_path / "packaging"
    assert document["out"] == str(out)
    assert document["files"] == [str(out / name) for name in FILES]
    assert document["candidates"] == len((out / "candidates.jsonl").read_text().splitlines())
    spans = {
        row["name"]: row
        for row in csv.DictReader((tmp_path / "packaging" / "lifespans.csv").open())
    }
    assert spans["packaging.version.LegacyVersion"]["removed"] == "22.0"
    assert spans["packaging.version.LegacyVersion"]["tag"] == "deprecation"
    assert spans["packaging.version.Version"]["tag"] == "general"
    skeletons = [json.loads(line) for line in (tmp_path / "packaging" / "candidates.jsonl").open()]
    legacy = [s for s in skeletons if "packaging.version.LegacyVersion" in s["tags"][0]]
    assert (
        legacy and legacy[0]["version"] == "22.0" and legacy[0]["contrast"] == {"version": "21.3"}
    )
    assert "LegacyVersion" in (tmp_path / "packaging" / "lifespans.html").read_text()


def test_click_8_added_get_parameter_source(tmp_path: Path) -> None:
    mined = _mine(tmp_path, "click", "7.1.2,8.0.0")
    assert _has(mined, "added", "click.core.Context.get_parameter_source")
    assert not _has(mined, "removed", "click.core.Context.get_parameter_source")


def test_attrs_21_3_added_the_attrs_namespace_and_match_args(tmp_path: Path) -> None:
    mined = _mine(tmp_path, "attrs", "21.2.0,21.3.0")
    assert _has(mined, "added", "attrs.define")
    assert _has(mined, "argument_added", "attr.define", "match_args")
    spans = {row["name"]: row for row in mined["lifespans"]}
    assert spans["attrs.define"]["added"] == "21.3.0" and spans["attrs.define"]["tag"] == "addition"


def _shot(version: str, api: dict) -> Snapshot:  # type: ignore[type-arg]
    return Snapshot(version=version, api=api)


def test_diffing_finds_renames_argument_changes_and_deprecations() -> None:
    f = {"kind": "function", "deprecated": False, "doc": "Add things."}
    pk, kw = "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"
    before = _shot("1.0", {
        "m.old_name": {**f, "params": [["a", pk, None]]},
        "m.g": {**f, "params": [["x", pk, None], ["y", pk, "1"]]},
        "m.h": {**f, "params": [["src", pk, None]]},
        "m.k": {**f, "params": []},
    })  # fmt: skip
    after = _shot("2.0", {
        "m.new_name": {**f, "params": [["a", pk, None]]},
        "m.g": {**f, "params": [["x", pk, None], ["y", kw, "2"]]},
        "m.h": {**f, "params": [["source", pk, None]]},
        "m.k": {**f, "params": [], "deprecated": True},
    })  # fmt: skip
    found = {(c.kind, c.name, c.detail) for c in changes([before, after])}
    assert ("renamed", "m.new_name", "from m.old_name") in found
    assert ("default_changed", "m.g", "y: 1 -> 2") in found
    assert ("became_keyword_only", "m.g", "y") in found
    assert ("argument_renamed", "m.h", "src -> source") in found
    assert ("deprecated", "m.k", "") in found
    assert not any(kind in ("added", "removed") for kind, _, _ in found)  # the rename explains both
    spans = {s.name: s for s in lifespans([before, after])}
    assert spans["m.old_name"].removed == "2.0" and spans["m.new_name"].added == "2.0"
    assert spans["m.k"].deprecated == "2.0" and spans["m.k"].tag == "deprecation"
    assert isinstance(next(iter(changes([before, after]))), Change)


def test_mine_needs_versions(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["mine", "packaging", "-o", str(tmp_path)])
    assert result.exit_code == 2 and "exactly one of --versions and --range" in result.output
    result = CliRunner().invoke(app, ["mine", "packaging", "--versions", "22.0"])
    assert result.exit_code == 2 and "at least two versions" in result.output
