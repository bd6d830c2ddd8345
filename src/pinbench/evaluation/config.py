"""A run's identity and its summary: everything that determines a run's results (hashed, it is
the run id, so the same command names the same run and resumes it), and what it reports."""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pinbench.core.outcome import Grading
from pinbench.metrics.scores import Scores
from pinbench.models.base import Sampling
from pinbench.tasks.generation.templates import COMPLETION_STOP, Style
from pinbench.tasks.registry import TASKS
from pinbench.tasks.versicode.metrics import Variant
from pinbench.tasks.versicode.model import Granularity


class RunConfig(BaseModel):
    """Everything that determines a run's results; its hash is the run id, so the same command
    names the same run and resumes it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = "embedded"
    base_url: str | None = None
    dataset: str = "builtin"
    dataset_format: str | None = None
    split: str = "default"
    language: str | None = None
    only: tuple[str, ...] = ()
    n: int = Field(default=1, ge=1)
    k: tuple[int, ...] = (1,)
    temperature: float = Field(default=0.0, ge=0.0)
    top_p: float = 0.95
    top_k: int = 50
    max_tokens: int = Field(default=256, ge=1)
    seeds: int = Field(default=1, ge=1)
    feedback_rounds: int = Field(default=0, ge=0)
    doc_prompting: bool = False
    cot: bool = False
    style: Style = Style.INSTRUCT
    task: str = Field(default="generation", description="a registered task (tasks.registry)")
    granularity: tuple[Granularity, ...] = Field(
        default=(), description="completion: token/line/block"
    )
    metric_variant: Variant = Field(
        default=Variant.VERSICODE, description="string metrics' definition"
    )
    timeout_cap: float = 60.0
    flaky_runs: int = Field(
        default=3, ge=2, description="executions of a sample of a problem known flaky"
    )
    execute: bool = True
    problems_digest: str = Field(
        default="", description="hash of the selected problems: an edited dataset is a new run"
    )

    @field_validator("task")
    @classmethod
    def _registered(cls, value: str) -> str:
        if value not in TASKS:
            raise ValueError(f"unknown task {value!r} ({', '.join(TASKS)})")
        return value

    @property
    def run_id(self) -> str:
        fields = self.model_dump(mode="json")
        if fields["language"] is None:  # runs from before --language keep their ids
            del fields["language"]
        if fields["flaky_runs"] == 3:  # ... and those from before --flaky-runs
            del fields["flaky_runs"]
        blob = json.dumps(fields, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    def sampling(self, seed: int, sample: int) -> Sampling:
        """Each (seed, sample) gets its own request seed, so samples differ and repeat exactly."""
        stop = COMPLETION_STOP if self.style is Style.COMPLETION else ()
        return Sampling(
            temperature=self.temperature,
            top_p=self.top_p,
            top_k=self.top_k,
            max_tokens=self.max_tokens,
            seed=seed * 1_000_003 + sample,
            stop=stop,
        )


class ModelErrors(BaseModel):
    """This invocation's samples that got no answer from the model, of one kind of failure."""

    kind: str = Field(description="e.g. `connection refused`, `HTTP 401`, `timeout`")
    samples: int
    first: str = Field(description="the first such error, as the backend reported it")


class RunSummary(BaseModel):
    run_id: str
    model: str
    model_name: str
    dataset: str
    split: str
    config: RunConfig
    scores: Scores
    requests: dict[str, int] = Field(description="this invocation's: asked, cached, errors")
    wall_seconds: float
    resumed: bool
    notes: list[str] = Field(default_factory=list)
    model_errors: list[ModelErrors] = Field(
        default_factory=list, description="this invocation's model errors, by kind, most first"
    )
    grading: Grading = Field(default_factory=Grading, description="how verdicts were reached")
