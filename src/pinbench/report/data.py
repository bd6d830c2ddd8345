"""What a report shows, computed from the store alone: breakdowns of pass@1 (baseline and after
error feedback, mean ± std over seeds), sample difficulty, error categories, per-problem rows."""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import TypeGuard

from pydantic import BaseModel, Field

from pinbench.core.outcome import FAILURE_TYPES, NOT_SCORED, failure_type
from pinbench.core.records import ItemMeta, SampleRecord
from pinbench.drift import Compatibility, DriftSummary
from pinbench.evaluation.config import RunSummary
from pinbench.metrics.intervals import problem_rates
from pinbench.metrics.scores import Chains, at_round, chains_of, score
from pinbench.report.cutoffs import Cutoff, CutoffSplit, split
from pinbench.store.runs import RunRow, RunStore

_DETAIL_CHARS = 4000  # per field of the per-problem details: keeps 20k-sample reports small


class Group(BaseModel):
    """pass@1 of one group of problems, at round 0 and after the last feedback round."""

    name: str
    problems: int
    baseline: float | None
    baseline_std: float | None
    feedback: float | None
    feedback_std: float | None
    passes: int = Field(default=0, description="scored passes at the last round")
    captured_passes: int = Field(default=0, description="... whose deprecations were captured")
    deprecated_passes: int = Field(
        default=0, description="... that raised a deprecation signal (or hid the capture)"
    )

    @property
    def deprecated_share(self) -> float | None:
        """Of the passes whose deprecations were captured, the share not clean."""
        return self.deprecated_passes / self.captured_passes if self.captured_passes else None


class DeprecatedApi(BaseModel):
    library: str
    api: str
    passes: int = Field(description="passing samples that used it")
    failures: int = Field(description="failing samples that used it")


class DeprecationSummary(BaseModel):
    """Passes that use a deprecated API, apart from clean passes (last round, scored)."""

    passes: int
    captured: int = Field(description="passes whose deprecation signals were captured")
    clean: int
    deprecated: int = Field(description="passes that raised a deprecation signal")
    tampered: int = Field(description="passes that replaced the capture (never clean)")
    apis: list[DeprecatedApi] = Field(description="the most used deprecated APIs")


class ProblemResult(BaseModel):
    id: str
    library: str
    version: str
    year: str
    change: str
    samples: int
    pass_rate: float | None = Field(description="round 0, over scored samples of every seed")
    pass_rate_feedback: float | None
    error: str = Field(description="most frequent error category of its failed samples")
    infrastructure: int
    prompt: str = ""
    program: str = ""
    test: str = ""
    trace: str = ""


class Report(BaseModel):
    """The report's content; `pinbench report --json` writes it (docs/report-json.md)."""

    schema_version: int = 1
    run_id: str
    model_name: str
    status: str
    summary: RunSummary
    by_library: list[Group]
    by_year: list[Group]
    by_change: list[Group]
    by_tag: dict[str, list[Group]] = Field(
        default_factory=dict,
        description="the task's own breakdowns, in the order it declares them: VersiCode's "
        "source, lifespan, granularity, transition, direction; the IDE scenarios' scenario and "
        "repo",
    )
    difficulty: dict[str, list[float]] = Field(
        description="per-problem pass rates: 'baseline' and 'feedback'"
    )
    errors: dict[str, dict[str, int]] = Field(
        description="'baseline' and 'feedback': error category -> failed samples"
    )
    problems: list[ProblemResult]
    drift: DriftSummary | None = Field(
        default=None, description="version confusion, once `pinbench drift` has run"
    )
    deprecations: DeprecationSummary | None = Field(
        default=None, description="deprecated API use; None when no execution captured it"
    )
    compatibility: Compatibility | None = Field(
        default=None, description="the compatibility matrix, once `pinbench drift --matrix` ran"
    )
    cutoff: CutoffSplit | None = Field(
        default=None, description="pass@1 before/after the model's knowledge cutoff, if known"
    )

    @property
    def has_feedback(self) -> bool:
        return self.summary.config.feedback_rounds > 0


