"""The one outcome vocabulary: what became of a sample (its status), whether that says anything
about the model (infrastructure outcomes do not), and the failure type reports tabulate.
Sandbox, store, metrics and reports all speak it."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Status(StrEnum):
    PASSED = "passed"
    FAILED = "failed"  # the program (or its test) failed: a model failure
    TIMEOUT = "timeout"
    RESOURCE_LIMIT = "resource_limit"  # memory, CPU time, processes, file size or output
    SYNTAX_ERROR = "syntax_error"
    ENVIRONMENT_ERROR = "environment_error"  # infrastructure: env could not be built or used
    HARNESS_ERROR = "harness_error"  # infrastructure: the sandbox itself failed
    MODEL_ERROR = "model_error"  # infrastructure: the model gave no answer
    GENERATED = "generated"  # answered, not executed (--no-execute, or a task with no verdict)
    FLAKY = "flaky"  # re-executed on a problem known flaky, and its outcomes disagreed

    @property
    def is_infrastructure(self) -> bool:
        """Infrastructure outcomes are reported apart and never scored as model failures; a
        resumed run tries them again."""
        return self in INFRASTRUCTURE

    @classmethod
    def of(cls, passed: bool) -> Status:
        """The outcome of a verdict reached without execution."""
        return cls.PASSED if passed else cls.FAILED

    @property
    def is_scored(self) -> bool:
        """Whether the outcome counts in a score's denominator."""
        return self not in NOT_SCORED


INFRASTRUCTURE = frozenset({Status.ENVIRONMENT_ERROR, Status.HARNESS_ERROR, Status.MODEL_ERROR})
NOT_SCORED = frozenset({*INFRASTRUCTURE, Status.GENERATED, Status.FLAKY})

# The failure types of the GitChameleon papers' error tables.
FAILURE_TYPES = (
    "NameError",
    "AttributeError",
    "ImportError",
    "TypeError",
    "ValueError",
    "AssertionError",
    "SyntaxError",
    "IndentationError",
    "Timeout",
    "ResourceLimit",
    "Other",
)


def failure_type(status: Status, exc_type: str | None) -> str:
    """The failure type of a failed outcome."""
    if status is Status.TIMEOUT:
        return "Timeout"
    if status is Status.RESOURCE_LIMIT:
        return "ResourceLimit"
    exc = exc_type or ("SyntaxError" if status is Status.SYNTAX_ERROR else "")
    if exc in ("ModuleNotFoundError", "ImportError"):
        return "ImportError"
    if exc == "TabError":
        return "IndentationError"
    return exc if exc in FAILURE_TYPES else "Other"


class Limits(BaseModel):
    """Resource limits applied to every execution; recorded with each result."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    wall_seconds: float = 60.0
    cpu_seconds: int = 60
    address_space_bytes: int = 4 << 30
    processes: int = 64
    file_size_bytes: int = 64 << 20
    output_bytes: int = 1 << 20
    open_files: int = 256
    tmpfs_bytes: int = 256 << 20


class Deprecation(BaseModel):
    """One deprecation signal a pinned library raised under the program's code."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: str = Field(description="DeprecationWarning, PendingDeprecationWarning, ...")
    message: str = Field(max_length=300)
    api: str | None = Field(default=None, description="the API the message names, if any")
    line: int = Field(description="the program's line the signal came under")
    code: str = Field(default="", max_length=300, description="that line of the program")


class Deprecations(BaseModel):
    """What one execution's deprecation capture found. `tampered`: the program replaced what
    records the signals, so some may be missing: such a pass is never a clean one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    found: tuple[Deprecation, ...] = ()
    tampered: bool = False

    @property
    def clean(self) -> bool:
        return not self.found and not self.tampered


class Execution(BaseModel):
    """What one run of program + test produced, as graded from the runner's proof record."""

    model_config = ConfigDict(extra="forbid")

    status: Status
    exc_type: str | None = None
    message: str = ""
    trace: str = ""
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    seconds: float = 0.0
    tests: dict[str, int] = Field(default_factory=dict)
    details: dict[str, Any] = Field(
        default_factory=dict, description="repo kind: per-test outcomes and calls"
    )
    isolation: str = ""
    path: str = Field(default="cold", description="cold (fresh interpreter) or warm (forked)")
    cached: bool = Field(default=False, description="served from the outcome cache")
    claimed: bool = Field(
        default=False,
        description="an infrastructure outcome resting on what the program's own process "
        "reported (its record or its error text), not on the harness's evidence",
    )
    limits: Limits = Field(default_factory=Limits)
    deprecations: Deprecations | None = Field(
        default=None, description="deprecation signals; None where none were captured"
    )

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED


class Grading(BaseModel):
    """How a run's verdicts were reached, stated with every run and validation (`--json`,
    reports). `trusted` (the default): the test and the verdict are in a process the program
    cannot reach. `in-process` (PINBENCH_GRADING=in-process): the test runs in the program's
    own process, so a program written to defeat the grader can forge a pass; every report says
    so. Runs stored before trusted grading existed read as in-process (they were)."""

    model_config = ConfigDict(frozen=True)

    mode: str = "in-process"  # what runs stored before trusted grading existed were graded by
    forgeable: bool = True
    digest: str = Field(default="", description="the grading code's digest (the cache keys on it)")
    in_process: tuple[str, ...] = Field(
        default=(),
        description="under trusted grading, the items graded in the program's own process "
        "(forgeable) because their reference fails its test out of process and passes in one",
    )
    shares_state: tuple[str, ...] = Field(
        default=(),
        description="under trusted grading, the items graded out of the program's process with "
        "state shared (its pyplot, the process-state module, as the test's; the test's own app "
        "objects as the program's), because their reference needs that: what the test computes "
        "through pyplot is the program's answer",
    )

    def describe(self) -> str:
        warning = " (forgeable: a program written to defeat the grader can fake a pass)"
        text = f"grading: {self.mode}{warning if self.forgeable else ''}"
        if self.in_process and not self.forgeable:
            text += (
                f"; {len(self.in_process)} item(s) in-process, forgeable (their reference "
                "passes only with the test in the program's process)"
            )
        if self.shares_state and not self.forgeable:
            text += (
                f"; {len(self.shares_state)} item(s) with state shared (the program's pyplot "
                "as the test's: what the test computes through it is the program's answer)"
            )
        return text + (f", code {self.digest}" if self.digest else "")
