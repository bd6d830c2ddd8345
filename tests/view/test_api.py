"""The view's JSON API against a real server on a free port over a store written by
`RunStore`: pages and their bounds, filters, one sample's rounds and diffs, breakdowns that
agree with the report's, comparisons, the Host check, and clear 4xx answers to bad requests."""

from __future__ import annotations

import socket
import urllib.parse

import pytest

from pinbench.metrics.intervals import problem_rates
from pinbench.report.compare import compare
from pinbench.report.data import build_report
from pinbench.store.runs import RunStore
from pinbench.view.queries import MAX_LIMIT
from pinbench.view.server import ViewServer
from tests.view.conftest import (
    HOSTILE_ID,
    HOSTILE_LIBRARY,
    HOSTILE_MESSAGE,
    PROBLEMS,
    Runs,
    get,
    record_run,
)

pytestmark = pytest.mark.timeout(120)


def _records(runs: Runs, run_id: str) -> list[tuple[str, int, int, int, str]]:
    with RunStore.at(runs.results) as store:
        return [(r.problem_id, r.seed, r.sample, r.round, r.status) for r in store.samples(run_id)]


def test_runs_list_pages_and_headlines(server: ViewServer, runs: Runs) -> None:
    page = get(server, "/api/runs").json()
    assert page["total"] == 2
    assert {r["id"] for r in page["rows"]} == {runs.feedback, runs.other}
    row = next(r for r in page["rows"] if r["id"] == runs.feedback)
    assert row["status"] == "finished" and row["feedback_rounds"] == 1
    assert row["problems"] == len(PROBLEMS) and 0 <= row["pass_at_1"] <= 1
    second = get(server, "/api/runs?limit=1&offset=1").json()
    assert second["total"] == 2 and len(second["rows"]) == 1
    assert second["rows"][0]["id"] == page["rows"][1]["id"]


def test_breakdowns_agree_with_the_report(server: ViewServer, runs: Runs) -> None:
    data = get(server, f"/api/runs/{runs.feedback}").json()
    with RunStore.at(runs.results) as store:
        run = store.run(runs.feedback)
        assert run is not None
        report = build_report(store, run, details=False)
    fields = ("name", "problems", "baseline", "baseline_std", "feedback", "feedback_std")

    def pick(groups: list[dict[str, object]]) -> list[tuple[object, ...]]:
        return [tuple(g[f] for f in fields) for g in groups]

    shown = {b["name"]: b["groups"] for b in data["breakdowns"]}
    expected = {
        "library": report.by_library,
        "release year": report.by_year,
        "type of change": report.by_change,
    }
    for name, groups in expected.items():
        assert pick(shown[name]) == pick([g.model_dump() for g in groups]), name
    assert data["errors"] == report.errors
    assert data["statuses"] == report.summary.scores.statuses
    assert data["summary"]["scores"]["rounds"][0]["pass_at"][0]["k"] == 1
    assert data["run"]["config"]["feedback_rounds"] == 1
    assert len(data["plots"]) == 5  # three breakdowns, difficulty, error categories
    assert data["progress"]["samples"] == len(PROBLEMS) * 2 * 2


def test_samples_page_walks_the_run_in_key_order(server: ViewServer, runs: Runs) -> None:
    records = _records(runs, runs.feedback)
    first = get(server, f"/api/runs/{runs.feedback}/samples?limit=5").json()
    assert first["total"] == len(records) and first["limit"] == 5
    rest = get(server, f"/api/runs/{runs.feedback}/samples?limit=200&offset=5").json()
    keys = [
        (r["problem_id"], r["seed"], r["sample"], r["round"], r["status"])
        for r in first["rows"] + rest["rows"]
    ]
    assert keys == sorted(records)
    hostile = next(r for r in rest["rows"] if r["problem_id"] == HOSTILE_ID and r["message"])
    assert HOSTILE_MESSAGE in hostile["message"] and hostile["library"] == HOSTILE_LIBRARY
    beyond = get(server, f"/api/runs/{runs.feedback}/samples?offset=100000").json()
    assert beyond["rows"] == [] and beyond["total"] == len(records)


@pytest.mark.parametrize(
    ("query", "keep"),
    [
        ("status=failed", lambda r: r[4] == "failed"),
        ("outcome=passed", lambda r: r[4] == "passed"),
        ("outcome=failed", lambda r: r[4] in ("failed", "timeout")),
        ("outcome=unscored", lambda r: r[4] == "environment_error"),
        ("round=1", lambda r: r[3] == 1),
        ("q=alpha", lambda r: "alpha" in r[0]),
        ("q=%3C%2Fscript%3E", lambda r: r[0] == HOSTILE_ID),
        ("library=beta", lambda r: r[0] == "beta-01"),
        ("library=" + urllib.parse.quote(HOSTILE_LIBRARY), lambda r: r[0] == HOSTILE_ID),
        ("q=alpha&round=0&outcome=failed", lambda r: "alpha" in r[0] and r[3] == 0 and r[4]
         in ("failed", "timeout")),
    ],
)  # fmt: skip
def test_filters_and_their_counts(server: ViewServer, runs: Runs, query: str, keep: object) -> None:
    expected = sorted(r for r in _records(runs, runs.feedback) if keep(r))  # type: ignore[operator]
    assert expected, query
    page = get(server, f"/api/runs/{runs.feedback}/samples?{query}&limit=200").json()
    assert page["total"] == len(expected)
    rows = [
        (r["problem_id"], r["seed"], r["sample"], r["round"], r["status"]) for r in page["rows"]
    ]
    assert rows == expected


