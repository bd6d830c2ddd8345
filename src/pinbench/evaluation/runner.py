"""The runner: generate, extract, execute, score, store — for every (item, seed, sample) chain
and its error-feedback rounds, whatever the task.

Generation and execution overlap: each chain is a task that executes its program as soon as the
model answers, while environments build in a pool from the start. Every generation and every
sample outcome is committed to the store as it arrives, so re-running the same command resumes:
what was recorded is reused, never asked or executed again."""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as distribution_version
from typing import Any

from pinbench.core import version
from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.core.item import Item
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.records import SampleRecord
from pinbench.core.tests import Fallback, TestSpec
from pinbench.evaluation.config import ModelErrors, RunConfig, RunSummary
from pinbench.execution.base import EnvHandle, Executor
from pinbench.execution.timeouts import Calibration, retry_at_cap
from pinbench.metrics.scores import score
from pinbench.models.base import Generation, Model, Request
from pinbench.sandbox.grade import TRUSTED, current_grading
from pinbench.store.flakes import FlakeRegistry, flake_key
from pinbench.store.runs import RunStore
from pinbench.tasks.base import STEP_BREAK, Feedback, Task, trim_error

FIRST_BATCH = 8  # when the model's first this many answers all fail alike, stop asking it


Event = Callable[[str, SampleRecord | None], None]


