"""One self-contained HTML file per report: inline CSS, inline SVG plots, the per-problem
details as JSON read by a few lines of script; no CDN, works offline."""

from __future__ import annotations

import json
from typing import Any

import jinja2

from pinbench.core.outcome import FAILURE_TYPES
from pinbench.metrics.intervals import interval_text
from pinbench.report import plots
from pinbench.report.data import Group, Report

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("pinbench.report", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def render(template: str, **context: Any) -> str:
    return _ENV.get_template(template).render(pct=pct, interval=interval_text, **context)


def group_plot(title: str, groups: list[Group], feedback: bool) -> str:
    names = [g.name for g in groups]
    series: list[plots.Series] = [
        ("baseline", [g.baseline for g in groups], [g.baseline_std for g in groups])
    ]
    if feedback:
        series.append(
            ("error feedback", [g.feedback for g in groups], [g.feedback_std for g in groups])
        )
    return plots.grouped_bars(title, names, series)


def report_html(report: Report) -> str:
    feedback = report.has_feedback
    difficulty = [("baseline", report.difficulty["baseline"])]
    errors = [("baseline", report.errors["baseline"])]
    if feedback:
        difficulty.append(("error feedback", report.difficulty["feedback"]))
        errors.append(("error feedback", report.errors["feedback"]))
    figures = [
        group_plot("pass@1 by library", report.by_library, feedback),
        group_plot("pass@1 by release year", report.by_year, feedback),
        group_plot("pass@1 by type of change", report.by_change, feedback),
        *(
            group_plot(f"pass@1 by {name}", groups, feedback)
            for name, groups in report.by_tag.items()
        ),
        plots.histogram("difficulty: per-problem pass rate", difficulty),
        plots.counts("error categories", FAILURE_TYPES, errors),
    ]
    details = {
        p.id: {"prompt": p.prompt, "program": p.program, "test": p.test, "trace": p.trace}
        for p in report.problems
    }
    return render(
        "report.html.j2",
        r=report,
        s=report.summary,
        c=report.summary.config,
        plots=figures,
        heatmaps=compatibility_plots(report),
        details=script_json(details),
    )


def compatibility_plots(report: Report) -> list[str]:
    """One heatmap per library of the compatibility matrix: pinned version × version run."""
    if report.compatibility is None:
        return []
    maps = []
    for lib in report.compatibility.libraries:
        rows = list(lib.cells)
        values = [
            [
                cell[0] / cell[1] if (cell := lib.cells[pinned].get(v)) and cell[1] else None
                for v in lib.versions
            ]
            for pinned in rows
        ]
        maps.append(plots.heatmap(f"{lib.library}: pass rate", rows, lib.versions, values))
    return maps


def script_json(value: object) -> str:
    """JSON safe inside a <script> element: no `</` can close it early."""
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")
