"""The one unit a run schedules, whatever the task: an item carries the task's own payload (a
generation problem, a VersiCode task, an IDE case) beside what the core needs of it — where
its programs run, the tests they meet, the reference program that calibrates deadlines, and
the metadata reports break scores down by."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from pinbench.core.env import EnvSpec
from pinbench.core.records import ItemMeta
from pinbench.core.tests import TestSpec

P = TypeVar("P", bound=BaseModel)


@dataclass(frozen=True)
class Item(Generic[P]):
    """One schedulable unit. `env` and `hidden_test` are both set when the item's programs are
    executed; without them it is scored from its string metrics alone."""

    payload: P
    meta: ItemMeta
    env: EnvSpec | None = None
    hidden_test: TestSpec | None = None
    visible_test: TestSpec | None = field(default=None)
    reference: str = field(default="", repr=False)
    preload: tuple[str, ...] = ()  # what a warm server imports beside the environment's own
    min_cap_seconds: float = 0.0  # the wall cap its executions need at least (a suite's build)

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def executable(self) -> bool:
        return self.env is not None and self.hidden_test is not None


def items_digest(items: list[Item[BaseModel]]) -> str:
    """A hash of the items' payloads: an edited dataset is a new run. Where they came from (a
    file and line, at any depth of the payload) is not part of it, so a checkout elsewhere
    names the same run."""
    digest = hashlib.sha256()
    for item in items:
        digest.update(item.payload.model_dump_json(exclude=_origins(item.payload)).encode())
    return digest.hexdigest()[:16]


def _origins(model: BaseModel) -> dict[str, Any]:
    """pydantic's `exclude` for every `origin` field of the model and of the models in it."""
    spec: dict[str, Any] = {}
    for name in type(model).model_fields:
        value = getattr(model, name)
        if name == "origin":
            spec[name] = True
        elif isinstance(value, BaseModel) and (inner := _origins(value)):
            spec[name] = inner
        elif (
            isinstance(value, list | tuple)
            and value
            and isinstance(value[0], BaseModel)
            and (inner := _origins(value[0]))
        ):
            spec[name] = {"__all__": inner}
    return spec
