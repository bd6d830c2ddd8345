"""The `--json` document of `pinbench mine` (schema: docs/mine-json.md)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from pinbench.core.version import VERSION
from pinbench.mining.lifespans import Change


class MinedVersion(BaseModel):
    version: str
    apis: int = Field(description="public APIs found (0 when the version could not be mined)")
    failed_modules: dict[str, str] = Field(description="module -> why it did not import")
    error: str | None = Field(description="why the version could not be mined at all")


class MineRun(BaseModel):
    """The `--json` document of `pinbench mine` (schema: docs/mine-json.md)."""

    schema_version: int = 1
    pinbench_version: str = VERSION
    library: str
    python: str | None
    started_at: str
    seconds: float
    out: str = Field(description="the directory the lifespans and candidates were written to")
    files: list[str]
    versions: list[MinedVersion]
    summary: dict[str, dict[str, int]] = Field(description="version -> change kind -> count")
    lifespans: int
    candidates: int
    changes: list[Change]
