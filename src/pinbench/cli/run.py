"""`pinbench run` and `pinbench runs list|show|export`."""

from __future__ import annotations

import asyncio
import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.table import Table

from pinbench.cli.common import (
    FormatOpt,
    ResultsOpt,
    SplitOpt,
    console,
    detect_or_exit,
    err,
    error,
    fail,
    find_run_or_exit,
    load_or_exit,
    open_store,
    progress_bar,
    split_or_exit,
    warn,
)
from pinbench.cli.ide import builtin_cases
from pinbench.cli.report import load_report
from pinbench.core.datasets import DatasetError
from pinbench.core.outcome import Status
from pinbench.core.records import SampleRecord
from pinbench.execution.base import Executor
from pinbench.execution.local import LocalExecutor, default_jobs
from pinbench.models.base import Model, ModelError
from pinbench.models.registry import ModelOptions, open_model
from pinbench.report.terminal import print_summary
from pinbench.run.presets import DESCRIPTIONS, PRESETS
from pinbench.run.runner import RunConfig, Runner, RunSummary, problems_digest
from pinbench.tasks.base import Scenario
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.generation.task import GenerationScenario
from pinbench.tasks.generation.templates import Style
from pinbench.tasks.ide import dataset as ide_dataset
from pinbench.tasks.ide.cases import Kind
from pinbench.tasks.ide.task import IdeScenario
from pinbench.tasks.versicode.builtin import derive
from pinbench.tasks.versicode.loaders import load as load_versicode
from pinbench.tasks.versicode.metrics import Variant
from pinbench.tasks.versicode.model import CompletionTask, EditTask, Granularity
from pinbench.tasks.versicode.task import VersiCodeScenario

runs_app = typer.Typer(help="List, show and export recorded runs.")

_PRESET_HELP = "; ".join(f"`{name}`: {text}" for name, text in DESCRIPTIONS.items())


