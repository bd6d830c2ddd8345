"""A run's breakdowns from SQL aggregates, for a finished run and for one still going: per
problem and seed, how many samples were scored and passed at round 0 and at the last round,
read from the `samples_browse` index (no program is loaded). The numbers are the report's
(`report.data`): pass@1 per seed averaged over a group's problems, mean ± std over seeds;
tests/view check that they agree."""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pinbench.core.outcome import FAILURE_TYPES, NOT_SCORED, Status, failure_type
from pinbench.core.records import ItemMeta
from pinbench.metrics.passk import mean_pass_at_k, mean_std
from pinbench.report import plots
from pinbench.report.data import Group
from pinbench.report.html import group_plot
from pinbench.store.runs import RunRow, RunStore
from pinbench.view.queries import config_int

MAX_GROUPS = 100  # per breakdown in a run's payload (the plot shows them all)
_SHOWN_WHEN_MIXED = frozenset({"language"})  # as the report: only when a run mixes them

Counts = dict[tuple[str, int], list[int]]  # (problem, seed) -> [scored, passed]


@dataclass
class Tallies:
    """What a run's breakdowns, error categories and difficulty are computed from."""

    seeds: int
    feedback: bool
    metas: dict[str, ItemMeta]
    base: Counts = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    final: Counts = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    errors: dict[str, Counter[str]] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)


def tally(store: RunStore, run: RunRow) -> Tallies:
    last = config_int(run, "feedback_rounds", 0)
    metas = store.problems(run.id)
    db = store.connection
    base = db.execute(
        "SELECT problem_id, seed, status, exc_type, COUNT(*) FROM samples"
        " WHERE run_id = ? AND round = 0 GROUP BY problem_id, seed, status, exc_type",
        (run.id,),
    ).fetchall()
    final = base
    if last > 0:  # a chain's last round stands for the rounds it did not need
        final = db.execute(
            "SELECT problem_id, seed, status, exc_type, COUNT(*) FROM ("
            " SELECT problem_id, seed, sample, MAX(round), status, exc_type FROM samples"
            " WHERE run_id = ? AND round <= ? GROUP BY problem_id, seed, sample)"
            " GROUP BY problem_id, seed, status, exc_type",
            (run.id, last),
        ).fetchall()
    result = Tallies(seeds=config_int(run, "seeds", 1), feedback=last > 0, metas=metas)
    result.errors = {"baseline": _add(result.base, base), "feedback": _add(result.final, final)}
    for _, _, status, _, count in final:
        result.statuses[status] += count
    for pid, _ in (*result.base, *result.final):
        if pid not in metas:
            metas[pid] = ItemMeta(id=pid)  # runs recorded before problems were kept
    return result


def _add(counts: Counts, rows: list[tuple[Any, ...]]) -> Counter[str]:
    """Tally rows into `counts`; the error categories of the failed ones."""
    errors: Counter[str] = Counter()
    for pid, seed, status, exc_type, count in rows:
        if status in NOT_SCORED:
            continue
        tally = counts[(pid, seed)]
        tally[0] += count
        if status == Status.PASSED:
            tally[1] += count
        else:
            errors[failure_type(Status(status), exc_type)] += count
    return errors


def _pass_at_1(
    per_seed: dict[int, list[tuple[int, int]]], seeds: int
) -> tuple[float | None, float | None]:
    values = [mean_pass_at_k(per_seed.get(seed, []), 1) for seed in range(seeds)]
    present = [v for v in values if v is not None]
    return mean_std(present) if present else (None, None)


