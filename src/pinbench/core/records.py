"""What a run records: one sample's outcome at one round, and what reports need of each item.
Task-neutral: a task's breakdowns arrive as typed metadata, never as tag strings to decode."""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, Field, model_validator

from pinbench.core.outcome import Deprecations, Status


class SampleRecord(BaseModel):
    """One sample at one feedback round: what was generated, extracted and how it ran.
    `feedback` is the visible test's error output that the next round's prompt shows (empty
    when the visible test passed)."""

    problem_id: str
    seed: int
    sample: int
    round: int
    generation_key: str | None = None
    program: str = ""
    compiles: bool = False
    status: Status
    visible_status: Status | None = None
    exc_type: str | None = None
    message: str = ""
    feedback: str = ""
    env_key: str | None = None
    deadline: float | None = None
    seconds: float = 0.0
    metrics: dict[str, float] = Field(
        default_factory=dict, description="the task's string metrics of the answer"
    )
    deprecations: Deprecations | None = Field(
        default=None, description="the hidden test's deprecation signals, where captured"
    )
    reruns: tuple[Status, ...] = Field(
        default=(), description="every outcome of a sample of a problem known flaky"
    )

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED


# Before tasks declared their breakdowns, VersiCode and IDE items carried them as
# `PREFIX NAME:VALUE` tags; items of runs stored then are read into `breakdowns` here.
_TAGGED_BREAKDOWNS = {
    "versicode/": ("source", "lifespan", "granularity", "transition", "direction"),
    "ide/": ("scenario", "repo"),
}


class ItemMeta(BaseModel):
    """What reports need of an item, kept with the run so a report never needs the dataset."""

    id: str
    library: str = Field(default="", description="what the item pins (a library, a repository)")
    version: str = ""
    toolchain: str = "python"
    toolchain_version: str | None = Field(
        default=None, validation_alias=AliasChoices("toolchain_version", "python")
    )
    release_date: str | None = None
    change: str = "unknown"
    problem: str = ""
    visible_test: str = ""
    hidden_test: str = ""
    tags: tuple[str, ...] = ()
    breakdowns: dict[str, str] = Field(
        default_factory=dict,
        description="the task's report breakdowns of this item, in the order it declares them "
        "(VersiCode: source, lifespan, granularity or transition and direction; IDE: scenario, "
        "repo)",
    )

    @property
    def year(self) -> str:
        return self.release_date[:4] if self.release_date else "unknown"

    @model_validator(mode="before")
    @classmethod
    def _breakdowns_from_tags(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "breakdowns" in data:
            return data
        found: dict[str, str] = {}
        for prefix, names in _TAGGED_BREAKDOWNS.items():
            for name in names:
                marker = f"{prefix}{name}:"
                value = next(
                    (t[len(marker) :] for t in data.get("tags", ()) if t.startswith(marker)), None
                )
                if value is not None:
                    found[name] = value
        return {**data, "breakdowns": found}
