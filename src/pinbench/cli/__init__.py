"""The `pinbench` command line: one module per command, each parsing its options, calling one
library entry point and printing; the shared options and printing live in `cli.common`."""

from __future__ import annotations

import typer

from pinbench.cli.common import Group
from pinbench.cli.datasets import datasets_app
from pinbench.cli.drift import drift_cmd
from pinbench.cli.envs import envs_app
from pinbench.cli.ide import ide_app
from pinbench.cli.mine import mine_cmd
from pinbench.cli.report import compare_cmd, report_cmd
from pinbench.cli.run import run_cmd
from pinbench.cli.runs import runs_app
from pinbench.cli.validate import validate_cmd
from pinbench.cli.view import view_cmd

app = typer.Typer(
    cls=Group,  # errors on one line, `--help` as wide as the terminal
    help="pinbench: evaluate code models on pinned library versions by executing their code.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)
app.add_typer(envs_app, name="envs")
app.add_typer(datasets_app, name="datasets")
app.add_typer(runs_app, name="runs")
app.add_typer(ide_app, name="ide")
app.command("run")(run_cmd)
app.command("validate")(validate_cmd)
app.command("report")(report_cmd)
app.command("compare")(compare_cmd)
app.command("drift")(drift_cmd)
app.command("mine")(mine_cmd)
app.command("view")(view_cmd)