def _groups(tallies: Tallies, key: Callable[[ItemMeta], str]) -> list[Group]:
    """One pass over the tallies per breakdown: each (problem, seed) into its group."""
    group_of = {pid: key(meta) for pid, meta in tallies.metas.items()}
    members: Counter[str] = Counter(group_of.values())
    seeded: dict[str, dict[str, dict[int, list[tuple[int, int]]]]] = {}
    for kind, counts in (("base", tallies.base), ("final", tallies.final)):
        found: dict[str, dict[int, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
        for (pid, seed), (scored, passed) in counts.items():
            found[group_of[pid]][seed].append((scored, passed))
        seeded[kind] = found
    groups = []
    for name, problems in members.items():
        baseline, baseline_std = _pass_at_1(seeded["base"].get(name, {}), tallies.seeds)
        final, final_std = _pass_at_1(seeded["final"].get(name, {}), tallies.seeds)
        groups.append(
            Group(
                name=name,
                problems=problems,
                baseline=baseline,
                baseline_std=baseline_std,
                feedback=final,
                feedback_std=final_std,
            )
        )
    return sorted(groups, key=lambda g: (g.baseline is None, -(g.baseline or 0.0), g.name))


def _breakdown(meta: ItemMeta, name: str) -> str:
    return meta.breakdowns.get(name, "none")


def breakdowns(tallies: Tallies) -> dict[str, list[Group]]:
    """name -> groups, in the report's order: library, release year, type of change, then the
    task's own breakdowns."""
    found = {
        "library": _groups(tallies, lambda m: m.library or "unknown"),
        "release year": sorted(_groups(tallies, lambda m: m.year), key=lambda g: g.name),
        "type of change": _groups(tallies, lambda m: m.change),
    }
    names = dict.fromkeys(n for m in tallies.metas.values() for n in m.breakdowns)
    for name in names:
        groups = _groups(tallies, functools.partial(_breakdown, name=name))
        if groups and (len(groups) > 1 or name not in _SHOWN_WHEN_MIXED):
            found[name] = groups
    return found


def problem_rates(counts: Counts) -> dict[str, float]:
    """Each problem's pass rate over its scored samples of every seed (`report.data`'s
    per-problem pass rate, `metrics.intervals.problem_rates`)."""
    per_problem: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (pid, _), (scored, passed) in counts.items():
        per_problem[pid][0] += scored
        per_problem[pid][1] += passed
    return {pid: passed / scored for pid, (scored, passed) in per_problem.items() if scored}


def pass_at_1(tallies: Tallies, ids: set[str]) -> tuple[float | None, float | None]:
    """pass@1 at round 0 over these problems, mean ± std over seeds."""
    per_seed: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for (pid, seed), counted in tallies.base.items():
        if pid in ids:
            per_seed[seed].append((counted[0], counted[1]))
    return _pass_at_1(per_seed, tallies.seeds)


def difficulty(tallies: Tallies) -> dict[str, list[float]]:
    """Per-problem pass rates at round 0 and at the last round."""
    return {
        "baseline": list(problem_rates(tallies.base).values()),
        "feedback": list(problem_rates(tallies.final).values()),
    }


def errors(tallies: Tallies) -> dict[str, dict[str, int]]:
    return {
        kind: {name: counts[name] for name in FAILURE_TYPES if counts[name]}
        for kind, counts in tallies.errors.items()
    }


def overview(tallies: Tallies) -> dict[str, Any]:
    """What the run page shows: overall pass@1, statuses, breakdowns (each capped at
    MAX_GROUPS groups), error categories and the titles of the plots."""
    groups = breakdowns(tallies)
    (overall,) = _groups(tallies, lambda _: "all problems")
    return {
        "overall": overall.model_dump(),
        "feedback": tallies.feedback,
        "statuses": dict(tallies.statuses.most_common()),
        "breakdowns": [
            {
                "name": name,
                "groups": [g.model_dump() for g in found[:MAX_GROUPS]],
                "omitted": max(0, len(found) - MAX_GROUPS),
            }
            for name, found in groups.items()
        ],
        "errors": errors(tallies),
        "plots": plot_titles(groups),
    }


def plot_titles(groups: dict[str, list[Group]]) -> list[str]:
    return [
        *(f"pass@1 by {name}" for name in groups),
        "difficulty: per-problem pass rate",
        "error categories",
    ]


def plot(tallies: Tallies, index: int) -> str | None:
    """The index-th plot of `plot_titles` as SVG, drawn by the report's own plotting."""
    groups = breakdowns(tallies)
    names = list(groups)
    if 0 <= index < len(names):
        return group_plot(f"pass@1 by {names[index]}", groups[names[index]], tallies.feedback)
    kinds = ["baseline", "feedback"] if tallies.feedback else ["baseline"]
    labels = {"baseline": "baseline", "feedback": "error feedback"}
    if index == len(names):
        rates = difficulty(tallies)
        series = [(labels[k], rates[k]) for k in kinds]
        return plots.histogram("difficulty: per-problem pass rate", series)
    if index == len(names) + 1:
        counted = errors(tallies)
        return plots.counts(
            "error categories", FAILURE_TYPES, [(labels[k], counted[k]) for k in kinds]
        )
    return None
