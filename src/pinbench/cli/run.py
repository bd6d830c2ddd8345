"""`pinbench run`: parses the options, calls `pinbench.evaluation.api`, prints."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from pinbench.cli.common import (
    DirectOpt,
    FormatOpt,
    LanguageOpt,
    ResultsOpt,
    SplitOpt,
    console,
    err,
    error,
    fail,
    load_report,
    progress_bar,
    warn,
)
from pinbench.cli.view import serving_run
from pinbench.core.outcome import Status
from pinbench.core.records import SampleRecord
from pinbench.evaluation import api
from pinbench.evaluation.config import RunSummary
from pinbench.evaluation.presets import DESCRIPTIONS
from pinbench.execution.local import default_jobs
from pinbench.models.registry import ModelOptions
from pinbench.report.terminal import print_summary
from pinbench.store.runs import RunStore
from pinbench.tasks.generation.templates import Style

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
    language: LanguageOpt = None,
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
    flaky_runs: Annotated[
        int | None,
        typer.Option(
            "--flaky-runs",
            min=2,
            help="Executions of each sample of a problem `validate --repeat` found flaky "
            "(default 3); one whose outcomes disagree is reported flaky, never scored.",
        ),
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
        int | None,
        typer.Option(
            "--model-replicas",
            help="Model servers: with --generate-on-cluster, Ray actors (default 1); for the "
            "embedded model on this machine, llama.cpp processes at one thread each (default: "
            "one per core).",
        ),
    ] = None,
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
    allow_direct_references: DirectOpt = False,
    view: Annotated[
        bool,
        typer.Option(
            "--view", help="Serve `pinbench view` on a free local port while the run goes."
        ),
    ] = False,
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
        "flaky_runs": flaky_runs,
        "doc_prompting": doc_prompting,
        "cot": cot,
        "style": style,
    }
    try:
        placement = api.Placement(
            executor, ray_address, generate_on_cluster, max(1, model_replicas or 1)
        )
        planned = api.plan(
            model=model,
            dataset=dataset,
            task=task,
            fmt=fmt,
            split=split,
            language=language,
            only=tuple(only or ()),
            preset=preset,
            jobs=jobs,
            base_url=base_url,
            timeout_cap=timeout,
            execute=execute,
            granularity=tuple(granularity or ()),
            metric_variant=metric_variant,
            allow_direct_references=allow_direct_references,
            **{key: value for key, value in explicit.items() if value is not None},
        )
    except api.RunError as exc:
        for line in exc.skipped:
            warn(line, "skipped:")
        fail(str(exc))
    for line in planned.skipped:
        warn(line, "skipped:")
    config, items = planned.config, planned.loaded.items
    options = ModelOptions(
        base_url=base_url,
        api_key_env=api_key_env,
        concurrency=concurrency,
        requests_per_second=rps,
        max_retries=retries,
        timeout=600.0 if model.startswith("embedded") else 120.0,
        parallel=parallel,
        replicas=max(0, model_replicas or 0),
    )
    err.print(
        Text.assemble("run ", (config.run_id, "bold"), f" · {len(items)} problems · model "),
        config.model,
        sep="",
    )
    with serving_run(results, config.run_id, view), progress_bar() as progress:
        bar = progress.add_task("samples", total=len(items) * config.n * config.seeds)

        def on_sample(record: SampleRecord) -> None:
            if record.round == 0:
                progress.advance(bar)

        try:
            summary = api.run(
                planned,
                options=options,
                jobs=jobs,
                results=results,
                placement=placement,
                on_sample=on_sample,
                on_status=err.print,
            )
        except api.RunError as exc:
            fail(str(exc))
    with RunStore.at(results) as store:  # the results are written before anything is printed
        if json_path is not None:
            api.write_json(json_path, summary, store.iter_samples(summary.run_id))
        report = load_report(store, summary.run_id, details=False)
        environments = _environment_errors(store.iter_samples(summary.run_id))
    print_summary(console, summary, report)
    if json_path is not None:
        err.print(f"wrote {json_path}", soft_wrap=True)
    for message, count in environments[:_MODEL_ERROR_KINDS]:
        error(message, label=f"environment error ({count} sample{'s' * (count != 1)}):")
    _model_errors(summary)


def _environment_errors(samples: Iterable[SampleRecord]) -> list[tuple[str, int]]:
    """Why environments failed, once per distinct reason, most samples first (an unbuildable
    environment, a Node release that is not published, a native addon that was not built)."""
    reasons = Counter(
        s.message.splitlines()[0][:300] if s.message else "(no reason given)"
        for s in samples
        if s.status is Status.ENVIRONMENT_ERROR
    )
    return reasons.most_common()


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


def _ks(text: str) -> tuple[int, ...]:
    try:
        return tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        fail(f"-k takes integers separated by commas, got {text!r}")
