"""`pinbench mine npm:NAME`: each version's exports introspected on real Node in the sandbox,
the TypeScript declarations a package ships read with the compiler, and the diffs that find the
changelogs' own changes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pinbench.cli import app


def _mine(tmp_path: Path, *args: str) -> dict[str, object]:
    out = tmp_path / "mined"
    result = CliRunner().invoke(
        app, ["mine", *args, "-o", str(out), "--json", str(tmp_path / "m.json")]
    )
    assert result.exit_code == 0, result.output
    document: dict[str, object] = json.loads((out / "lifespans.json").read_text())
    return document


def test_lodash_4_removals_and_renames_are_found(tmp_path: Path) -> None:
    mined = _mine(tmp_path, "npm:lodash", "--versions", "3.10.1,4.17.21", "--node", "16")
    changes = mined["changes"]
    assert isinstance(changes, list)
    removed = {c["name"] for c in changes if c["kind"] == "removed"}
    assert {"lodash.pluck", "lodash.indexBy", "lodash.contains"} <= removed  # 4.0.0's changelog
    renamed = {(c["name"], c["detail"]) for c in changes if c["kind"] == "renamed"}
    assert ("lodash.orderBy", "from lodash.sortByOrder") in renamed
    assert mined["language"] == "javascript"
    skeleton = json.loads((tmp_path / "mined" / "candidates.jsonl").read_text().splitlines()[0])
    assert skeleton["language"] == "javascript" and skeleton["hidden_test"]["kind"] == "jest"


def test_typescript_declarations_add_types_and_deprecations(tmp_path: Path) -> None:
    mined = _mine(tmp_path, "npm:zod", "--versions", "3.20.0,3.22.4")
    snapshots = mined["snapshots"]
    assert isinstance(snapshots, list)
    api = snapshots[-1]["api"]
    assert api["zod.ZodType"]["kind"] == "class" and api["zod.ZodTypeAny"]["kind"] == "type"
    changes = mined["changes"]
    assert isinstance(changes, list)
    assert any(c["kind"] == "deprecated" for c in changes)  # from @deprecated tags
