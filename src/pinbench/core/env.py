"""What an environment must contain: a toolchain at a version, pinned packages and an as-of date.
Hashed with the toolchain actually used, it is the environment's content key."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Protocol

from pydantic import AliasChoices, BaseModel, ConfigDict, Field


class EnvError(Exception):
    """An environment could not be provided; an *environment* outcome, never a model failure."""

    def __init__(self, message: str, log: Path | None = None) -> None:
        super().__init__(message)
        self.log = log


class EnvSpec(BaseModel):
    """What an environment must contain; hashed with the toolchain release used, it is the
    environment's key. The toolchain module named by `toolchain` builds it (`pinbench.envs`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    toolchain: str = Field(default="python", description="the toolchain module that builds it")
    version: str | None = Field(
        description="the toolchain version requested (Python: 'X.Y'); None: the toolchain chooses",
        # specs written before toolchains (IDE case files) name it `python`
        validation_alias=AliasChoices("version", "python"),
    )
    pins: tuple[str, ...]
    extras: tuple[str, ...] = Field(
        default=(), description="unpinned helpers the harness needs (pytest for pytest-style tests)"
    )
    as_of: date | None = Field(
        default=None, description="resolve dependencies as of this date (uv --exclude-newer)"
    )
    harness: tuple[str, ...] = Field(
        default=(),
        description="a dataset harness's own installs, made after the pins in a second step "
        "as that harness makes them (they may move the pins' dependencies)",
    )


class Environment(Protocol):
    """A built environment, whatever its toolchain: what the execution layer and the sandbox
    need of it, and nothing more."""

    @property
    def key(self) -> str: ...

    @property
    def path(self) -> Path: ...

    @property
    def interpreter(self) -> Path:
        """The executable that runs the sandbox's runner."""
        ...

    @property
    def spec(self) -> EnvSpec: ...

    @property
    def reused(self) -> bool:
        """Whether it was already built (by this process or an earlier one)."""
        ...

    def preload(self) -> tuple[str, ...]:
        """What a warm server for this environment loads before it forks executions: the
        pinned packages' own modules, whose values also cross trusted grading as copies."""
        ...