def build_report(
    store: RunStore, run: RunRow, details: bool = True, cutoff: Cutoff | None = None
) -> Report:
    if run.summary is None:
        raise ValueError(f"run {run.id} has no summary yet ({run.status})")
    summary = RunSummary.model_validate(run.summary)
    records = store.samples(run.id)
    metas = store.problems(run.id)
    for pid in {r.problem_id for r in records} - set(metas):
        metas[pid] = ItemMeta(id=pid)  # runs recorded before problems were kept
    chains = chains_of(records)
    last = summary.config.feedback_rounds
    seeds = summary.config.seeds

    def groups(key: Callable[[ItemMeta], str]) -> list[Group]:
        members: dict[str, set[str]] = defaultdict(set)
        for meta in metas.values():
            members[key(meta)].add(meta.id)
        return sorted(
            (_group(name, ids, records, last, seeds) for name, ids in members.items()),
            key=lambda g: (g.baseline is None, -(g.baseline or 0.0), g.name),
        )

    problems = _problem_results(chains, metas, last)
    if details:
        _add_details(store, chains, problems, metas, last)
    tags = list(dict.fromkeys(n for m in metas.values() for n in m.breakdowns))
    return Report(
        run_id=run.id,
        model_name=run.model_name,
        status=run.status,
        summary=summary,
        by_library=groups(lambda m: m.library or "unknown"),
        by_year=sorted(groups(lambda m: m.year), key=lambda g: g.name),
        by_change=groups(lambda m: m.change),
        by_tag={
            name: found
            for name in tags
            if (found := groups(functools.partial(_breakdown, name=name)))
            and (len(found) > 1 or name not in _SHOWN_WHEN_MIXED)
        },
        difficulty={
            "baseline": [p.pass_rate for p in problems if p.pass_rate is not None],
            "feedback": [
                p.pass_rate_feedback for p in problems if p.pass_rate_feedback is not None
            ],
        },
        errors={"baseline": _errors(chains, 0), "feedback": _errors(chains, last)},
        problems=problems,
        drift=DriftSummary.model_validate(drifted) if (drifted := store.drift(run.id)) else None,
        compatibility=_compatibility(drifted),
        deprecations=deprecation_summary(chains, metas, last),
        cutoff=_cutoff_split(cutoff, records, metas, tags),
    )


def _compatibility(drifted: dict[str, object] | None) -> Compatibility | None:
    found = (drifted or {}).get("compatibility")
    return Compatibility.model_validate(found) if found else None


def _cutoff_split(
    cutoff: Cutoff | None,
    records: list[SampleRecord],
    metas: dict[str, ItemMeta],
    tags: list[str],
) -> CutoffSplit | None:
    if cutoff is None:
        return None
    breakdowns: dict[str, Callable[[ItemMeta], str]] = {
        "library": lambda m: m.library or "unknown",
        "change": lambda m: m.change,
    }
    breakdowns.update({name: functools.partial(_breakdown, name=name) for name in tags})
    return split(cutoff, problem_rates(records), metas, breakdowns)


def deprecation_summary(
    chains: Chains, metas: dict[str, ItemMeta], last: int, top: int = 20
) -> DeprecationSummary | None:
    finals = [r for chain in chains.values() if (r := at_round(chain, last)) is not None]
    captured = [r for r in finals if r.deprecations is not None and r.status not in NOT_SCORED]
    if not captured:
        return None
    passes = [r for r in finals if r.passed]
    uses: Counter[tuple[str, str, bool]] = Counter()
    for record in captured:
        assert record.deprecations is not None
        library = metas[record.problem_id].library if record.problem_id in metas else ""
        named = {d.api or d.message.split(".")[0][:80] for d in record.deprecations.found}
        uses.update((library, api, record.passed) for api in named)
    apis = sorted(
        {(lib, api) for lib, api, _ in uses},
        key=lambda k: (-uses[(*k, True)] - uses[(*k, False)], k),
    )[:top]
    captured_passes = [r for r in captured if r.passed]
    return DeprecationSummary(
        passes=len(passes),
        captured=len(captured_passes),
        clean=sum(r.deprecations is not None and r.deprecations.clean for r in captured_passes),
        deprecated=sum(
            r.deprecations is not None and bool(r.deprecations.found) for r in captured_passes
        ),
        tampered=sum(r.deprecations is not None and r.deprecations.tampered for r in passes),
        apis=[
            DeprecatedApi(
                library=lib,
                api=api,
                passes=uses[(lib, api, True)],
                failures=uses[(lib, api, False)],
            )
            for lib, api in apis
        ],
    )


