"""IDE cases: one model task on one place of a repository snapshot, for each scenario of the
Copilot Evaluation Harness (doc, fix, generate, test, workspace). A case carries what scoring
needs (the repository's environment, the diagnostic, the covering tests, the focal function,
the relevant snippets) so a dataset of cases runs anywhere its snapshot is."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter

from pinbench.core.env import EnvSpec
from pinbench.core.tests import Focal
from pinbench.tasks.ide.lint import Diagnostic


class Language(StrEnum):
    PYTHON = "python"
    JAVASCRIPT = "javascript"
    TYPESCRIPT = "typescript"
    JAVA = "java"
    CPP = "cpp"  # C and C++
    CSHARP = "csharp"


class Kind(StrEnum):
    DOC = "doc"
    FIX = "fix"
    GENERATE = "generate"
    TEST = "test"
    WORKSPACE = "workspace"


class _Case(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    repo: str = Field(description="the repository's name")
    snapshot: str = Field(description="digest of the repository snapshot")
    env: EnvSpec = Field(description="the repository's resolved environment")
    language: Language = Field(default=Language.PYTHON, description="the language of `path`")
    toolchain_version: str = Field(
        description="the toolchain release the environment has (Python X.Y, Node X.Y.Z, "
        "Java: release and JDK, C/C++: clang, CMake and the language standard, C#: Mono and NUnit)",
        validation_alias=AliasChoices("toolchain_version", "python_version"),
    )
    path: str = Field(description="the file the case is about")
    origin: str = ""


class DocCase(_Case):
    scenario: Literal[Kind.DOC] = Kind.DOC
    qualname: str
    reference: str = Field(description="a docstring that passes both checks")


class FixCase(_Case):
    scenario: Literal[Kind.FIX] = Kind.FIX
    diagnostic: Diagnostic
    region: tuple[int, int] = Field(description="lines the model rewrites (1-based, inclusive)")
    before: int = Field(description="pylint + pyright errors and warnings in the file")
    targeted: int = Field(default=1, description="how many of them are this very diagnostic")


class GenerateCase(_Case):
    scenario: Literal[Kind.GENERATE] = Kind.GENERATE
    qualname: str
    tests: tuple[str, ...] = Field(description="passing tests that call the function")


class TestCase(_Case):
    __test__ = False  # not a pytest class
    scenario: Literal[Kind.TEST] = Kind.TEST
    qualname: str
    focal: Focal
    reference: str = Field(default="", description="a passing test calling it, when one exists")
    test_path: str = Field(
        default="",
        description="JavaScript/TypeScript/Java: the test file the answer is saved as "
        "(Python: appended to `path`)",
    )


class Snippet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="path::qualname")
    path: str
    text: str


class WorkspaceCase(_Case):
    scenario: Literal[Kind.WORKSPACE] = Kind.WORKSPACE
    query: str
    keywords: tuple[str, ...]
    relevant: tuple[str, ...] = Field(description="snippet ids that answer the query")
    candidates: tuple[Snippet, ...] = Field(description="the snippets to rank, in shown order")


Case = Annotated[
    DocCase | FixCase | GenerateCase | TestCase | WorkspaceCase, Field(discriminator="scenario")
]
CASE = TypeAdapter(Case)
