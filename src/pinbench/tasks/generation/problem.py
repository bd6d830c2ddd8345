"""The generation task's item: one version-pinned coding problem, whatever its source format."""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, ConfigDict, Field, field_validator

from pinbench.core.env import EnvSpec
from pinbench.core.tests import TestSpec
from pinbench.envs.python.spec import pinned_spec, requirement_pins

_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")  # PEP 508's distribution name


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


def _version(value: str) -> str:
    try:
        Version(value)
    except InvalidVersion:
        raise ValueError(f"version {value!r} is not a version (PEP 440)") from None
    return value


def _pins(value: tuple[str, ...]) -> tuple[str, ...]:
    for pin in value:
        try:
            Requirement(pin)
        except InvalidRequirement as exc:
            raise ValueError(f"extra pin {pin!r} is not a requirement: {exc}") from exc
    return value


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

    @field_validator("version")
    @classmethod
    def _version_is_a_version(cls, value: str) -> str:
        return _version(value)

    @field_validator("extra_pins")
    @classmethod
    def _pins_parse(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _pins(value)


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

    @field_validator("library")
    @classmethod
    def _library_is_a_name(cls, value: str) -> str:
        if not _NAME.fullmatch(value):
            raise ValueError(f"library {value!r} is not a distribution name")
        return value

    @field_validator("version")
    @classmethod
    def _version_is_a_version(cls, value: str) -> str:
        return _version(value)

    @field_validator("python_version")
    @classmethod
    def _python_version_shape(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d+\.\d+(\.\d+)?", value):
            raise ValueError(f"python_version {value!r} is not like '3.9'")
        return value

    @field_validator("extra_pins", "harness_pins")
    @classmethod
    def _pins_parse(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _pins(value)

    @field_validator("release_date")
    @classmethod
    def _release_date_shape(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", value):
            raise ValueError(f"release_date {value!r} is not 'YYYY-MM'")
        return value

    @property
    def direct_references(self) -> list[str]:
        """Requirements that name a file, URL or repository rather than an index release:
        building them would run dataset content on the host (refused unless allowed)."""
        contrast = self.contrast.extra_pins if self.contrast else ()
        pins = (*self.extra_pins, *self.harness_pins, *contrast)
        return [pin for pin in pins if Requirement(pin).url is not None]

    @property
    def pins(self) -> tuple[str, ...]:
        """Every requirement of the problem: the library pin first, then the extra pins."""
        return requirement_pins(self.library, self.version, self.extra_pins)


def env_spec_for(problem: Problem, as_of: date | None = None) -> EnvSpec:
    """The environment a problem needs; `as_of` comes from the pins' upload dates when known."""
    return pinned_spec(
        problem.pins,
        problem.python_version,
        (problem.visible_test, problem.hidden_test),
        harness_pins=problem.harness_pins,
        as_of=as_of,
    )
