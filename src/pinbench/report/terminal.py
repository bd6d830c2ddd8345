"""The terminal summary printed at the end of every run and by `pinbench report`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from pinbench.evaluation.config import RunSummary
from pinbench.metrics.intervals import interval_text
from pinbench.report.data import Group, Report


def _score(mean: float | None, std: float | None, seeds: int) -> str:
    if mean is None:
        return "n/a"
    return f"{100 * mean:.1f}" + (f" ± {100 * (std or 0):.1f}" if seeds > 1 else "")


def print_summary(console: Console, summary: RunSummary, report: Report | None = None) -> None:
    config, scores = summary.config, summary.scores
    table = Table(title=f"run {summary.run_id}", caption=summary.model_name)
    table.add_column("round")
    for kscore in scores.rounds[0].pass_at:
        table.add_column(f"pass@{kscore.k} %", justify="right")
    table.add_column("compiles %", justify="right")
    table.add_column("scored", justify="right")
    for rnd in scores.rounds:
        cells = [_score(s.mean, s.std, config.seeds) for s in rnd.pass_at]
        rate = "n/a" if rnd.compile_rate is None else f"{100 * rnd.compile_rate:.1f}"
        table.add_row(str(rnd.round), *cells, rate, str(rnd.scored))
    console.print(table)
    statuses = ", ".join(f"{name} {count}" for name, count in scores.statuses.items())
    requests = summary.requests
    console.print(
        f"{scores.problems} problems · {scores.samples} samples · {statuses} · "
        f"{requests['asked']} model requests ({requests['cached']} answered from cache, "
        f"{requests['errors']} failed) · {summary.wall_seconds:.1f} s"
        + (" · resumed" if summary.resumed else "")
    )
    console.print(summary.grading.describe())
    if scores.strings:
        variant = config.metric_variant
        cells = [
            f"{name}@{k.k} {_score(k.mean, k.std, config.seeds)}%"
            for name, ks in scores.strings.items()
            for k in ks
        ]
        label = (
            "scenario metrics"
            if config.task == "ide"
            else f"string metrics ({variant} definitions)"
        )
        console.print(f"{label}: " + ", ".join(cells))
    agreement = scores.agreement
    disagreement = agreement.rate if agreement is not None else None
    if agreement is not None and disagreement is not None:
        a = agreement
        console.print(
            f"exact match and execution disagree on {100 * disagreement:.1f}% of {a.samples} "
            f"samples "
            f"({a.string_only} match but fail, {a.execution_only} pass without matching)"
        )
    if scores.exceptions:
        top = ", ".join(f"{name} {count}" for name, count in list(scores.exceptions.items())[:6])
        console.print(f"failures: {top}")
    if (flakes := scores.flakes) is not None:
        console.print(
            f"known-flaky problems: {flakes.reexecuted} samples executed "
            f"{config.flaky_runs} times each, {flakes.flaky} disagreed "
            f"({100 * (flakes.rate or 0):.1f}% flake rate; flaky samples are not scored)"
        )
    if report is not None and (cut := report.cutoff) is not None:
        console.print(
            f"knowledge cutoff {cut.cutoff.month} ({cut.cutoff.source}): pass@1 before "
            f"{interval_text(cut.before)}, after {interval_text(cut.after)}, gap "
            f"{interval_text(cut.gap, signed=True)} points"
            + (f"; {cut.undated} problems undated" if cut.undated else "")
        )
    if report is not None and (dep := report.deprecations) is not None and dep.captured:
        share = 100 * dep.deprecated / dep.captured
        console.print(
            f"passes using a deprecated API: {dep.deprecated} of {dep.captured} ({share:.1f}%)"
            + (f", {dep.tampered} hid the capture" if dep.tampered else "")
        )
    if report is not None:
        tagged = [(f"{name} groups", groups) for name, groups in report.by_tag.items()]
        for label, groups in (
            ("libraries", report.by_library),
            ("changes", report.by_change),
            *tagged,
        ):
            weakest = _weakest(groups, config.seeds)
            if weakest:
                console.print(f"weakest {label}: {weakest}")
    for note in summary.notes:
        console.print(Text.assemble(("note:", "yellow"), " ", note))


def _weakest(groups: list[Group], seeds: int) -> str:
    scored = sorted((g for g in groups if g.baseline is not None), key=lambda g: g.baseline or 0)
    return ", ".join(f"{g.name} {_score(g.baseline, g.baseline_std, seeds)}%" for g in scored[:3])
