"""The library's entry point for a run, what `pinbench run` calls and a notebook can too:

    from pinbench.evaluation import api
    summary = api.run(api.plan(model="reference", split="quick"))

`plan` reads the dataset into the task's items and fixes the run's configuration (its hash is
the run id); `run` opens the store, the executor and the model, runs, and closes all three
whatever happens. Every failure a user can cause is one `RunError` line."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pinbench.core.datasets import DatasetError
from pinbench.core.item import items_digest
from pinbench.core.records import SampleRecord
from pinbench.evaluation.config import RunConfig, RunSummary
from pinbench.evaluation.presets import PRESETS
from pinbench.evaluation.runner import Runner
from pinbench.execution.base import Executor
from pinbench.execution.local import LocalExecutor, default_jobs
from pinbench.models.base import Model, ModelError
from pinbench.models.registry import ModelOptions, open_model
from pinbench.store.runs import RunStore
from pinbench.tasks import registry
from pinbench.tasks.base import Loaded, Settings


class RunError(Exception):
    """The run cannot start: a bad dataset, option, model or cluster (one line), with the
    dataset rows that were skipped on the way, if any."""

    def __init__(self, message: str, skipped: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.skipped = skipped


@dataclass(frozen=True)
class Placement:
    """Where a run's work happens; never part of the run's identity (same results anywhere)."""

    executor: str = "local"
    address: str = "auto"
    generate_on_cluster: bool = False
    replicas: int = 1

    def __post_init__(self) -> None:
        if self.executor not in ("local", "ray"):
            raise RunError(f"unknown executor {self.executor!r} (local, ray)")
        if self.generate_on_cluster and self.executor != "ray":
            raise RunError("--generate-on-cluster needs --executor ray")


@dataclass(frozen=True)
class Plan:
    """A run ready to start: its configuration and the items it runs."""

    config: RunConfig
    loaded: Loaded
    skipped: tuple[str, ...] = ()  # dataset rows that could not be read


def plan(
    *,
    model: str = "embedded",
    dataset: str = "builtin",
    task: str = "generation",
    fmt: str | None = None,
    split: str = "default",
    language: str | None = None,
    only: tuple[str, ...] = (),
    preset: str | None = None,
    jobs: int | None = None,
    allow_direct_references: bool = False,
    **settings: Any,
) -> Plan:
    """Read the dataset for the task and fix the configuration: the preset's values (greedy by
    default), overridden by every setting given (RunConfig's fields: n, k, temperature, ...,
    granularity, metric_variant, timeout_cap, execute, base_url)."""
    if preset is not None and preset not in PRESETS:
        raise RunError(f"unknown preset {preset!r} (presets: {', '.join(PRESETS)})")
    values = {**PRESETS.get(preset or "greedy", {}), **settings}
    options = Settings(
        dataset=Path(dataset),
        format=fmt,
        split=split,
        language=language,
        jobs=jobs or default_jobs(),
        style=str(values.get("style", "instruct")),
        docs=bool(values.get("doc_prompting", False)),
        cot=bool(values.get("cot", False)),
        granularity=tuple(values.get("granularity", ())),
        metric_variant=str(values.get("metric_variant", "versicode")),
        allow_direct_references=allow_direct_references,
    )
    try:
        loaded = registry.load(task, options)
    except DatasetError as exc:
        raise RunError(str(exc)) from None
    if only:
        wanted = set(only)
        loaded.items = [item for item in loaded.items if item.id in wanted]
    if not loaded.items:
        skipped = f" ({len(loaded.skipped)} rows skipped)" if loaded.skipped else ""
        raise RunError("no problem to run" + skipped, tuple(loaded.skipped))
    try:
        config = RunConfig(
            model=model,
            dataset=dataset,
            dataset_format=loaded.format,
            split=split,
            language=language,
            only=tuple(sorted(set(only))),
            task=task,
            problems_digest=items_digest(loaded.items),
            **{**values, "granularity": tuple(sorted(values.get("granularity", ())))},
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        raise RunError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    if any(k > config.n for k in config.k):
        raise RunError(f"pass@k needs k <= n (k={config.k}, n={config.n})")
    return Plan(config, loaded, tuple(loaded.skipped))


def run(
    planned: Plan,
    *,
    options: ModelOptions | None = None,
    jobs: int | None = None,
    results: Path | None = None,
    placement: Placement | None = None,
    on_sample: Callable[[SampleRecord], None] | None = None,
    on_status: Callable[[str], None] | None = None,
) -> RunSummary:
    """Run the plan: generate, execute, score, store (resuming what the store has), and
    return the summary. `on_sample` hears every recorded sample, `on_status` a line each
    time something is opened (the cluster's nodes)."""
    config, loaded = planned.config, planned.loaded
    jobs = jobs or default_jobs()
    placement = placement or Placement()
    options = options or ModelOptions(base_url=config.base_url)
    say = on_status or (lambda _line: None)
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(RunStore.at(results))
        executor = stack.enter_context(_executor(placement, jobs, say)) if config.execute else None
        answers = {item.id: loaded.task.reference_answer(item) for item in loaded.items}
        model = _model(config, [item.id for item in loaded.items], options, answers, placement)

        def on_event(_kind: str, record: SampleRecord | None) -> None:
            if record is not None and on_sample is not None:
                on_sample(record)

        runner = Runner(
            config, loaded.items, model, store, executor,
            task=loaded.task, jobs=jobs, on_event=on_event,
        )  # fmt: skip
        return asyncio.run(_run_and_close(runner, model))
    raise AssertionError("unreachable")  # pragma: no cover (ExitStack does not swallow)


def _executor(placement: Placement, jobs: int, say: Callable[[str], None]) -> Executor:
    if placement.executor == "local":
        return LocalExecutor(jobs)
    from pinbench.execution.ray.cluster import ClusterError
    from pinbench.execution.ray.executor import RayExecutor

    try:
        ray_executor = RayExecutor(placement.address)
    except ClusterError as exc:
        raise RunError(str(exc)) from None
    hosts = ray_executor.nodes
    say(f"ray: {len(hosts)} node{'s' * (len(hosts) != 1)} ({', '.join(hosts)})")
    return ray_executor


def _model(
    config: RunConfig,
    ids: list[str],
    options: ModelOptions,
    answers: dict[str, str],
    placement: Placement,
) -> Model:
    try:
        if not placement.generate_on_cluster:
            return open_model(config.model, ids, options, answers)
        from pinbench.execution.ray.cluster import ClusterError
        from pinbench.models.cluster import ClusterModel

        try:
            return ClusterModel(
                config.model, options, address=placement.address, replicas=placement.replicas
            )
        except ClusterError as exc:
            raise ModelError(str(exc)) from None
    except ModelError as exc:
        raise RunError(str(exc)) from None


async def _run_and_close(runner: Runner, model: Model) -> RunSummary:
    try:
        return await runner.run()
    finally:
        await model.aclose()


def write_json(path: Path, summary: RunSummary, samples: Iterable[SampleRecord]) -> None:
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
            "deprecations": s.deprecations.model_dump(mode="json") if s.deprecations else None,
            "reruns": [status.value for status in s.reruns],
        }
        for s in samples
    ]
    document = {"schema_version": 1, "summary": summary.model_dump(mode="json"), "samples": rows}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1))