class Runner:
    def __init__(
        self,
        config: RunConfig,
        items: list[Item[Any]],
        model: Model,
        store: RunStore,
        executor: Executor | None,
        *,
        task: Task,
        jobs: int = 2,
        on_event: Event | None = None,
    ) -> None:
        self.config = config
        self.task = task
        self.items = items
        self.model = model
        self.store = store
        self.executor = executor
        self.jobs = max(1, jobs)
        self.notify = on_event or (lambda _kind, _record: None)
        self.run_id = config.run_id
        self._envs: dict[EnvSpec, asyncio.Future[EnvHandle | Exception]] = {}
        self._deadlines: dict[str, asyncio.Future[float]] = {}
        self._references: dict[str, Execution] = {}  # item -> its reference's calibration run
        # items whose reference passes its tests only graded so (in one process, or sharing
        # the program's process-state modules)
        self._graded: dict[str, Fallback] = {}
        self._flaky = _known_flaky(items) if executor is not None else set()
        self._requests = {"asked": 0, "cached": 0, "errors": 0}
        self._cap = Limits(wall_seconds=config.timeout_cap, cpu_seconds=int(config.timeout_cap))
        self._model_errors: dict[str, ModelErrors] = {}
        self._first_batch: list[Generation] | None = []  # None: decided, the model answers
        self._stop: Generation | None = None  # set: stop asking the model, and why
        self._asking: set[asyncio.Task[Generation]] = set()
        self._not_asked = 0

    async def run(self) -> RunSummary:
        started = time.monotonic()
        resumed = not self.store.start_run(
            self.run_id,
            self.config.model_dump(mode="json"),
            model_name=self.model.name,
            versions=_versions(),
            machine=_machine(),
        )
        self.store.record_problems(self.run_id, [item.meta for item in self.items])
        done = {
            (r.problem_id, r.seed, r.sample, r.round): r for r in self.store.samples(self.run_id)
        }
        status = "interrupted"
        with ThreadPoolExecutor(self.jobs, thread_name_prefix="exec") as self._runners:
            if self.config.execute:
                for item in self.items:  # start every build now, in dataset order
                    if item.env is not None:
                        self._environment(item)
            try:
                await asyncio.gather(
                    *(
                        self._chain(item, seed, sample, done)
                        for item in self.items
                        for seed in range(self.config.seeds)
                        for sample in range(self.config.n)
                    )
                )
                status = "finished"
            finally:
                summary = self._summary(time.monotonic() - started, resumed)
                self.store.finish_run(self.run_id, status, summary.model_dump(mode="json"))
        return summary

    def _summary(self, wall: float, resumed: bool) -> RunSummary:
        c = self.config
        scores = score(self.store.samples(self.run_id), c.k, c.feedback_rounds, c.seeds)
        notes = []
        if scores.infrastructure:
            kinds = ", ".join(f"{k} {v}" for k, v in scores.infrastructure.items())
            total = sum(scores.infrastructure.values())
            notes.append(f"{total} samples had infrastructure outcomes ({kinds}): not scored")
        if not c.execute:
            notes.append("generation only (--no-execute): nothing was executed or scored")
        if self._not_asked:
            kind = _kind(self._stop) if self._stop else "?"
            notes.append(
                f"the first {FIRST_BATCH} requests all failed alike ({kind}): {self._not_asked} "
                "more were not sent or were cancelled, their samples recorded as model_error "
                "(a re-run asks again)"
            )
        errors = sorted(self._model_errors.values(), key=lambda e: (-e.samples, e.kind))
        return RunSummary(
            run_id=self.run_id,
            model=c.model,
            model_name=self.model.name,
            dataset=c.dataset,
            split=c.split,
            config=c,
            scores=scores,
            requests=dict(self._requests),
            wall_seconds=round(wall, 3),
            resumed=resumed,
            notes=notes,
            model_errors=errors,
            grading=current_grading().model_copy(
                update={
                    fallback: tuple(sorted(i for i, f in self._graded.items() if f == fallback))
                    for fallback in ("in_process", "shares_state")
                }
            ),
        )

    async def _chain(
        self,
        item: Item[Any],
        seed: int,
        sample: int,
        done: dict[tuple[str, int, int, int], SampleRecord],
    ) -> None:
        """Round 0, then one more round per feedback round while the visible test fails."""
        feedback: Feedback | None = None
        for round_ in range(self.config.feedback_rounds + 1):
            record = done.get((item.id, seed, sample, round_))
            if record is None or record.status.is_infrastructure:  # not done: try again
                try:
                    record = await self._attempt(item, seed, sample, round_, feedback)
                except Exception as exc:  # one sample's harness fault must not end the run
                    record = SampleRecord(
                        problem_id=item.id,
                        seed=seed,
                        sample=sample,
                        round=round_,
                        status=Status.HARNESS_ERROR,
                        message=f"{type(exc).__name__}: {exc}",
                    )
                self.store.record_sample(self.run_id, record)
                self.notify("sample", record)
            if record.status.is_infrastructure or not record.feedback:
                return
            feedback = Feedback(program=record.program, error=record.feedback, round=round_)

    async def _attempt(
        self, item: Item[Any], seed: int, sample: int, round_: int, feedback: Feedback | None
    ) -> SampleRecord:
        c = self.config
        request = self.task.request(
            item,
            sampling=c.sampling(seed, sample),
            sample=seed * c.n + sample,
            round=round_,
            feedback=feedback,
        )
        generation, key = await self._generate(request)
        record = SampleRecord(
            problem_id=item.id,
            seed=seed,
            sample=sample,
            round=round_,
            generation_key=key,
            status=Status.MODEL_ERROR,
        )
        texts = [generation.text]
        while generation.error is None:  # the further steps of a multi-step task
            step = self.task.follow_up(item, request, generation.text)
            if step is None:
                break
            request = step
            generation, _ = await self._generate(request)
            texts.append(generation.text)
        if generation.error is not None:
            kind = _kind(generation)
            errors = self._model_errors.get(kind) or ModelErrors(
                kind=kind, samples=0, first=generation.error
            )
            errors.samples += 1
            self._model_errors[kind] = errors
            return record.model_copy(update={"message": generation.error})
        text = STEP_BREAK.join(texts)
        # Off the event loop: some tasks score with tools that take seconds (linters).
        task, loop = self.task, asyncio.get_running_loop()
        program = await loop.run_in_executor(self._runners, task.program, item, text)
        env = await self._scoring_env(item)
        metrics = await loop.run_in_executor(self._runners, task.score, item, text, env)
        record = record.model_copy(
            update={
                "program": program,
                "compiles": task.compiles(item, program),
                "metrics": metrics,
            }
        )
        if not item.executable:
            verdict = task.verdict(item, metrics)
            status = Status.GENERATED if verdict is None else Status.of(verdict)
            return record.model_copy(update={"status": status})
        if not c.execute:
            return record.model_copy(update={"status": Status.GENERATED})
        return await self._execute(item, record, run_visible=round_ < c.feedback_rounds)

    async def _generate(self, request: Request) -> tuple[Generation, str]:
        key = request.cache_key(self.model.name)
        cached = self.store.generation(key)
        generation = cached or await self._ask(request)
        if generation is None:  # not asked: the model failed every request of the first batch
            self._not_asked += 1
            reason = self._stop
            assert reason is not None
            error = f"not asked (the first {FIRST_BATCH} requests all failed alike): {reason.error}"
            update = {"error": error, "error_kind": _kind(reason), "seconds": 0.0, "attempts": 0}
            return reason.model_copy(update=update), key
        self._requests["cached" if cached else "asked"] += 1
        self._requests["errors"] += generation.error is not None
        self.store.record_generation(
            self.run_id, key, self.model.name, request, generation, cached is not None
        )
        return generation, key

    async def _ask(self, request: Request) -> Generation | None:
        """The model's answer or failure, or None once the run has stopped asking: then a
        request still in flight is cancelled rather than waited for through its retries."""
        if self._stop is not None:
            return None
        asking = asyncio.ensure_future(self.model.generate(request))
        self._asking.add(asking)
        try:
            generation = await asking
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._stop is None or (current is not None and current.cancelling()):
                raise  # the run itself is cancelled, not just this request
            return None
        finally:
            self._asking.discard(asking)
        self._judge_first_batch(generation)
        return generation

    def _judge_first_batch(self, generation: Generation) -> None:
        """When the model's first FIRST_BATCH answers are all failures of one kind (refused,
        unauthorised, an unknown model: after the backend's own retries), every other request
        would fail so too: stop asking, and record the rest as that model error."""
        batch = self._first_batch
        if batch is None or self._stop is not None:
            return
        batch.append(generation)
        if generation.error is None or len({_kind(g) for g in batch}) > 1:
            self._first_batch = None  # the model answers, or fails in several ways: go on
        elif len(batch) >= FIRST_BATCH:
            self._stop = batch[0]
            for asking in self._asking:  # in flight or queued for a slot: not waited for
                asking.cancel()

    async def _scoring_env(self, item: Item[Any]) -> Environment | None:
        """The item's environment for a task whose scores read it, when the executor holds it
        on this machine (a cluster's live on its nodes: the task then builds its own)."""
        if not self.task.needs_env_to_score or item.env is None or self.executor is None:
            return None
        if not self.config.execute:
            return None
        handle = await self._environment(item)
        return None if isinstance(handle, Exception) else handle.environment

    async def _execute(
        self, item: Item[Any], record: SampleRecord, run_visible: bool
    ) -> SampleRecord:
        env = await self._environment(item)
        if isinstance(env, Exception):
            message = str(env)
            if isinstance(env, EnvError) and env.log:
                message += f" (log: {env.log})"
            return record.model_copy(
                update={"status": Status.ENVIRONMENT_ERROR, "message": message}
            )
        assert item.hidden_test is not None
        deadline = await self._deadline(item, env)
        limits = self._cap_of(item).model_copy(update={"wall_seconds": deadline})
        hidden = self._weigh_claim(
            item, await self._run(env, item, record.program, item.hidden_test, limits)
        )
        reruns: tuple[Status, ...] = ()
        if item.id in self._flaky and not hidden.status.is_infrastructure:
            hidden, reruns = await self._rerun(env, item, record.program, limits, hidden)
        update: dict[str, Any] = {
            "status": hidden.status,
            "exc_type": hidden.exc_type,
            "message": hidden.message[:2000],
            "env_key": env.key,
            "deadline": deadline,
            "seconds": hidden.seconds,
            "deprecations": hidden.deprecations,
            "reruns": reruns,
        }
        if run_visible and item.visible_test is not None and not hidden.status.is_infrastructure:
            visible = await self._run(env, item, record.program, item.visible_test, limits)
            update["visible_status"] = visible.status
            update["feedback"] = "" if visible.passed else _error_text(visible)
        return record.model_copy(update=update)

    def _weigh_claim(self, item: Item[Any], hidden: Execution) -> Execution:
        """An infrastructure outcome the program's own process claimed (a missing library in
        its error text, a status in its record) stands only if the harness's evidence agrees:
        the reference program, run in the same environment, met infrastructure too. Else the
        sample failed, and stays in the denominator."""
        reference = self._references.get(item.id)
        if not (hidden.claimed and hidden.status.is_infrastructure) or reference is None:
            return hidden
        if reference.status.is_infrastructure:
            return hidden
        message = f"claimed {hidden.status.value} ({hidden.message[:300]}); the reference ran here"
        return hidden.model_copy(
            update={
                "status": Status.FAILED,
                "exc_type": hidden.exc_type or "InfrastructureClaim",
                "message": message,
                "claimed": False,
            }
        )

    async def _rerun(
        self, env: EnvHandle, item: Item[Any], program: str, limits: Limits, first: Execution
    ) -> tuple[Execution, tuple[Status, ...]]:
        """A sample of a problem known flaky runs `flaky_runs` times in all; when its outcomes
        disagree (some pass, some do not) it is flaky, and not scored either way."""
        assert item.hidden_test is not None
        results = [first]
        for _ in range(self.config.flaky_runs - 1):
            again = await self._run(env, item, program, item.hidden_test, limits, fresh=True)
            if not again.status.is_infrastructure:
                results.append(again)
        statuses = tuple(r.status for r in results)
        passed = sum(r.passed for r in results)
        if 0 < passed < len(results):
            message = f"flaky: passed {passed} of {len(results)} runs (a problem known flaky)"
            return first.model_copy(update={"status": Status.FLAKY, "message": message}), statuses
        return first, statuses

    async def _run(
        self,
        env: EnvHandle,
        item: Item[Any],
        program: str,
        test: TestSpec,
        limits: Limits,
        fresh: bool = False,
    ) -> Execution:
        assert self.executor is not None
        modules = tuple(dict.fromkeys((*env.modules, *item.preload)))
        if not test.graded_outside:
            self._graded[item.id] = "in_process"  # a repository's suite: reported in-process
        if item.id in self._graded:
            test = test.graded(self._graded[item.id])
        result = await self.executor.run(env, program, test, limits, modules, fresh)
        timed_out = result.status is Status.TIMEOUT
        cap = self._cap_of(item)
        if retry_at_cap(timed_out, limits.wall_seconds, cap.wall_seconds):
            result = await self.executor.run(env, program, test, cap, modules, fresh)
        return result

    def _environment(self, item: Item[Any]) -> asyncio.Future[EnvHandle | Exception]:
        spec = item.env
        assert spec is not None
        if spec not in self._envs:
            self._envs[spec] = asyncio.ensure_future(self._prepare(spec))
        return self._envs[spec]

    async def _prepare(self, spec: EnvSpec) -> EnvHandle | Exception:
        assert self.executor is not None
        try:
            return await self.executor.prepare(spec)
        except Exception as exc:  # recorded as each sample's environment outcome
            return exc

    async def _all_pass(
        self, env: EnvHandle, item: Item[Any], hidden: Execution, fallback: Fallback | None
    ) -> bool:
        """Whether the reference, which met its hidden test as `hidden`, passes its visible
        test too, both graded as `fallback` says (None: trusted, as they are)."""
        if not hidden.passed or item.visible_test is None:
            return hidden.passed
        test = item.visible_test
        test = test.graded(fallback) if fallback is not None else test
        return (await self._run(env, item, item.reference, test, self._cap_of(item))).passed

    def _cap_of(self, item: Item[Any]) -> Limits:
        """The run's cap (--timeout), raised to what the item needs at least."""
        if item.min_cap_seconds <= self._cap.wall_seconds:
            return self._cap
        seconds = item.min_cap_seconds
        return self._cap.model_copy(update={"wall_seconds": seconds, "cpu_seconds": int(seconds)})

    async def _deadline(self, item: Item[Any], env: EnvHandle) -> float:
        """The reference program's runtime calibrates the deadline, once per item."""
        if item.id not in self._deadlines:
            future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
            self._deadlines[item.id] = future
            try:
                assert item.hidden_test is not None
                cap = self._cap_of(item)
                reference = await self._run(env, item, item.reference, item.hidden_test, cap)
                trusted = current_grading().mode == TRUSTED
                if (
                    trusted
                    and item.id not in self._graded
                    and not await self._all_pass(env, item, reference, None)
                ):
                    # Decided by the reference alone, never by a sample: tests that need the
                    # program's pyplot, or its objects in its own process, are graded so, and
                    # reported so.
                    for fallback in item.hidden_test.fallbacks():
                        test = item.hidden_test.graded(fallback)
                        again = await self._run(env, item, item.reference, test, cap)
                        if await self._all_pass(env, item, again, fallback):
                            self._graded[item.id] = fallback
                            reference = again
                            break
                self._references[item.id] = reference
                calibration = Calibration(
                    reference_seconds=reference.seconds, cap_seconds=cap.wall_seconds
                )
                future.set_result(calibration.deadline)
            except Exception:
                future.set_result(self._cap_of(item).wall_seconds)  # uncalibrated: the cap
                raise
        return await self._deadlines[item.id]


def _kind(generation: Generation) -> str:
    return generation.error_kind or generation.error or "no answer"


def _error_text(execution: Execution) -> str:
    """What a user would see from the visible test: the trace, kept to its tail."""
    if execution.status is Status.TIMEOUT:
        text = f"Timeout: the program did not finish within {execution.limits.wall_seconds} s"
    else:
        text = execution.trace or f"{execution.exc_type or 'Error'}: {execution.message}"
        text = text or execution.stderr
    return trim_error(text)


def _versions() -> dict[str, str]:
    versions = {"pinbench": version.VERSION}
    with contextlib.suppress(PackageNotFoundError):
        versions["xllamacpp"] = distribution_version("xllamacpp")
    return versions


def _machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }


def _known_flaky(items: list[Item[Any]]) -> set[str]:
    """The items `validate --repeat` recorded as flaky (same environment, test, reference)."""
    keys = {
        flake_key(item.env, item.hidden_test, item.reference): item.id
        for item in items
        if item.env is not None and item.hidden_test is not None
    }
    return {keys[key] for key in FlakeRegistry().flaky(list(keys))}
