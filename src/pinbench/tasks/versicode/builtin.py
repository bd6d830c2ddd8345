"""VersiCode-style tasks derived from pinbench's builtin problems.

A builtin problem pins `library==version`; its contrast names another version where the
reference must fail and, for most problems, that version's own solution. The two solutions are
one functionality in two API generations: an editing pair, each side with a test. Completion
tasks mask, in the reference solution, the API use on the lines where the two solutions differ.

Where each meta-instance's test runs:
- the pinned side (`pinned_meta`): the problem's own environment, `env_spec_for(problem)`
  (library==version, the problem's python_version and extra_pins);
- the contrast side (`contrast_meta`): the contrast environment, `validate.contrast_spec_for`
  (library==contrast.version, contrast.python_version and contrast.extra_pins, each defaulting to
  the problem's). It is the problem's hidden test, which `validate --discriminative` expects the
  contrast solution to pass there (check `contrast_solution_passes`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.versicode.masking import completion_tasks
from pinbench.tasks.versicode.model import (
    CompletionTask,
    EditDirection,
    EditTask,
    Lifespan,
    MetaInstance,
    Source,
    edit_task,
)


@dataclass
class BuiltinTasks:
    """The tasks derived from a set of problems, and one line per task that could not be."""

    completion: list[CompletionTask] = field(default_factory=list)
    editing: list[EditTask] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def derive(problems: Iterable[Problem]) -> BuiltinTasks:
    """Completion tasks (three granularities) and editing tasks (both directions) per problem.

    Without a contrast solution there is no diff: completion masks the problem's first `api:`
    tag instead, and there is no editing pair.
    """
    derived = BuiltinTasks()
    for problem in problems:
        pinned = pinned_meta(problem)
        contrast = contrast_meta(problem)
        other = contrast.code if contrast is not None else None
        masked = completion_tasks(pinned, problem.id, other=other)
        derived.completion.extend(masked.tasks)
        derived.skipped.extend(f"{problem.id}/{g}: {why}" for g, why in masked.skipped.items())
        if contrast is None:
            derived.skipped.append(f"{problem.id}/edit: no contrast solution")
        else:
            derived.editing.extend(editing_pair(problem.id, pinned, contrast))
    return derived


def editing_pair(problem_id: str, pinned: MetaInstance, contrast: MetaInstance) -> list[EditTask]:
    """Both directions between the two sides, old and new by version order."""
    old, new = (contrast, pinned) if _newer(pinned, contrast) else (pinned, contrast)
    return [
        edit_task(f"{problem_id}/edit/{direction}", old, new, direction)
        for direction in EditDirection
    ]


def pinned_meta(problem: Problem) -> MetaInstance:
    """The reference solution on the pinned version; its test runs in the problem's environment."""
    contrast = problem.contrast
    return MetaInstance(
        library=problem.library,
        version=problem.version,
        language=problem.language.value,
        python_version=problem.python_version,
        node_version=problem.node_version,
        extra_pins=problem.extra_pins,
        description=problem.problem,
        code=problem.solution,
        api=_api_tag(problem),
        release_date=problem.release_date,
        source=Source.BUILTIN,
        lifespan=_lifespan(problem.version, contrast.version if contrast else None),
        test=problem.hidden_test,
        origin=problem.origin,
    )


def contrast_meta(problem: Problem) -> MetaInstance | None:
    """The contrast solution on the contrast version, None without one; its test (the problem's
    hidden test) runs in the contrast environment."""
    contrast = problem.contrast
    if contrast is None or contrast.solution is None:
        return None
    return MetaInstance(
        library=problem.library,
        version=contrast.version,
        language=problem.language.value,
        python_version=contrast.python_version or problem.python_version,
        node_version=contrast.node_version or problem.node_version,
        extra_pins=contrast.extra_pins or problem.extra_pins,
        description=problem.problem,
        code=contrast.solution,
        source=Source.BUILTIN,
        lifespan=_lifespan(contrast.version, problem.version),
        test=problem.hidden_test,
        origin=problem.origin,
    )


def _api_tag(problem: Problem) -> str | None:
    return next((t.removeprefix("api:") for t in problem.tags if t.startswith("api:")), None)


def _lifespan(version: str | None, other: str | None) -> Lifespan:
    """ADDITION when the other version is older (this code uses what came later), DEPRECATION when
    it is newer (this code uses what went away), as VersiCode tags its snippets."""
    if version is None or other is None:
        return Lifespan.UNKNOWN
    try:
        mine, theirs = Version(version), Version(other)
    except InvalidVersion:
        return Lifespan.UNKNOWN
    if mine == theirs:
        return Lifespan.UNKNOWN
    return Lifespan.ADDITION if mine > theirs else Lifespan.DEPRECATION


def _newer(first: MetaInstance, second: MetaInstance) -> bool:
    return _lifespan(first.version, second.version) is Lifespan.ADDITION
