"""A run of 100 000 samples (5000 problems × 20, some with two feedback rounds), still going:
the first page, a page deep in the run, a filtered page, one sample, the run's page and its
progress come back whole and small. Sizes only; bench/view.py measures the time."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from pinbench.store.runs import RunStore
from pinbench.view.server import ViewServer
from tests.view.conftest import REPO, get

pytestmark = pytest.mark.timeout(240)
_SMALL = 200_000  # bytes: a page or a sample is never the run


def _build_run() -> object:
    spec = importlib.util.spec_from_file_location("bench_view", REPO / "bench" / "view.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_run


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ViewServer, str]]:
    results = tmp_path_factory.mktemp("large")
    with RunStore.at(results) as store:
        run_id = _build_run()(store, 5000, 20, text=1, finish=False)  # type: ignore[operator]
    with ViewServer(RunStore.path_at(results)).start() as server:
        yield server, run_id


def test_pages_of_a_large_run_are_bounded(large: tuple[ViewServer, str]) -> None:
    server, run_id = large
    base = f"/api/runs/{run_id}"
    first = get(server, f"{base}/samples")
    assert first.status == 200 and len(first.body) < _SMALL
    page = first.json()
    assert page["total"] > 100_000 and len(page["rows"]) == 50
    assert page["rows"][0]["problem_id"] == "p00000"
    deep = get(server, f"{base}/samples?offset=90000&limit=200")
    assert len(deep.body) < _SMALL and len(deep.json()["rows"]) == 200
    failed = get(server, f"{base}/samples?outcome=failed&round=2&q=p049").json()
    assert failed["total"] > 0 and all(r["round"] == 2 for r in failed["rows"])
    feedback = next(r for r in failed["rows"])
    sample = get(server, f"{base}/samples/{feedback['problem_id']}/0/{feedback['sample']}")
    assert sample.status == 200 and len(sample.body) < _SMALL
    assert [r["round"] for r in sample.json()["rounds"]] == [0, 1, 2]
    run = get(server, base)
    assert run.status == 200 and len(run.body) < _SMALL
    progress = get(server, f"{base}/progress").json()
    assert progress["samples"] == progress["expected"] == 100_000


def test_the_store_reads_pages_through_its_index(large: tuple[ViewServer, str]) -> None:
    """Pages come from the covering index, so a page deep in the run reads no programs."""
    server, run_id = large
    with RunStore.reader(server.store) as store:
        plan = store.connection.execute(
            "EXPLAIN QUERY PLAN SELECT rowid FROM samples WHERE run_id = ? AND status = ?"
            " ORDER BY problem_id, seed, sample, round LIMIT 50 OFFSET 90000",
            (run_id, "failed"),
        ).fetchall()
    details = " ".join(str(row[-1]) for row in plan)
    assert "COVERING INDEX samples_browse" in details and "TEMP B-TREE" not in details
