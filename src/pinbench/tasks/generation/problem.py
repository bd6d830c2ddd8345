"""The generation task's item: one version-pinned coding problem, whatever its source format."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from pydantic import BaseModel, ConfigDict, Field, field_validator

from pinbench.core.env import EnvSpec
from pinbench.core.tests import TestKind, TestSpec


class ChangeCategory(StrEnum):
    """The four kinds of version change a problem exercises (GitChameleon's taxonomy)."""

    ARGUMENT = "argument_or_attribute_change"
    NAME = "function_name_change"
    SEMANTICS = "semantics_or_behaviour_change"
    FEATURE = "new_feature_or_additional_dependency"
    UNKNOWN = "unknown"


class ChangeType(BaseModel):
    """A normalised change category with the dataset's raw wording kept for audit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: ChangeCategory
    raw: str = ""


class Contrast(BaseModel):
    """Another version of the same library, where the reference solution must fail: it proves a
    problem depends on the version it pins (`validate --discriminative`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str
    python_version: str | None = Field(default=None, description="default: the problem's")
    extra_pins: tuple[str, ...] = Field(default=(), description="default: the problem's")
    solution: str | None = Field(
        default=None, description="a complete program solving the problem on this version"
    )


class Problem(BaseModel):
    """One version-pinned coding problem."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    library: str
    version: str
    python_version: str | None = Field(
        default=None, description="'3.9'-style; None lets the environment layer choose"
    )
    extra_pins: tuple[str, ...] = ()
    harness_pins: tuple[str, ...] = Field(
        default=(),
        description="what the dataset's own harness installs beside the pins (its pytest, "
        "numpy, ...): installed too, but not part of the era the pins set",
    )
    problem: str
    starter_code: str = ""
    solution: str = Field(description="the reference program, complete (starter code included)")
    visible_test: TestSpec | None = None
    hidden_test: TestSpec
    extra_tests: dict[str, TestSpec] = Field(
        default_factory=dict,
        description="further tests `validate` runs the reference against (never shown or scored)",
    )
    change: ChangeType = ChangeType(category=ChangeCategory.UNKNOWN)
    release_date: str | None = Field(default=None, description="'YYYY-MM' or None when unknown")
    docs: str = ""
    tags: tuple[str, ...] = ()
    source: str = Field(default="", description="the changelog entry or release note it is from")
    contrast: Contrast | None = None
    origin: str = Field(default="", description="file:line the problem was read from")

    @field_validator("python_version")
    @classmethod
    def _python_version_shape(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d+\.\d+(\.\d+)?", value):
            raise ValueError(f"python_version {value!r} is not like '3.9'")
        return value

    @field_validator("extra_pins")
    @classmethod
    def _pins_parse(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pin in value:
            try:
                Requirement(pin)
            except InvalidRequirement as exc:
                raise ValueError(f"extra pin {pin!r} is not a requirement: {exc}") from exc
        return value

    @field_validator("release_date")
    @classmethod
    def _release_date_shape(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", value):
            raise ValueError(f"release_date {value!r} is not 'YYYY-MM'")
        return value

    @property
    def pins(self) -> tuple[str, ...]:
        """Every requirement of the problem: the library pin first, then the extra pins."""
        main = f"{self.library}=={self.version}"
        main_name = canonicalize_name(self.library)
        extras = tuple(
            p for p in self.extra_pins if canonicalize_name(Requirement(p).name) != main_name
        )
        return (main, *extras)


def env_spec_for(problem: Problem, as_of: date | None = None) -> EnvSpec:
    """The environment a problem needs; `as_of` comes from the pins' upload dates when known."""
    needs_pytest = any(
        t is not None and t.kind in (TestKind.PYTEST, TestKind.REPO)
        for t in (problem.visible_test, problem.hidden_test)
    )
    pins = tuple(sorted(problem.pins[1:], key=str.lower))
    harness = {canonicalize_name(Requirement(p).name) for p in problem.harness_pins}
    return EnvSpec(
        version=problem.python_version,
        pins=(problem.pins[0], *pins),
        extras=("pytest",) if needs_pytest and "pytest" not in harness else (),
        as_of=as_of,
        harness=problem.harness_pins,
    )