def test_a_sample_has_every_round_with_prompt_diff_and_tests(
    server: ViewServer, runs: Runs
) -> None:
    chains = {(r[0], r[1], r[2]): r[3] for r in _records(runs, runs.feedback)}
    problem, seed, sample = next(key for key, last in chains.items() if last == 1)
    quoted = urllib.parse.quote(problem, safe="")
    path = f"/api/runs/{runs.feedback}/samples/{quoted}/{seed}/{sample}"
    data = get(server, path).json()
    assert [r["round"] for r in data["rounds"]] == [0, 1]
    first, second = data["rounds"]
    assert first["diff"] is None
    assert "-    return 0" in second["diff"] and "+    return 1" in second["diff"]
    assert second["prompt"][1]["content"].startswith(f"Write {problem} (round 1)")
    assert first["response"].startswith("```python")
    assert data["item"]["hidden_test"] and data["item"]["visible_test"]
    hostile = f"/api/runs/{runs.feedback}/samples/{urllib.parse.quote(HOSTILE_ID, safe='')}/0/0"
    answer = get(server, hostile)
    assert answer.status == 200
    item = answer.json()
    assert item["problem_id"] == HOSTILE_ID and HOSTILE_MESSAGE in item["item"]["problem"]


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/api/runs/ffffffffffff", 404, "no run"),
        ("/api/runs/%25", 400, "not a run id"),
        ("/api/runs/a_b", 400, "not a run id"),
        ("/api/runs/{run}/samples?limit=0", 400, "limit must be between 1 and 200"),
        (f"/api/runs/{{run}}/samples?limit={MAX_LIMIT + 1}", 400, "limit must be between"),
        ("/api/runs/{run}/samples?offset=-1", 400, "offset must be between"),
        ("/api/runs/{run}/samples?offset=ten", 400, "offset must be an integer"),
        ("/api/runs/{run}/samples?status=bogus", 400, "unknown status"),
        ("/api/runs/{run}/samples?outcome=maybe", 400, "unknown outcome"),
        ("/api/runs/{run}/samples?round=x", 400, "round must be an integer"),
        ("/api/runs/{run}/samples/alpha-01/x/0", 400, "seed must be"),
        ("/api/runs/{run}/samples/alpha-01/0/99", 404, "no sample"),
        ("/api/runs/{run}/samples/%FF%FE/0/0", 400, "malformed URL"),
        ("/api/runs/{run}/plots/99.svg", 404, "no plot"),
        ("/api/runs/{run}/plots/..%2F..%2Fetc.svg", 404, "no such plot"),
        ("/api/runs/{run}/whatever", 404, "no such API route"),
        ("/api/nothing", 404, "no such API route"),
        ("/static/../../pyproject.toml", 404, "no such page"),
        ("/etc/passwd", 404, "no such page"),
        ("/api/compare/{run}/{run}?sort=sideways", 400, "sort must be"),
    ],
)
def test_bad_requests_get_a_clear_json_error(
    server: ViewServer, runs: Runs, path: str, status: int, words: str
) -> None:
    answer = get(server, path.format(run=runs.feedback))
    assert answer.status == status
    assert answer.headers["Content-Type"].startswith("application/json")
    error = answer.json()["error"]
    assert words in error and "Traceback" not in error


def test_only_localhost_may_ask(server: ViewServer, runs: Runs) -> None:
    for host in ("localhost", f"localhost:{server.port}", "127.0.0.1", f"[::1]:{server.port}"):
        assert get(server, "/api/runs", host=host).status == 200, host
    for host in ("evil.example", f"evil.example:{server.port}", "127.0.0.1.evil.example", ""):
        answer = get(server, "/api/runs", host=host)
        assert answer.status == 403, host
        assert "localhost" in answer.json()["error"]
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw:
        raw.sendall(b"GET /api/runs HTTP/1.0\r\n\r\n")  # no Host header at all
        assert raw.recv(100).startswith(b"HTTP/1.1 403")


