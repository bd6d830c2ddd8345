"""VersiCode's task family as pinbench models (Wu et al. 2024, "VersiCode: Towards
Version-controllable Code Generation").

A meta-instance is one snippet written against one library version; completion tasks mask a
version-sensitive part of it (token, line or block), editing tasks pair two meta-instances of the
same functionality on different versions and ask for one given the other.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pinbench.core.tests import TestSpec


class Source(StrEnum):
    """Where a snippet comes from: VersiCode's three sources, or pinbench's builtin problems."""

    LIBRARY_SOURCE_CODE = "library_source_code"
    DOWNSTREAM_APPLICATION_CODE = "downstream_application_code"
    STACKOVERFLOW = "stackoverflow"
    BUILTIN = "pinbench_builtin"
    UNKNOWN = "unknown"


class Lifespan(StrEnum):
    """Where the snippet's API stands in its lifespan at the pinned version (VersiCode's `type`):
    just added, deprecated or removed soon after, or neither."""

    ADDITION = "addition"
    DEPRECATION = "deprecation"
    GENERAL = "general"
    UNKNOWN = "unknown"


class Granularity(StrEnum):
    """How much a completion task hides: one identifier, one physical line, or one block."""

    TOKEN = "token"
    LINE = "line"
    BLOCK = "block"

    @property
    def mask(self) -> str:
        """VersiCode's marker: `<token_mask>`, `<line_mask>` or `<block_mask>`."""
        return f"<{self.value}_mask>"


