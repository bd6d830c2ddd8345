"""How a test meets the program it tests: the language-neutral description every task, executor
and sandbox passes around (what the test's code is, which file the program is saved as)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)


class TestKind(StrEnum):
    """How a test meets the program under test."""

    __test__ = False  # not a pytest class

    # runs as a script: appended to the program (GitChameleon 1.0, 2.0's visible tests), or,
    # with `module` set, on its own, importing the program saved as `<module>.py`
    SCRIPT = "script"
    PYTEST = "pytest"  # a pytest module importing the program saved as `module` (GitChameleon 2.0)
    REPO = "repo"  # a repository's own tests, with the program written over one of its files
    # a JavaScript module of Jest-, Mocha- or node:test-style tests (`describe`/`test`/`it`,
    # hooks, Jest's `expect`) that requires the program as `./<module>`; run by Node
    JEST = "jest"
    # a repository's own JavaScript/TypeScript test files (Jest, Mocha or node:test style), each
    # run by pinbench's runner in its own Node process, with the program written over one file
    NODE_REPO = "node-repo"
    # a Maven-layout repository's JUnit tests (4, 3 or 5), compiled by javac and run in one JVM
    # of pinbench's runner, with the program written over one file
    JAVA_REPO = "java-repo"
    # a CMake repository's tests (GoogleTest, each test in a process of its own; other CTest
    # tests whole), built by clang, with the program written over one file
    CPP_REPO = "cpp-repo"
    # a C# repository's NUnit tests on Mono (each test in a process of its own), its projects
    # compiled by mcs, with the program written over one file
    CSHARP_REPO = "csharp-repo"

    @property
    def is_repository(self) -> bool:
        """A repository's own suite, run with the program written over one of its files."""
        return self in (
            TestKind.REPO,
            TestKind.NODE_REPO,
            TestKind.JAVA_REPO,
            TestKind.CPP_REPO,
            TestKind.CSHARP_REPO,
        )

    @property
    def builds(self) -> bool:
        """Its run compiles and links a project in the sandbox's scratch (C/C++, C#)."""
        return self in (TestKind.CPP_REPO, TestKind.CSHARP_REPO)


def runner_modules(tests: Iterable[TestSpec | None]) -> tuple[str, ...]:
    """What a warm server must import beside an environment's own modules for these tests:
    pytest when one of them runs under it."""
    return ("pytest",) if any(t is not None and t.runs_under_pytest for t in tests) else ()


class Focal(BaseModel):
    """The function a generated test must call: file, name and the lines its code object may
    start on (its first decorator on Python 3.8+, its `def` before)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    name: str
    lines: tuple[int, ...]


# How an item whose reference fails its test under trusted grading is graded instead: with the
# process-state modules shared, or in the program's own process (`TestSpec.fallbacks`).
Fallback = Literal["shares_state", "in_process"]


class TestSpec(BaseModel):
    """One test of a problem: its code and how it attaches to the program."""

    __test__ = False  # not a pytest class
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: TestKind
    code: str
    module: str | None = Field(
        default=None, description="pytest/script kinds: the module name the program is saved under"
    )
    repo: str | None = Field(default=None, description="repo kinds: the snapshot's digest")
    path: str | None = Field(
        default=None, description="repo kind: the file the program replaces (None: none)"
    )
    select: tuple[str, ...] = Field(
        default=(),
        description="repo kind: pytest node ids or paths to run (empty: all); node-repo kind: "
        "test files, or `file::full test name` ids, to run (the files are needed); java-repo "
        "kind: test files or `file::method` ids; cpp-repo kind: test files or `file::Suite.Test` "
        "ids (`ctest::name` for a CTest test that is not GoogleTest); csharp-repo kind: test files "
        "or `file::Namespace.Fixture.Test` ids",
    )
    focal: Focal | None = Field(
        default=None,
        description="repo kind: a test must call this (cpp-repo: the test at `path` is built "
        "as an executable of its own, linked with the libraries that compile the focal file)",
    )
    trace: bool = Field(default=False, description="repo kind: record what each test calls")
    program_suffix: str | None = Field(
        default=None,
        description="jest kind: the program file's suffix when it is not JavaScript ('.ts')",
    )
    program_builtins: tuple[str, ...] = Field(
        default=(),
        description="script kind, run appended to the program: builtin names the problem's own "
        "starter binds at module level (GitChameleon 2.0's `def eval(app, ...)`), which the "
        "test, written against it, takes from the program; any other builtin is the grader's",
    )
    in_process: bool = Field(
        default=False,
        description="graded in the program's own process (forgeable), because the item's "
        "reference fails this test under trusted grading and passes in one process",
    )
    shares_state: bool = Field(
        default=False,
        description="graded out of the program's process with the state one process would "
        "share shared: the modules that are a process's global state (pyplot) the program's "
        "for the test, and the test's own library objects its globals hold (an app) the test's "
        "for the program, because the item's reference fails this test without that and "
        "passes with it",
    )

    @model_serializer(mode="wrap")
    def _without_default_mode(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)  # unset, it is not written: items and runs keep their digests
        if isinstance(data, dict):
            if not self.in_process:
                data.pop("in_process", None)
            if not self.shares_state:
                data.pop("shares_state", None)
            if self.program_suffix is None:
                data.pop("program_suffix", None)
            if not self.program_builtins:
                data.pop("program_builtins", None)
        return data

    def graded_in_process(self) -> TestSpec:
        return self.model_copy(update={"in_process": True})

    def sharing_state(self) -> TestSpec:
        return self.model_copy(update={"shares_state": True})

    def graded(self, fallback: Fallback) -> TestSpec:
        return self.model_copy(update={fallback: True})

    def fallbacks(self) -> tuple[Fallback, ...]:
        """Under trusted grading, how a test its item's reference fails is tried next, in
        order (the first its reference passes grades the item): a Python test with the
        process-state modules shared (still out of the program's process), then any test in
        the program's own process (forgeable). Named as the item's grading records them."""
        if self.in_process:
            return ()
        if self.kind is TestKind.JEST or self.shares_state:
            return ("in_process",)
        return ("shares_state", "in_process")

    @property
    def graded_outside(self) -> bool:
        """Whether trusted grading can keep the grader out of the program's process: not for a
        repository's own suite, whose tests call the program's code directly (reports list
        those items as graded in the program's process)."""
        return not self.kind.is_repository

    @property
    def runs_under_pytest(self) -> bool:
        """Pytest modules and repositories' suites run under pytest (a warm server imports it)."""
        return self.kind in (TestKind.PYTEST, TestKind.REPO)

    @field_validator("program_suffix")
    @classmethod
    def _known_suffix(cls, value: str | None) -> str | None:
        if value not in (None, ".ts"):
            raise ValueError(f"program_suffix {value!r} is not '.ts'")
        return value

    @field_validator("module")
    @classmethod
    def _module_is_identifier(cls, value: str | None) -> str | None:
        if value is not None and not value.isidentifier():
            raise ValueError(f"module name {value!r} is not a Python identifier")
        return value
