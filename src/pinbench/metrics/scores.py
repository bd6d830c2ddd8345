"""A run's scores from its sample records: pass@k per feedback round, mean ± std over seeds,
compile rate; infrastructure outcomes are excluded from every denominator and counted apart."""

from __future__ import annotations

from collections import Counter, defaultdict

from pydantic import BaseModel, Field

from pinbench.core.outcome import INFRASTRUCTURE, NOT_SCORED, Status
from pinbench.core.records import SampleRecord
from pinbench.metrics.passk import expected_best_at_k, mean_pass_at_k, mean_std


class KScore(BaseModel):
    k: int
    mean: float | None = Field(description="mean over seeds of pass@k averaged over problems")
    std: float | None = Field(description="sample standard deviation over seeds")
    per_seed: list[float | None]


class RoundScore(BaseModel):
    round: int
    pass_at: list[KScore]
    compile_rate: float | None
    scored: int = Field(description="samples with a model outcome at this round")


class Agreement(BaseModel):
    """How often exact match and execution agree on the samples that have both."""

    samples: int
    string_only: int = Field(description="exact match, but the program fails its test")
    execution_only: int = Field(description="no exact match, but the program passes")

    @property
    def rate(self) -> float | None:
        disagree = self.string_only + self.execution_only
        return disagree / self.samples if self.samples else None


class Scores(BaseModel):
    rounds: list[RoundScore]
    problems: int
    samples: int = Field(description="distinct (problem, seed, sample) chains recorded")
    statuses: dict[str, int] = Field(description="latest round's outcome kinds")
    infrastructure: dict[str, int] = Field(description="excluded from scores, by kind")
    exceptions: dict[str, int] = Field(description="latest round's exception types, failures")
    strings: dict[str, list[KScore]] = Field(
        default_factory=dict, description="string metric -> expected best of k, per k"
    )
    agreement: Agreement | None = None
    flakes: Flakes | None = Field(
        default=None, description="samples of problems known flaky, re-executed"
    )


class Flakes(BaseModel):
    """Samples of problems `validate --repeat` found flaky: each was executed several times;
    those whose outcomes disagreed are `flaky` and not scored."""

    reexecuted: int
    flaky: int

    @property
    def rate(self) -> float | None:
        return self.flaky / self.reexecuted if self.reexecuted else None


Chains = dict[tuple[str, int, int], dict[int, SampleRecord]]


def chains_of(records: list[SampleRecord]) -> Chains:
    """(problem, seed, sample) -> round -> record."""
    chains: Chains = defaultdict(dict)
    for record in records:
        chains[(record.problem_id, record.seed, record.sample)][record.round] = record
    return chains


def score(records: list[SampleRecord], ks: tuple[int, ...], rounds: int, seeds: int) -> Scores:
    chains = chains_of(records)
    round_scores = [_round(chains, r, ks, seeds) for r in range(rounds + 1)]
    latest = [at_round(chain, rounds) for chain in chains.values()]
    statuses = Counter(r.status for r in latest if r is not None)
    exceptions = Counter(
        r.exc_type or r.status
        for r in latest
        if r is not None and r.status not in NOT_SCORED and not r.passed
    )
    return Scores(
        strings=_string_scores(records, ks, seeds),
        agreement=_agreement(records),
        rounds=round_scores,
        problems=len({key[0] for key in chains}),
        samples=len(chains),
        statuses=dict(statuses.most_common()),
        infrastructure={s: c for s, c in statuses.items() if s in INFRASTRUCTURE},
        exceptions=dict(exceptions.most_common()),
        flakes=_flakes(latest),
    )


def _flakes(latest: list[SampleRecord | None]) -> Flakes | None:
    rerun = [r for r in latest if r is not None and r.reruns]
    if not rerun:
        return None
    return Flakes(reexecuted=len(rerun), flaky=sum(r.status is Status.FLAKY for r in rerun))


def at_round(chain: dict[int, SampleRecord], round_: int) -> SampleRecord | None:
    """A chain stops when its visible test passes: its last record stands for later rounds."""
    reached = [r for r in chain if r <= round_]
    return chain[max(reached)] if reached else None


def _round(
    chains: Chains,
    round_: int,
    ks: tuple[int, ...],
    seeds: int,
) -> RoundScore:
    counts: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    compiled = scored = 0
    for (problem, seed, _), chain in chains.items():
        record = at_round(chain, round_)
        if record is None or record.status in NOT_SCORED:
            continue
        scored += 1
        compiled += record.compiles
        tally = counts[seed][problem]
        tally[0] += 1
        tally[1] += record.passed
    pass_at = []
    for k in ks:
        per_seed = [
            mean_pass_at_k(((n, c) for n, c in counts[seed].values()), k) for seed in range(seeds)
        ]
        present = [v for v in per_seed if v is not None]
        mean, std = mean_std(present) if present else (None, None)
        pass_at.append(KScore(k=k, mean=mean, std=std, per_seed=per_seed))
    return RoundScore(
        round=round_,
        pass_at=pass_at,
        compile_rate=compiled / scored if scored else None,
        scored=scored,
    )


def _string_scores(
    records: list[SampleRecord], ks: tuple[int, ...], seeds: int
) -> dict[str, list[KScore]]:
    """Each string metric's expected best of k samples (pass@k on 0/1 scores), per problem,
    averaged over problems, then mean ± std over seeds. Round 0: string tasks have no feedback."""
    values: dict[str, dict[int, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for record in records:
        if record.round == 0 and record.status not in INFRASTRUCTURE:
            for name, value in record.metrics.items():
                values[name][record.seed][record.problem_id].append(float(value))
    result: dict[str, list[KScore]] = {}
    for name, by_seed in values.items():
        result[name] = []
        for k in ks:
            per_seed = [_mean_best(by_seed[seed], k) for seed in range(seeds)]
            present = [v for v in per_seed if v is not None]
            mean, std = mean_std(present) if present else (None, None)
            result[name].append(KScore(k=k, mean=mean, std=std, per_seed=per_seed))
    return result


def _mean_best(problems: dict[str, list[float]], k: int) -> float | None:
    scores = [expected_best_at_k(v, k) for v in problems.values() if len(v) >= k]
    return sum(scores) / len(scores) if scores else None


def _agreement(records: list[SampleRecord]) -> Agreement | None:
    both = [r for r in records if "em" in r.metrics and r.status not in NOT_SCORED and r.round == 0]
    if not both:
        return None
    return Agreement(
        samples=len(both),
        string_only=sum(bool(r.metrics["em"]) and not r.passed for r in both),
        execution_only=sum(not r.metrics["em"] and r.passed for r in both),
    )
