"""`pinbench compare`: runs side by side on the problems they share — a leaderboard, pairwise
differences with bootstrap confidence intervals, and the rank correlation of models across two
datasets or splits."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

from pydantic import BaseModel
from scipy import stats

from pinbench.core.records import SampleRecord
from pinbench.metrics.intervals import mean_interval, problem_rates
from pinbench.metrics.scores import at_round, chains_of, score
from pinbench.report import plots
from pinbench.report.cutoffs import CutoffSplit
from pinbench.report.data import Report
from pinbench.report.html import render


class Entry(BaseModel):
    run_id: str
    model_name: str
    dataset: str
    split: str
    pass_at_1: float | None
    std: float | None
    feedback: float | None
    deprecated: float | None = None  # of its captured passes, the share using deprecated API
    cutoff: CutoffSplit | None = None  # its scores before/after its knowledge cutoff


class Pair(BaseModel):
    a: str
    b: str
    problems: int
    difference: float
    low: float
    high: float


class Correlation(BaseModel):
    datasets: tuple[str, str]
    models: list[str]
    rho: float
    p_value: float


class Comparison(BaseModel):
    runs: list[str]
    shared_problems: int
    has_feedback: bool
    leaderboard: list[Entry]
    pairs: list[Pair]
    correlation: Correlation | None


def compare(reports: list[Report], records: dict[str, list[SampleRecord]]) -> Comparison:
    """`records`: each run's samples. Scores are computed on the problems every run has when
    they share any (one dataset), else on each run's own problems."""
    problem_sets = [{p.id for p in r.problems} for r in reports]
    shared = set.intersection(*problem_sets) if problem_sets else set()
    leaderboard = sorted(
        (_entry(r, records[r.run_id], shared or None) for r in reports),
        key=lambda e: -(e.pass_at_1 or 0.0),
    )
    rates = {r.run_id: problem_rates(records[r.run_id]) for r in reports}
    pairs = []
    for a, b in itertools.combinations([e.run_id for e in leaderboard], 2):
        common = sorted(set(rates[a]) & set(rates[b]))
        if common:
            pairs.append(_pair(a, b, [rates[a][p] - rates[b][p] for p in common]))
    return Comparison(
        runs=[r.run_id for r in reports],
        shared_problems=len(shared),
        has_feedback=any(r.has_feedback for r in reports),
        leaderboard=leaderboard,
        pairs=pairs,
        correlation=_correlation(reports, records),
    )


def _entry(report: Report, records: list[SampleRecord], only: set[str] | None) -> Entry:
    config = report.summary.config
    chosen = [r for r in records if only is None or r.problem_id in only]
    rounds = score(chosen, (1,), config.feedback_rounds, config.seeds).rounds
    return Entry(
        run_id=report.run_id,
        model_name=report.model_name,
        dataset=report.summary.dataset,
        split=report.summary.split,
        pass_at_1=rounds[0].pass_at[0].mean,
        std=rounds[0].pass_at[0].std,
        feedback=rounds[-1].pass_at[0].mean if config.feedback_rounds else None,
        deprecated=_deprecated_share(chosen, config.feedback_rounds),
        cutoff=report.cutoff.model_copy(update={"breakdowns": {}}) if report.cutoff else None,
    )


def _deprecated_share(records: list[SampleRecord], last: int) -> float | None:
    finals = (at_round(chain, last) for chain in chains_of(records).values())
    captured = [
        r.deprecations for r in finals if r is not None and r.passed and r.deprecations is not None
    ]
    return sum(not d.clean for d in captured) / len(captured) if captured else None


def _pair(a: str, b: str, differences: list[float]) -> Pair:
    interval = mean_interval(differences)
    assert interval is not None  # called with the problems two runs share, never none
    return Pair(
        a=a, b=b, problems=interval.problems, difference=interval.mean,
        low=interval.low, high=interval.high,
    )  # fmt: skip


def _correlation(
    reports: list[Report], records: dict[str, list[SampleRecord]]
) -> Correlation | None:
    """Spearman's ρ of models' pass@1 between the first two datasets (or splits) that at
    least three models were run on."""
    by_dataset: dict[str, dict[str, float]] = defaultdict(dict)
    for report in reports:
        entry = _entry(report, records[report.run_id], None)
        if entry.pass_at_1 is not None:
            key = f"{entry.dataset} ({entry.split})"
            by_dataset[key].setdefault(report.model_name, entry.pass_at_1)
    for first, second in itertools.combinations(sorted(by_dataset), 2):
        models = sorted(set(by_dataset[first]) & set(by_dataset[second]))
        if len(models) >= 3:
            x = [by_dataset[first][m] for m in models]
            y = [by_dataset[second][m] for m in models]
            rho, p_value = stats.spearmanr(x, y)
            if not math.isnan(rho):
                return Correlation(
                    datasets=(first, second), models=models, rho=float(rho), p_value=float(p_value)
                )
    return None


def compare_html(comparison: Comparison, reports: list[Report]) -> str:
    figures = []
    for title, attr in (
        ("pass@1 by library", "by_library"),
        ("pass@1 by release year", "by_year"),
        ("pass@1 by type of change", "by_change"),
    ):
        names = sorted({g.name for r in reports for g in getattr(r, attr)})
        series: list[plots.Series] = []
        for report in reports:
            groups = {g.name: g for g in getattr(report, attr)}
            series.append(
                (
                    f"{report.run_id} {report.model_name}"[:40],
                    [groups[n].baseline if n in groups else None for n in names],
                    [groups[n].baseline_std if n in groups else None for n in names],
                )
            )
        figures.append(plots.grouped_bars(title, names, series))
    figures.append(
        plots.histogram(
            "difficulty: per-problem pass rate",
            [(r.run_id, r.difficulty["baseline"]) for r in reports],
        )
    )
    return render("compare.html.j2", cmp=comparison, plots=figures)