def _group(name: str, ids: set[str], records: list[SampleRecord], last: int, seeds: int) -> Group:
    members = [r for r in records if r.problem_id in ids]
    scores = score(members, (1,), last, seeds)
    first, final = scores.rounds[0].pass_at[0], scores.rounds[-1].pass_at[0]
    passes = [
        r for chain in chains_of(members).values() if (r := at_round(chain, last)) and r.passed
    ]
    captured = [r.deprecations for r in passes if r.deprecations is not None]
    return Group(
        name=name,
        problems=len(ids),
        baseline=first.mean,
        baseline_std=first.std,
        feedback=final.mean,
        feedback_std=final.std,
        passes=len(passes),
        captured_passes=len(captured),
        deprecated_passes=sum(not d.clean for d in captured),
    )


# Breakdowns that say something only when a run mixes their groups: a Python-only run has no
# use for a plot by language.
_SHOWN_WHEN_MIXED = frozenset({"language"})


def _breakdown(meta: ItemMeta, name: str) -> str:
    return meta.breakdowns.get(name, "none")


def category(record: SampleRecord) -> str:
    """The error category of a failed sample, as the GitChameleon papers tabulate them."""
    return failure_type(record.status, record.exc_type)


def _failed(record: SampleRecord | None) -> TypeGuard[SampleRecord]:
    return record is not None and record.status not in NOT_SCORED and not record.passed


def _errors(chains: Chains, round_: int) -> dict[str, int]:
    counts = Counter(
        category(r) for chain in chains.values() if _failed(r := at_round(chain, round_))
    )
    return {name: counts[name] for name in FAILURE_TYPES if counts[name]}


def _problem_results(chains: Chains, metas: dict[str, ItemMeta], last: int) -> list[ProblemResult]:
    by_problem: dict[str, list[dict[int, SampleRecord]]] = defaultdict(list)
    for (pid, _, _), chain in chains.items():
        by_problem[pid].append(chain)
    results = []
    for pid in sorted(by_problem):
        meta, problem_chains = metas[pid], by_problem[pid]
        first = [at_round(c, 0) for c in problem_chains]
        final = [at_round(c, last) for c in problem_chains]
        errors = Counter(category(r) for r in final if _failed(r))
        results.append(
            ProblemResult(
                id=pid,
                library=meta.library,
                version=meta.version,
                year=meta.year,
                change=meta.change,
                samples=len(problem_chains),
                pass_rate=_rate(first),
                pass_rate_feedback=_rate(final),
                error=errors.most_common(1)[0][0] if errors else "",
                infrastructure=sum(r is not None and r.status in NOT_SCORED for r in final),
            )
        )
    return results


def _rate(records: list[SampleRecord | None]) -> float | None:
    scored = [r for r in records if r is not None and r.status not in NOT_SCORED]
    return sum(r.passed for r in scored) / len(scored) if scored else None


def _add_details(
    store: RunStore,
    chains: Chains,
    problems: list[ProblemResult],
    metas: dict[str, ItemMeta],
    last: int,
) -> None:
    """One representative sample per problem (its first failure at the last round, else its
    first sample): prompt, program, tests and error, each trimmed."""
    chosen: dict[str, SampleRecord] = {}
    for (pid, _, _), chain in sorted(chains.items()):
        record = at_round(chain, last)
        if record is None:
            continue
        if pid not in chosen or (_failed(record) and not _failed(chosen[pid])):
            chosen[pid] = record
    prompts = store.prompts([r.generation_key for r in chosen.values() if r.generation_key])
    for result in problems:
        record = chosen.get(result.id)
        if record is None:
            continue
        request = prompts.get(record.generation_key or "", {})
        meta = metas[result.id]
        result.prompt = _clip(_prompt_text(request))
        result.program = _clip(record.program)
        result.test = _clip(
            "# visible test\n" + meta.visible_test + "\n# hidden test\n" + meta.hidden_test
            if meta.hidden_test
            else ""
        )
        result.trace = _clip(
            f"[{record.status}] " + (record.message or "") + "\n" + (record.feedback or "")
        )


def _prompt_text(request: dict[str, object]) -> str:
    messages = request.get("messages")
    if isinstance(messages, list) and messages:
        return "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}" for m in messages)
    prompt = request.get("prompt")
    return prompt if isinstance(prompt, str) else ""


def _clip(text: str) -> str:
    return text if len(text) <= _DETAIL_CHARS else text[:_DETAIL_CHARS] + "\n[… trimmed]"