class MetaInstance(BaseModel):
    """One snippet written against one library version, with what is known about it.

    Most snippets pin a version. Some of VersiCode's give a constraint instead ('<0.25',
    '==1.*'): then `constraint` holds it and `version` is None until a release inside it is
    chosen (`VersiCodeScenario` picks the newest on the index when the code must run).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    library: str = Field(min_length=1, description="the distribution name, as pinned")
    version: str | None = Field(
        default=None,
        description="a bare version ('1.2.3'), never a specifier; with a constraint, the "
        "release chosen inside it, or None while none is",
    )
    constraint: str | None = Field(
        default=None,
        description="the PEP 440 specifier set the snippet was published with, "
        "when that is not a pin ('<0.25', '==1.*', '<2,>=1.2')",
    )
    language: str = Field(
        default="python", description="python, javascript or typescript (pinbench's own problems)"
    )
    python_version: str | None = None
    node_version: str | None = Field(default=None, description="JavaScript: the Node release")
    extra_pins: tuple[str, ...] = Field(default=(), description="other requirements of `test`")
    description: str = ""
    code: str
    api: str | None = Field(default=None, description="the version-sensitive API, when known")
    release_date: str | None = Field(default=None, description="'YYYY-MM' of `version`")
    source: Source = Source.UNKNOWN
    lifespan: Lifespan = Lifespan.UNKNOWN
    test: TestSpec | None = Field(
        default=None, description="a test `code` passes in the environment of `version`"
    )
    origin: str = Field(default="", description="'file:line' the snippet was read from")

    @field_validator("version")
    @classmethod
    def _bare_version(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.strip() or re.match(r"\s*[=<>!~]", value):
            raise ValueError(f"version {value!r} is not a bare version")
        return value.strip()

    @field_validator("constraint")
    @classmethod
    def _specifier(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            specifiers = SpecifierSet(value)
        except InvalidSpecifier as exc:
            raise ValueError(f"constraint {value!r} is not a PEP 440 specifier: {exc}") from exc
        if not str(specifiers):
            raise ValueError("constraint is empty")
        return str(specifiers)

    @model_validator(mode="after")
    def _version_or_constraint(self) -> MetaInstance:
        if self.version is None and self.constraint is None:
            raise ValueError("a meta-instance needs a version or a constraint")
        if self.version is not None and self.constraint is not None:
            try:
                inside = Version(self.version) in SpecifierSet(self.constraint)
            except InvalidVersion:
                inside = False
            if not inside:
                raise ValueError(f"version {self.version} is not {self.constraint}")
        return self

    @property
    def requirement(self) -> str:
        """'numpy==1.26.0', or as published for a constraint: 'numpy<2' (even once a release
        inside it is chosen: the task asks for code that works with the constraint)."""
        if self.constraint is not None:
            return f"{self.library}{self.constraint}"
        if self.language != "python":
            return (
                f"Node {self.version}"
                if self.library == "node"
                else f"{self.library}@{self.version}"
            )
        return f"{self.library}=={self.version}"

    @field_validator("release_date")
    @classmethod
    def _year_month(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", value):
            raise ValueError(f"release_date {value!r} is not 'YYYY-MM'")
        return value


class CompletionTask(BaseModel):
    """Version-specific code completion: fill the masked part of `meta.code`.

    Every mask marker in `masked_code` stands for `answer` (VersiCode masks each occurrence of a
    token; pinbench's own masking masks one), so `restore()` gives back `meta.code` (for items
    read from VersiCode's files, up to trailing blanks on a line).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    meta: MetaInstance
    granularity: Granularity
    masked_code: str
    answer: str = Field(min_length=1, description="the masked text, exactly as in the code")
    api: str = Field(description="the version-sensitive name (VersiCode's `answer` field)")
    masked_line: str = Field(
        description="line-level context: the full line, stripped, that holds the masked token or "
        "line (for a block, the line of it that holds `api`)"
    )
    whole_program: bool = Field(
        default=False,
        description="VersiCode's block level as its scripts run it: the model writes the whole "
        "program from the description and requirement, scored against `meta.code`; "
        "`masked_code` and `answer` keep the core line VersiCode marks in it",
    )
    mask: str = Field(
        default="",
        description="the marker in `masked_code`; default: the granularity's. VersiCode's "
        "published block-level files mask with <line_mask>, not <block_mask>",
    )

    @model_validator(mode="before")
    @classmethod
    def _default_mask(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("mask") and "granularity" in data:
            return {**data, "mask": Granularity(data["granularity"]).mask}
        return data

    @model_validator(mode="after")
    def _mask_in_code(self) -> CompletionTask:
        if self.mask not in {g.mask for g in Granularity}:
            raise ValueError(f"mask {self.mask!r} is none of VersiCode's markers")
        if self.mask not in self.masked_code:
            raise ValueError(f"masked_code has no {self.mask}")
        return self

    @property
    def source(self) -> Source:
        return self.meta.source

    @property
    def lifespan(self) -> Lifespan:
        return self.meta.lifespan

    @property
    def origin(self) -> str:
        return self.meta.origin

    def restore(self, answer: str | None = None) -> str:
        """The program with `answer` (default: the reference answer) in place of every mask."""
        return self.masked_code.replace(self.mask, self.answer if answer is None else answer)

    @property
    def reference(self) -> str:
        """What an answer is scored against: the masked text, or the whole program."""
        return self.meta.code if self.whole_program else self.answer

    def program(self, answer: str) -> str:
        """The program an answer makes: the answer itself, or the code with it put back."""
        return answer if self.whole_program else self.restore(answer)


class EditDirection(StrEnum):
    """Which way an editing task goes between the two versions."""

    OLD_TO_NEW = "old_to_new"
    NEW_TO_OLD = "new_to_old"


class Transition(StrEnum):
    """The kinds of the two versions an edit goes between, in editing order (from, to).

    A version is *major* when its release numbers after the first are all zero (2, 2.0, 2.0.0,
    2.0.0rc1) and *minor* otherwise (2.1, 1.26.4, 0.22.2.post1); VersiCode's paper splits editing
    results by these four combinations. UNKNOWN: a version `packaging` cannot parse, or a side
    given by a constraint with no release chosen.
    """

    MAJOR_TO_MAJOR = "major_to_major"
    MAJOR_TO_MINOR = "major_to_minor"
    MINOR_TO_MAJOR = "minor_to_major"
    MINOR_TO_MINOR = "minor_to_minor"
    UNKNOWN = "unknown"

    @classmethod
    def between(cls, start: str | None, end: str | None) -> Transition:
        """The transition of an edit from version `start` to version `end`."""
        kinds = (_version_kind(start), _version_kind(end))
        if None in kinds:
            return cls.UNKNOWN
        return cls(f"{kinds[0]}_to_{kinds[1]}")


def _version_kind(version: str | None) -> str | None:
    if version is None:
        return None
    try:
        release = Version(version).release
    except InvalidVersion:
        return None
    return "major" if not any(release[1:]) else "minor"


class EditTask(BaseModel):
    """Version-aware code editing: rewrite the code of one version for the other.

    `from_meta` is the side edited from (its code is the input), `to_meta` the side edited to
    (its code is the reference answer); `direction` says which of `old`/`new` each is.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    old: MetaInstance
    new: MetaInstance
    direction: EditDirection
    transition: Transition
    source: Source = Source.UNKNOWN
    origin: str = ""

    @property
    def from_meta(self) -> MetaInstance:
        return self.old if self.direction is EditDirection.OLD_TO_NEW else self.new

    @property
    def to_meta(self) -> MetaInstance:
        return self.new if self.direction is EditDirection.OLD_TO_NEW else self.old


def edit_task(
    task_id: str,
    old: MetaInstance,
    new: MetaInstance,
    direction: EditDirection,
    *,
    source: Source | None = None,
    origin: str | None = None,
) -> EditTask:
    """An editing task with its transition computed from the versions in editing order."""
    start, end = (old, new) if direction is EditDirection.OLD_TO_NEW else (new, old)
    return EditTask(
        id=task_id,
        old=old,
        new=new,
        direction=direction,
        transition=Transition.between(start.version, end.version),
        source=source if source is not None else old.source,
        origin=origin if origin is not None else old.origin,
    )
