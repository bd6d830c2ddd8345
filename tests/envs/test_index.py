"""The package-index cache under concurrency: threads fetching one project at once (as `mine`
does for several versions of one library) must all get the files."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pinbench.envs.python.index import project_files

pytestmark = pytest.mark.integration


def test_concurrent_first_fetches_of_one_project_all_succeed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path))  # an empty index cache
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: project_files("attrs"), range(8)))
    assert all(len(files) > 50 for files in results)
    assert {str(f.version) for f in results[0]} >= {"21.2.0", "21.3.0"}
    assert list((tmp_path / "index").glob("*.tmp")) == []
