"""Two runs side by side: the stored summaries' headline figures with B − A, pass@1 on the
problems both have, the paired difference of per-problem pass rates with its 95 % bootstrap
interval (`metrics.intervals.mean_interval`, as `report.compare` computes it), and a page of
per-problem rates at a time.

Per-problem rates come from each run's SQL tallies (`view.tallies`, cached per run), not from
`report.compare`, which loads every sample record of both runs: about a minute for two runs
of 100 000 samples here, against well under a second. tests/view check that the figures
agree with `report.compare`'s."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pinbench.metrics.intervals import mean_interval
from pinbench.store.runs import RunRow
from pinbench.view.queries import Page, run_headline
from pinbench.view.tallies import Tallies, pass_at_1, problem_rates

SORTS = ("id", "delta", "-delta")


@dataclass(frozen=True)
class Compared:
    head: dict[str, Any]  # runs, summary deltas, the paired difference
    problems: list[dict[str, Any]]  # per problem: library, pass rates of A and B, B − A


def comparison(a: RunRow, b: RunRow, ta: Tallies, tb: Tallies) -> Compared:
    base_a, final_a = problem_rates(ta.base), problem_rates(ta.final)
    base_b, final_b = problem_rates(tb.base), problem_rates(tb.final)
    shared = sorted(set(base_a) & set(base_b))
    rows = []
    for pid in sorted(set(ta.metas) | set(tb.metas)):
        meta = ta.metas.get(pid) or tb.metas[pid]
        rate_a, rate_b = base_a.get(pid), base_b.get(pid)
        rows.append(
            {
                "id": pid,
                "library": meta.library,
                "a": rate_a,
                "b": rate_b,
                "a_feedback": final_a.get(pid) if ta.feedback else None,
                "b_feedback": final_b.get(pid) if tb.feedback else None,
                "delta": None if rate_a is None or rate_b is None else rate_b - rate_a,
            }
        )
    interval = mean_interval([base_b[p] - base_a[p] for p in shared])
    both = set(ta.metas) & set(tb.metas)
    on_shared = [pass_at_1(t, both) for t in (ta, tb)]
    head = {
        "runs": [run_headline(a), run_headline(b)],
        "shared_problems": len(both),
        "difference": None if interval is None else interval.model_dump(),
        "deltas": [
            _delta("pass@1 on shared problems", on_shared[0][0], on_shared[1][0]),
            *_summary_deltas(a, b),
        ],
    }
    return Compared(head, rows)


def _delta(name: str, a: float | None, b: float | None) -> dict[str, Any]:
    return {"name": name, "a": a, "b": b, "delta": None if a is None or b is None else b - a}


def _summary_deltas(a: RunRow, b: RunRow) -> list[dict[str, Any]]:
    """pass@k at round 0 and after the last feedback round, compile rates, problems and
    samples, from the stored summaries (a run with none yet has none of them)."""
    rounds_a, rounds_b = (_rounds(run) for run in (a, b))
    found = []
    picks = [("", 0)]
    if len(rounds_a) > 1 or len(rounds_b) > 1:
        picks.append((" after feedback", -1))
    for label, index in picks:
        ra = rounds_a[index] if rounds_a else {}
        rb = rounds_b[index] if rounds_b else {}
        ks_a = {k["k"]: k["mean"] for k in ra.get("pass_at", [])}
        ks_b = {k["k"]: k["mean"] for k in rb.get("pass_at", [])}
        for k in sorted(ks_a.keys() | ks_b.keys()):
            found.append(_delta(f"pass@{k}{label}", ks_a.get(k), ks_b.get(k)))
        found.append(_delta(f"compile rate{label}", ra.get("compile_rate"), rb.get("compile_rate")))
    for name in ("problems", "samples"):
        found.append(_delta(name, _scores(a).get(name), _scores(b).get(name)))
    return found


def _scores(run: RunRow) -> dict[str, Any]:
    scores = (run.summary or {}).get("scores")
    return scores if isinstance(scores, dict) else {}


def _rounds(run: RunRow) -> list[dict[str, Any]]:
    rounds = _scores(run).get("rounds")
    return rounds if isinstance(rounds, list) else []


def compare_page(compared: Compared, q: str, sort: str, page: Page) -> dict[str, Any]:
    rows = [r for r in compared.problems if q in r["id"]] if q else compared.problems
    if sort != "id":
        sign = -1.0 if sort == "-delta" else 1.0
        with_delta = [r for r in rows if r["delta"] is not None]
        rows = sorted(with_delta, key=lambda r: (sign * r["delta"], r["id"])) + [
            r for r in rows if r["delta"] is None
        ]
    window = rows[page.offset : page.offset + page.limit]
    return {**compared.head, "problems": page.of(len(rows), window)}