def run_cmd(
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            help="`embedded[:NAME]` (offline; qwen2.5-coder-0.5b-instruct by default, "
            "smollm2-135m-instruct, qwen2.5-coder-1.5b-instruct), `openai:NAME` (with "
            "--base-url), `replay:PATH`, `reference`, `hf:PATH`, `vllm:PATH`.",
        ),
    ] = "embedded",
    dataset: Annotated[
        str, typer.Option("--dataset", "-d", help="Dataset file or directory, or `builtin`.")
    ] = "builtin",
    fmt: FormatOpt = None,
    split: SplitOpt = "default",
    only: Annotated[list[str] | None, typer.Option("--only", help="Only these problems.")] = None,
    preset: Annotated[str | None, typer.Option("--preset", help=_PRESET_HELP)] = None,
    n: Annotated[int | None, typer.Option("-n", help="Samples per problem and seed.")] = None,
    k: Annotated[str | None, typer.Option("-k", help="pass@k to report, e.g. 1,10.")] = None,
    temperature: Annotated[float | None, typer.Option("--temperature", "-t")] = None,
    top_p: Annotated[float | None, typer.Option("--top-p")] = None,
    top_k: Annotated[int | None, typer.Option("--top-k")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens")] = None,
    seeds: Annotated[int | None, typer.Option("--seeds", help="Repeat with N seeds.")] = None,
    feedback_rounds: Annotated[
        int | None,
        typer.Option("--feedback-rounds", help="Re-prompt with the visible test's error."),
    ] = None,
    doc_prompting: Annotated[
        bool | None, typer.Option("--doc-prompting/--no-doc-prompting", help="Add API docs.")
    ] = None,
    cot: Annotated[bool | None, typer.Option("--cot/--no-cot", help="Zero-shot CoT.")] = None,
    style: Annotated[
        Style | None, typer.Option("--style", help="instruct (chat) or completion (base models).")
    ] = None,
    task: Annotated[
        str,
        typer.Option(
            "--task",
            help="generation (GitChameleon: complete starter code), or the VersiCode tasks "
            "completion (fill a masked token/line/block) and editing (rewrite for another "
            "version), from a VersiCode JSON file/directory or derived from any pinbench dataset, "
            "or ide (doc, fix, generate, test, workspace on repositories: cases from `pinbench "
            "ide collect`, or `builtin`; --split picks one scenario).",
        ),
    ] = "generation",
    granularity: Annotated[
        list[str] | None, typer.Option("--granularity", help="completion: token, line, block.")
    ] = None,
    metric_variant: Annotated[
        str,
        typer.Option(
            "--metric-variant",
            help="versicode (the published scripts' definitions) or corrected "
            "(docs/versicode-metrics.md).",
        ),
    ] = "versicode",
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible API.")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option("--api-key-env", help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    concurrency: Annotated[int, typer.Option("--concurrency", help="Requests in flight.")] = 64,
    rps: Annotated[float | None, typer.Option("--rps", help="Client-side rate limit.")] = None,
    retries: Annotated[
        int, typer.Option("--retries", help="Retries of a failed request (429, 5xx, timeouts).")
    ] = 6,
    parallel: Annotated[int, typer.Option("--parallel", help="Embedded model slots.")] = 4,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Concurrent executions (default: cores + 1).")
    ] = default_jobs(),
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            help="Where environments build and programs run: local (this machine) or ray (the "
            "nodes of a Ray cluster, each as many at once as it has CPUs; docs/ray.md). "
            "Results, run id and resume are the same.",
        ),
    ] = "local",
    ray_address: Annotated[
        str,
        typer.Option(
            "--ray-address",
            help="With --executor ray: `auto` (the cluster this machine joined with `ray "
            "start`) or the head's HOST:PORT.",
        ),
    ] = "auto",
    generate_on_cluster: Annotated[
        bool,
        typer.Option(
            "--generate-on-cluster",
            help="With --executor ray: serve a local model (embedded, hf, vllm) from Ray "
            "actors instead of this machine.",
        ),
    ] = False,
    model_replicas: Annotated[
        int, typer.Option("--model-replicas", help="With --generate-on-cluster: model servers.")
    ] = 1,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Cap on one execution's deadline (seconds).")
    ] = 60.0,
    execute: Annotated[
        bool, typer.Option("--execute/--no-execute", help="--no-execute: only generate.")
    ] = True,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the summary and every sample here.")
    ] = None,
    results: ResultsOpt = None,
) -> None:
    """Generate with a model, execute in the pinned environments, score, and store.

    With no arguments: the embedded offline model on the builtin benchmark's default split.
    Re-running the same command resumes the run: nothing recorded is asked or executed again.

    Examples: `pinbench run` · `pinbench run -m embedded:smollm2 --split quick` ·
    `pinbench run -m openai:gpt-4o-mini --base-url https://api.example/v1 --preset pass@10` ·
    `pinbench run -m replay:answers.jsonl -d gitchameleon2/`
    """
    explicit = {
        "n": n,
        "k": _ks(k) if k else None,
        "temperature": temperature,
        "top_p": top_p,
        "top_k": top_k,
        "max_tokens": max_tokens,
        "seeds": seeds,
        "feedback_rounds": feedback_rounds,
        "doc_prompting": doc_prompting,
        "cot": cot,
        "style": style,
    }
    if preset is not None and preset not in PRESETS:
        fail(f"unknown preset {preset!r} (presets: {', '.join(PRESETS)})")
    placement = _placement(executor, ray_address, generate_on_cluster, model_replicas)
    path = Path(dataset)
    scenario: Scenario | None = None
    if task == "generation":
        if ide_dataset.looks_like(path):
            fail(f"{path} holds IDE cases: run it with --task ide")
        fmt = fmt or detect_or_exit(path)
        problems = split_or_exit(load_or_exit(path, fmt, False).problems, split)
    elif task == "ide":
        scenario, fmt = _ide(path, split, jobs)
        problems = scenario.problems()
    else:
        scenario, fmt = _versicode(path, fmt, split, task, granularity or [], metric_variant)
        problems = scenario.problems()
    if only:
        problems = [p for p in problems if p.id in set(only)]
    if not problems:
        fail("no problem to run")
    try:
        config = RunConfig(
            **{
                "model": model,
                "base_url": base_url,
                "dataset": dataset,
                "dataset_format": fmt,
                "split": split,
                "only": tuple(sorted(set(only or ()))),
                "timeout_cap": timeout,
                "execute": execute,
                "task": task,
                "granularity": tuple(sorted(granularity or ())),
                "metric_variant": metric_variant,
                "problems_digest": problems_digest(problems),
                **PRESETS.get(preset or "greedy", {}),
                **{key: value for key, value in explicit.items() if value is not None},
            }
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        fail(f"{'.'.join(map(str, first['loc']))}: {first['msg']}")
    if any(kk > config.n for kk in config.k):
        fail(f"pass@k needs k <= n (k={config.k}, n={config.n})")
    options = ModelOptions(
        base_url=base_url,
        api_key_env=api_key_env,
        concurrency=concurrency,
        requests_per_second=rps,
        max_retries=retries,
        timeout=600.0 if model.startswith("embedded") else 120.0,
        parallel=parallel,
    )
    summary = _run(config, problems, options, jobs, results, scenario, placement)
    store = open_store(results)
    try:
        report = load_report(store, summary.run_id, details=False)
    finally:
        store.close()
    print_summary(console, summary, report)
    if json_path is not None:
        store = open_store(results)
        try:
            _write_json(json_path, summary, store.iter_samples(summary.run_id))
        finally:
            store.close()
        err.print(f"wrote {json_path}", soft_wrap=True)
    _model_errors(summary)


_MODEL_ERROR_KINDS = 5  # most kinds of model error spelled out; the rest are counted


def _model_errors(summary: RunSummary) -> None:
    """Why the model gave no answer, once per kind of failure, with the first such error; exit
    1 when no sample got an answer at all (nothing could be scored: the run did not work)."""
    shown = summary.model_errors[:_MODEL_ERROR_KINDS]
    for kind in shown:
        plural = "s" * (kind.samples != 1)
        error(kind.first, label=f"model error ({kind.samples} sample{plural}):")
    rest = summary.model_errors[_MODEL_ERROR_KINDS:]
    if rest:
        samples = sum(k.samples for k in rest)
        error(
            f"{len(rest)} more kinds of model error ({samples} samples): see `pinbench runs "
            f"export {summary.run_id} -o FILE`",
            label="model error:",
        )
    statuses = summary.scores.statuses
    if statuses and set(statuses) == {Status.MODEL_ERROR}:
        fail(f"no sample got an answer from {summary.model}: nothing was scored", code=1)


def _ide(path: Path, split: str, jobs: int) -> tuple[IdeScenario, str]:
    """IDE cases from a file `pinbench ide collect` wrote, or the builtin repositories' cases;
    `--split` picks one scenario (doc, fix, generate, test, workspace)."""
    if str(path) == "builtin":
        path = builtin_cases(jobs)
    try:
        cases, issues = ide_dataset.read(path)
    except DatasetError as exc:
        fail(str(exc))
    for issue in issues:
        warn(str(issue), "skipped:")
    kinds = {k.value for k in Kind}
    if split not in ("default", "all") and split not in kinds:
        fail(f"--split for IDE cases: all or one of {', '.join(sorted(kinds))}")
    chosen = [c for c in cases if split in ("default", "all") or c.scenario.value == split]
    return IdeScenario(chosen), "ide"


def _versicode(
    path: Path, fmt: str | None, split: str, task: str, granularity: list[str], variant: str
) -> tuple[VersiCodeScenario, str]:
    """VersiCode tasks from VersiCode's own files, or derived from a pinbench dataset (its
    reference and contrasting-version solutions are exactly such pairs)."""
    if task not in ("completion", "editing"):
        fail(f"unknown task {task!r} (generation, completion, editing, ide)")
    try:
        chosen_variant = Variant(variant)
        levels = {Granularity(g) for g in granularity} or set(Granularity)
    except ValueError as exc:
        fail(str(exc))
    if fmt == "versicode" or (fmt is None and _looks_like_versicode(path)):
        try:
            loaded = load_versicode(path)
        except DatasetError as exc:
            fail(str(exc))
        for issue in loaded.issues:
            warn(str(issue), "skipped:")
        completion, editing, fmt = loaded.completion, loaded.editing, "versicode"
    else:
        fmt = fmt or detect_or_exit(path)
        derived = derive(split_or_exit(load_or_exit(path, fmt, False).problems, split))
        completion, editing = derived.completion, derived.editing
    tasks: list[CompletionTask | EditTask] = (
        [t for t in completion if t.granularity in levels] if task == "completion" else [*editing]
    )
    return VersiCodeScenario(tasks, variant=chosen_variant), fmt


def _looks_like_versicode(path: Path) -> bool:
    if path.is_dir():
        return any(path.rglob("*.json")) and not (path / "dataset.jsonl").exists()
    return path.suffix == ".json"


def _ks(text: str) -> tuple[int, ...]:
    try:
        return tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        fail(f"-k takes integers separated by commas, got {text!r}")


@dataclass(frozen=True)
class Placement:
    """Where a run's work happens; never part of the run's identity (same results anywhere)."""

    executor: str = "local"
    address: str = "auto"
    generate_on_cluster: bool = False
    replicas: int = 1


def _placement(executor: str, address: str, generate: bool, replicas: int) -> Placement:
    if executor not in ("local", "ray"):
        fail(f"unknown executor {executor!r} (local, ray)")
    if generate and executor != "ray":
        fail("--generate-on-cluster needs --executor ray")
    return Placement(executor, address, generate, max(1, replicas))


def _open_executor(placement: Placement, jobs: int) -> Executor:
    """The executor, or one clear error (an unreachable cluster is not a traceback)."""
    if placement.executor == "local":
        return LocalExecutor(jobs)
    from pinbench.execution.ray.cluster import ClusterError
    from pinbench.execution.ray.executor import RayExecutor

    try:
        ray_executor = RayExecutor(placement.address)
    except ClusterError as exc:
        fail(str(exc))
    hosts = ray_executor.nodes
    err.print(f"ray: {len(hosts)} node{'s' * (len(hosts) != 1)} ({', '.join(hosts)})")
    return ray_executor


def _open_model(
    config: RunConfig,
    problems: list[Problem],
    options: ModelOptions,
    answers: dict[str, str],
    placement: Placement,
) -> Model:
    if not placement.generate_on_cluster:
        return open_model(config.model, problems, options, answers)
    from pinbench.execution.ray.cluster import ClusterError
    from pinbench.models.cluster import ClusterModel

    try:
        return ClusterModel(
            config.model, options, address=placement.address, replicas=placement.replicas
        )
    except ClusterError as exc:
        raise ModelError(str(exc)) from None


def _run(
    config: RunConfig,
    problems: list[Problem],
    options: ModelOptions,
    jobs: int,
    results: Path | None,
    scenario: Scenario | None = None,
    placement: Placement = Placement(),
) -> RunSummary:
    store = open_store(results)
    err.print(f"run [bold]{config.run_id}[/] · {len(problems)} problems · model {config.model}")
    try:
        executor = _open_executor(placement, jobs) if config.execute else None
    except typer.Exit:
        store.close()
        raise
    try:
        chosen = scenario or GenerationScenario()
        answers = {p.id: chosen.reference_answer(p) for p in problems}
        backend = _open_model(config, problems, options, answers, placement)
    except ModelError as exc:
        if executor is not None:
            executor.close()
        store.close()
        fail(str(exc))
    chains = len(problems) * config.n * config.seeds
    try:
        with progress_bar() as progress:
            task = progress.add_task("samples", total=chains)

            def on_event(_kind: str, record: SampleRecord | None) -> None:
                if record is not None and (record.round == 0):
                    progress.advance(task)

            runner = Runner(
                config, problems, backend, store, executor, jobs=jobs, on_event=on_event,
                scenario=scenario,
            )  # fmt: skip
            return asyncio.run(_run_and_close(runner, backend))
    finally:
        if executor is not None:
            executor.close()
        store.close()


async def _run_and_close(runner: Runner, backend: Model) -> RunSummary:
    try:
        return await runner.run()
    finally:
        await backend.aclose()


def _write_json(path: Path, summary: RunSummary, samples: Any) -> None:
    """The `--json` document; schema in docs/run-json.md."""
    rows = [
        {
            "problem_id": s.problem_id,
            "seed": s.seed,
            "sample": s.sample,
            "round": s.round,
            "passed": s.passed,
            "outcome": s.status,
            "compiles": s.compiles,
            "exc_type": s.exc_type,
            "metrics": s.metrics,
        }
        for s in samples
    ]
    document = {"schema_version": 1, "summary": summary.model_dump(mode="json"), "samples": rows}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1))


