"""What the build agents learn about a repository, whatever its ecosystem: the baseline run of
its suite (per-test outcomes, the functions each test called) and the recorded build."""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field

from pinbench.core.env import Environment, EnvSpec
from pinbench.core.outcome import Limits, Status
from pinbench.core.tests import TestSpec
from pinbench.execution.local import ExecutionService

BUILD_VERSION = 1
SUITE_LIMIT_SECONDS = 600.0  # a suite slower than this is rejected


class RepoRejected(Exception):
    """The repository cannot serve as a source of cases; the message says why."""


class BuildTarget(BaseModel):
    """A target of the repository's build (C/C++: CMake's), as its build system reports it."""

    type: str  # EXECUTABLE, STATIC_LIBRARY, SHARED_LIBRARY, ...
    sources: list[str]  # repository paths

    @property
    def library(self) -> bool:
        return self.type.endswith("_LIBRARY")


class Baseline(BaseModel):
    """The suite's run before any change: per-test outcomes and function-level coverage."""

    outcomes: dict[str, str]  # node id -> passed / failed / skipped
    functions: list[str]  # "path:first_line:name" of every repository function a test called
    calls: dict[str, list[int]]  # node id -> indexes into `functions`
    seconds: float
    collect_errors: list[str] = Field(default_factory=list)
    targets: dict[str, BuildTarget] = Field(
        default_factory=dict, description="C/C++: the build's targets and their sources"
    )

    @property
    def passing(self) -> list[str]:
        return sorted(n for n, o in self.outcomes.items() if o == "passed")

    def covering(self, path: str, name: str, lines: set[int]) -> list[str]:
        """Passing tests that called the function `name` of `path` starting on one of `lines`."""
        wanted = set()
        for index, function in enumerate(self.functions):
            rel, line, fname = function.rsplit(":", 2)
            if rel == path and int(line) in lines and same_function(fname, name):
                wanted.add(index)
        return sorted(
            n
            for n, ids in self.calls.items()
            if self.outcomes.get(n) == "passed" and wanted.intersection(ids)
        )


def same_function(recorded: str, name: str) -> bool:
    """Whether a recorded function name is `name`: Python's code object says `name`; V8 says
    `name`, `Class.name`, `get name`, the class for a constructor, or nothing for an anonymous
    function (the line decides)."""
    short = recorded.rsplit(".", 1)[-1].rsplit(" ", 1)[-1]
    return short in (name, "") or name == "constructor"  # V8 names it after its class


class RepoBuild(BaseModel):
    """What `pinbench ide collect` learnt about a repository; stored with its cases."""

    version: int = BUILD_VERSION
    name: str
    snapshot: str
    sources: list[str] = Field(description="files the dependencies were read from")
    requirements: list[str] = Field(description="as declared")
    env: EnvSpec = Field(description="the resolution: exact pins")
    ecosystem: str = Field(default="python", description="python, node, java or cpp")
    toolchain_version: str = Field(
        description="the toolchain the environment has (Python X.Y, Node X.Y.Z, "
        "Java: release and JDK, C/C++: clang, CMake and the language standard)",
        validation_alias=AliasChoices("toolchain_version", "python_version"),
    )
    env_key: str
    baseline: Baseline
    notes: list[str] = Field(default_factory=list)


def run_suite(
    env: Environment, test: TestSpec, service: ExecutionService, preload: tuple[str, ...]
) -> Baseline:
    """The repository's suite run once in the sandbox (10 minutes at most): the baseline;
    RepoRejected when it cannot run or takes longer."""
    limits = Limits(
        wall_seconds=SUITE_LIMIT_SECONDS,
        cpu_seconds=int(SUITE_LIMIT_SECONDS),
        address_space_bytes=8 << 30,
        processes=256,
    )
    result = service.run(env, "", test, limits, preload)
    if result.status is Status.TIMEOUT:
        raise RepoRejected(f"its tests take over {SUITE_LIMIT_SECONDS / 60:g} minutes")
    if result.status.is_infrastructure or not result.details:
        why = result.message or result.stderr.strip()[-500:] or result.status.value
        raise RepoRejected(f"its test suite could not run: {why}")
    details = result.details
    return Baseline(
        outcomes=details.get("outcomes", {}),
        functions=details.get("functions", []),
        calls=details.get("calls", {}),
        seconds=round(result.seconds, 3),
        collect_errors=details.get("collect_errors", []),
        targets=details.get("targets", {}),
    )
