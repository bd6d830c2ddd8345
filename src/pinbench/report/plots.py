"""Static plots as inline SVG (matplotlib, Agg): a report works offline, with no script to
fail, and stays small because text stays text."""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

plt.rcParams.update(
    {"svg.fonttype": "none", "svg.hashsalt": "pinbench", "font.size": 9, "axes.grid": True}
)
plt.rcParams["axes.spines.top"] = plt.rcParams["axes.spines.right"] = False

Series = tuple[str, Sequence[float | None], Sequence[float | None]]  # label, values, std devs


def grouped_bars(title: str, names: Sequence[str], series: Sequence[Series]) -> str:
    """Horizontal bars, one group per name and one bar per series, with ± std whiskers;
    values are fractions shown as percentages."""
    height = max(2.2, 0.28 * len(names) * max(1, len(series)) + 1.0)
    fig, ax = plt.subplots(figsize=(7.5, height))
    positions = np.arange(len(names))
    width = 0.8 / max(1, len(series))
    for index, (label, values, stds) in enumerate(series):
        means = [100 * (v or 0.0) for v in values]
        errs = [100 * (s or 0.0) for s in stds]
        ax.barh(positions + index * width, means, width, xerr=errs, label=label, capsize=2)
    ax.set_yticks(positions + width * (len(series) - 1) / 2, labels=list(names))
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("pass@1 (%)")
    ax.set_title(title)
    if len(series) > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    return _svg(fig)


def histogram(title: str, series: Sequence[tuple[str, Sequence[float]]]) -> str:
    """Per-problem pass rates in ten bins: how many problems are always, never or sometimes
    solved."""
    fig, ax = plt.subplots(figsize=(7.5, 2.8))
    bins = [10.0 * i for i in range(11)]
    present = [(label, [100 * v for v in values]) for label, values in series if values]
    if present:
        ax.hist([v for _, v in present], bins=bins, label=[lbl for lbl, _ in present])
    ax.set_xlabel("per-problem pass rate (%)")
    ax.set_ylabel("problems")
    ax.set_title(title)
    if len(present) > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    return _svg(fig)


def counts(
    title: str, categories: Sequence[str], series: Sequence[tuple[str, dict[str, int]]]
) -> str:
    """Vertical bars of counts per category, one bar per series."""
    fig, ax = plt.subplots(figsize=(7.5, 2.8))
    positions = np.arange(len(categories))
    width = 0.8 / max(1, len(series))
    for index, (label, values) in enumerate(series):
        ax.bar(
            positions + index * width, [values.get(c, 0) for c in categories], width, label=label
        )
    ax.set_xticks(positions + width * (len(series) - 1) / 2, labels=list(categories))
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylabel("failed samples")
    ax.set_title(title)
    if len(series) > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    return _svg(fig)


def heatmap(
    title: str,
    rows: Sequence[str],
    columns: Sequence[str],
    values: Sequence[Sequence[float | None]],
) -> str:
    """Pass rates (fractions) in a grid, one cell per row × column, each cell labelled; an
    empty cell (nothing ran there) is left blank."""
    width = max(4.0, 0.7 * len(columns) + 2.0)
    fig, ax = plt.subplots(figsize=(min(width, 12.0), max(1.6, 0.4 * len(rows) + 1.2)))
    grid = np.array([[np.nan if v is None else 100 * v for v in row] for row in values])
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(np.arange(len(columns)), labels=list(columns))
    ax.set_yticks(np.arange(len(rows)), labels=list(rows))
    ax.tick_params(axis="x", labelrotation=45)
    ax.grid(False)
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            if value is not None:
                ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center", fontsize=7)
    ax.set_xlabel("version run")
    ax.set_ylabel("pinned version")
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="pass rate (%)")
    return _svg(fig)


def _svg(fig: Figure) -> str:
    buffer = io.StringIO()
    fig.tight_layout()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # drop the XML prolog: the SVG is inlined in HTML