@runs_app.command("list")
def runs_list(results: ResultsOpt = None) -> None:
    """Every recorded run, oldest first."""
    store = open_store(results)
    try:
        rows = store.runs()
    finally:
        store.close()
    table = Table(title="runs")
    for column in ("id", "model", "dataset", "split", "status", "pass@1 %", "samples"):
        table.add_column(column)
    for row in rows:
        scores = (row.summary or {}).get("scores") or {}
        rounds = scores.get("rounds") or [{}]
        first = next((s for s in rounds[-1].get("pass_at", []) if s["k"] == 1), None)
        value = "n/a" if not first or first["mean"] is None else f"{100 * first['mean']:.1f}"
        table.add_row(
            row.id,
            row.model_name or row.config.get("model", ""),
            str(row.config.get("dataset", "")),
            str(row.config.get("split", "")),
            row.status,
            value,
            str(scores.get("samples", "")),
        )
    console.print(table)


@runs_app.command("show")
def runs_show(
    run: Annotated[str, typer.Argument(help="Run id (or a unique prefix), or `latest`.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    results: ResultsOpt = None,
) -> None:
    """A run's summary."""
    store = open_store(results)
    try:
        row = find_run_or_exit(store, run)
    finally:
        store.close()
    if row.summary is None:
        fail(f"run {row.id} has no summary yet ({row.status})", code=1)
    summary = RunSummary.model_validate(row.summary)
    if as_json:
        console.print_json(summary.model_dump_json())
    else:
        print_summary(console, summary)
        console.print(f"status: {row.status}")


@runs_app.command("export")
def runs_export(
    run: Annotated[str, typer.Argument(help="Run id (or a unique prefix), or `latest`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output file.")],
    fmt: Annotated[str, typer.Option("--format", help="jsonl or csv.")] = "jsonl",
    results: ResultsOpt = None,
) -> None:
    """Every sample with its prompt, raw response, program and outcome. The JSONL export is
    readable by `--model replay:PATH`."""
    if fmt not in ("jsonl", "csv"):
        fail(f"--format is jsonl or csv, not {fmt!r}")
    store = open_store(results)
    count = 0
    try:
        row = find_run_or_exit(store, run)
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", newline="") as handle:
            writer: csv.DictWriter[str] | None = None
            for record in store.export_rows(row.id):
                record = {"run_id": row.id, "model": row.model_name, **record}
                count += 1
                if fmt == "jsonl":
                    handle.write(json.dumps(record) + "\n")
                    continue
                record["request"] = json.dumps(record["request"])
                if writer is None:
                    writer = csv.DictWriter(handle, fieldnames=list(record))
                    writer.writeheader()
                writer.writerow(record)
    finally:
        store.close()
    err.print(f"wrote {count} samples to {out}")