def test_only_get_is_served(server: ViewServer) -> None:
    for method in ("POST", "PUT", "DELETE", "HEAD", "OPTIONS"):
        answer = get(server, "/api/runs", method=method)
        assert answer.status == 405, method
    for line in (b"GARBAGE\r\n\r\n", b"GET /api/runs HTTP/9.9\r\nHost: localhost\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as raw:
            raw.sendall(line)
            answer = raw.recv(4096)
        assert answer.split(b" ")[1] in (b"400", b"505"), answer
        assert b"Traceback" not in answer and b"<html" not in answer.lower()


def test_every_answer_carries_the_security_headers(server: ViewServer, runs: Runs) -> None:
    for path in ("/", "/static/app.js", "/api/runs", "/api/runs/nope", "/nowhere"):
        headers = get(server, path).headers
        assert "default-src 'self'" in headers["Content-Security-Policy"], path
        assert "unsafe-inline" not in headers["Content-Security-Policy"], path
        assert headers["X-Content-Type-Options"] == "nosniff", path
    page = get(server, "/").body.decode()
    assert '<script src="/static/app.js"' in page and "<script>" not in page
    assert "http://" not in page and "https://" not in page  # nothing from elsewhere
    script = get(server, "/static/app.js")
    assert script.headers["Content-Type"].startswith("text/javascript")
    assert "innerHTML" not in script.body.decode()


def test_plots_are_the_reports_svgs_with_text_escaped(server: ViewServer, runs: Runs) -> None:
    answer = get(server, f"/api/runs/{runs.feedback}/plots/0.svg")
    assert answer.status == 200 and answer.headers["Content-Type"].startswith("image/svg+xml")
    svg = answer.body.decode()
    assert svg.startswith("<svg") and "pass@1 by library" in svg
    assert HOSTILE_LIBRARY not in svg and "&lt;i&gt;lib&lt;/i&gt;" in svg
    assert get(server, f"/api/runs/{runs.feedback}/plots/4.svg").body.startswith(b"<svg")


def test_compare_pages_per_problem_rates(server: ViewServer, runs: Runs) -> None:
    data = get(server, f"/api/compare/{runs.feedback}/{runs.other}?limit=2").json()
    assert [r["id"] for r in data["runs"]] == [runs.feedback, runs.other]
    assert data["shared_problems"] == len(PROBLEMS)
    assert data["problems"]["total"] == len(PROBLEMS) and len(data["problems"]["rows"]) == 2
    names = [d["name"] for d in data["deltas"]]
    assert names[:2] == ["pass@1 on shared problems", "pass@1"] and "problems" in names
    every = get(server, f"/api/compare/{runs.feedback}/{runs.other}?sort=-delta").json()
    deltas = [r["delta"] for r in every["problems"]["rows"] if r["delta"] is not None]
    assert deltas == sorted(deltas, reverse=True)
    alpha = next(r for r in every["problems"]["rows"] if r["id"] == "alpha-02")
    assert alpha["b"] == 0.0  # the reference run fails alpha-02 every time
    only = get(server, f"/api/compare/{runs.feedback}/{runs.other}?q=beta").json()
    assert [r["id"] for r in only["problems"]["rows"]] == ["beta-01"]


def test_compare_agrees_with_the_reports_comparison(server: ViewServer, runs: Runs) -> None:
    """The view's figures come from SQL tallies; `report.compare` reads every record."""
    data = get(server, f"/api/compare/{runs.feedback}/{runs.other}?limit=200").json()
    with RunStore.at(runs.results) as store:
        reports, records = [], {}
        for run_id in (runs.feedback, runs.other):
            run = store.run(run_id)
            assert run is not None
            reports.append(build_report(store, run, details=False))
            records[run_id] = store.samples(run_id)
    comparison = compare(reports, records)
    rates = {run_id: problem_rates(rows) for run_id, rows in records.items()}
    for row in data["problems"]["rows"]:
        assert row["a"] == pytest.approx(rates[runs.feedback][row["id"]])
        assert row["b"] == pytest.approx(rates[runs.other][row["id"]])
    (pair,) = comparison.pairs
    sign = 1 if (pair.a, pair.b) == (runs.other, runs.feedback) else -1
    difference = data["difference"]
    assert difference["mean"] == pytest.approx(sign * pair.difference)
    assert sorted([difference["low"], difference["high"]]) == pytest.approx(
        sorted([sign * pair.low, sign * pair.high])
    )
    entries = {e.run_id: e for e in comparison.leaderboard}
    shared = data["deltas"][0]
    assert shared["a"] == pytest.approx(entries[runs.feedback].pass_at_1)
    assert shared["b"] == pytest.approx(entries[runs.other].pass_at_1)


def test_a_running_run_is_tallied_and_compared_live(
    runs: Runs, tmp_path_factory: pytest.TempPathFactory
) -> None:
    results = tmp_path_factory.mktemp("running")
    with RunStore.at(results) as store:
        running = record_run(store, "replay:live", rounds=1, finish=False)
        done = record_run(store, "reference", rounds=0)
    with ViewServer(RunStore.path_at(results)).start() as server:
        progress = get(server, f"/api/runs/{running}/progress").json()
        assert progress["status"] == "running"
        assert progress["samples"] == progress["expected"] == len(PROBLEMS) * 2 * 2
        data = get(server, f"/api/runs/{running}").json()
        assert data["summary"] is None and data["overall"]["baseline"] is not None
        live = get(server, f"/api/compare/{running}/{done}").json()  # live too, from tallies
        assert live["deltas"][0]["a"] == data["overall"]["baseline"]
        assert next(d for d in live["deltas"] if d["name"] == "pass@1")["a"] is None
        assert get(server, f"/api/runs/{running}/plots/0.svg").body.startswith(b"<svg")
