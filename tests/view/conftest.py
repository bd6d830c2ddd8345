"""Stores for `pinbench view`, written through the real `RunStore` API: a finished run with
error-feedback rounds, two seeds and hostile text everywhere text goes, a second finished run
to compare it with, and servers over them on free ports."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pinbench.core.outcome import Status
from pinbench.core.records import ItemMeta, SampleRecord
from pinbench.evaluation.config import RunConfig, RunSummary
from pinbench.metrics.scores import score
from pinbench.models.base import Generation, Message, Request, Sampling
from pinbench.store.runs import RunStore
from pinbench.view.server import ViewServer

REPO = Path(__file__).resolve().parent.parent.parent
HOSTILE_MESSAGE = "<img src=x onerror=alert(1)> [/x] </script><script>alert(2)</script>"
HOSTILE_ID = "evil/</script><b>bold</b>"
HOSTILE_LIBRARY = "<i>lib</i>"
PROBLEMS = (
    ItemMeta(id="alpha-01", library="alpha", version="1.0", release_date="2021-03",
             change="function_name_change", problem="Rename f.", visible_test="assert f() == 1",
             hidden_test="assert f() == 1\nassert f() != 2"),
    ItemMeta(id="alpha-02", library="alpha", version="1.1", release_date="2022-05",
             change="argument_or_attribute_change", problem="Add x.",
             visible_test="assert g(1) == 1", hidden_test="assert g(1) == 1"),
    ItemMeta(id="beta-01", library="beta", version="2.0", release_date="2020-01",
             change="function_name_change", problem="Use h.", visible_test="assert h()",
             hidden_test="assert h()"),
    ItemMeta(id=HOSTILE_ID, library=HOSTILE_LIBRARY, version="0.1", release_date="2023-07",
             change="semantics_or_behaviour_change", problem=f"Problem {HOSTILE_MESSAGE}",
             visible_test=f"# {HOSTILE_MESSAGE}\nassert True", hidden_test="assert True"),
)  # fmt: skip


@dataclass(frozen=True)
class Runs:
    results: Path
    feedback: str  # a finished run: 2 seeds × 2 samples, one feedback round, hostile text
    other: str  # a finished run on the same problems, to compare with


def program(problem: str, round_: int) -> str:
    return f"def f():\n    # {problem}\n    return {round_}\n\nprint('round {round_}')\n"


def outcome(problem: int, seed: int, sample: int, round_: int) -> tuple[Status, str | None]:
    """A fixed pattern of outcomes: passes, failures of several kinds, one infrastructure."""
    code = (problem * 7 + seed * 3 + sample + round_ * 5) % 6
    return [
        (Status.PASSED, None),
        (Status.FAILED, "NameError"),
        (Status.FAILED, "AttributeError"),
        (Status.PASSED, None),
        (Status.TIMEOUT, None),
        (Status.ENVIRONMENT_ERROR, None),
    ][code]


def record_run(store: RunStore, model: str, *, rounds: int, finish: bool = True) -> str:
    """A run over PROBLEMS recorded as the runner records one (generation, then sample),
    finished with its summary when `finish`."""
    config = RunConfig(model=model, dataset="view-tests", n=2, seeds=2, feedback_rounds=rounds)
    run_id = config.run_id
    store.start_run(run_id, config.model_dump(mode="json"), model_name=model)
    store.record_problems(run_id, list(PROBLEMS))
    for index, meta in enumerate(PROBLEMS):
        for seed in range(2):
            for sample in range(2):
                record_chain(store, run_id, model, index, meta.id, seed, sample, rounds)
    if finish:
        finish_run(store, run_id, config)
    return run_id


def record_chain(
    store: RunStore,
    run_id: str,
    model: str,
    index: int,
    problem: str,
    seed: int,
    sample: int,
    rounds: int,
) -> None:
    for round_ in range(rounds + 1):
        status, exc = outcome(index, seed, sample, round_)
        if model == "reference":
            status, exc = (Status.PASSED, None) if index != 1 else (Status.FAILED, "TypeError")
        text = f"Write {problem} (round {round_}). <b>bold</b> {HOSTILE_MESSAGE}"
        request = Request(
            problem_id=problem,
            sample=sample,
            round=round_,
            messages=(Message(role="system", content="You write code."),
                      Message(role="user", content=text)),
            sampling=Sampling(seed=seed * 1_000_003 + sample),
        )  # fmt: skip
        key = request.cache_key(model)
        code = program(problem, round_)
        gen = Generation(text=f"```python\n{code}```", finish_reason="stop")
        store.record_generation(run_id, key, model, request, gen, cached=False)
        failed = status is not Status.PASSED
        store.record_sample(
            run_id,
            SampleRecord(
                problem_id=problem, seed=seed, sample=sample, round=round_, generation_key=key,
                program=code, compiles=True, status=status, visible_status=status, exc_type=exc,
                message=f"{exc}: {HOSTILE_MESSAGE}" if failed else "",
                feedback=f"Traceback: {HOSTILE_MESSAGE}" if failed and round_ < rounds else "",
            ),
        )  # fmt: skip
        if not failed:
            return  # the chain stops once its visible test passes


def finish_run(store: RunStore, run_id: str, config: RunConfig) -> None:
    scores = score(store.samples(run_id), config.k, config.feedback_rounds, config.seeds)
    summary = RunSummary(
        run_id=run_id, model=config.model, model_name=config.model, dataset=config.dataset,
        split="default", config=config, scores=scores,
        requests={"asked": 0, "cached": 0, "errors": 0}, wall_seconds=1.5, resumed=False,
    )  # fmt: skip
    store.finish_run(run_id, "finished", summary.model_dump(mode="json"))


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    results = tmp_path_factory.mktemp("view")
    with RunStore.at(results) as store:
        feedback = record_run(store, "replay:feedback", rounds=1)
        other = record_run(store, "reference", rounds=0)
    return Runs(results, feedback, other)


@pytest.fixture(scope="session")
def server(runs: Runs) -> Iterator[ViewServer]:
    with ViewServer(RunStore.path_at(runs.results)).start() as served:
        yield served


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def get(server: ViewServer, path: str, host: str | None = None, method: str = "GET") -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", f"127.0.0.1:{server.port}" if host is None else host)
        connection.endheaders()
        response = connection.getresponse()
        return Answer(response.status, response.headers, response.read())
    finally:
        connection.close()
