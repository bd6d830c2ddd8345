"""One protocol for every model backend: a `Request` in, a `Generation` out.

A backend never raises for a failed generation: after its retries it returns a `Generation`
with `error` set, which the runner records as an infrastructure outcome (a model API failure is
never scored as a model failure)."""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field


class Mode(StrEnum):
    CHAT = "chat"  # a list of messages; instruct models
    COMPLETION = "completion"  # a raw prompt continued by the model; base models


class Sampling(BaseModel):
    """Sampling parameters of one request. `temperature == 0` means greedy decoding."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float = 0.0
    top_p: float = 0.95
    top_k: int = 50
    max_tokens: int = 256
    seed: int | None = None
    stop: tuple[str, ...] = ()


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    content: str


class Request(BaseModel):
    """What is asked of a model for one sample. `problem_id`, `sample` and `round` identify the
    sample (replay and reference backends answer from them); `messages` (chat) or `prompt`
    (completion) is what a real model sees."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    problem_id: str
    sample: int = 0
    round: int = 0
    mode: Mode = Mode.CHAT
    messages: tuple[Message, ...] = ()
    prompt: str = ""
    sampling: Sampling = Field(default_factory=Sampling)

    def cache_key(self, model: str) -> str:
        """Generations are cached by model + prompt + parameters + sample index: a re-run asks
        the model nothing it already answered."""
        payload = {"model": model, **self.model_dump(mode="json")}
        blob = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()


class Generation(BaseModel):
    """A model's answer (or the reason there is none)."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    finish_reason: str | None = None
    error: str | None = Field(default=None, description="set when no answer was obtained")
    error_kind: str | None = Field(
        default=None,
        description="what kind of failure `error` is, the same for every request that failed the "
        "same way (`connection refused`, `HTTP 401`, `timeout`, ...); None: `error` says it all",
    )
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    attempts: int = 1

    @property
    def failed(self) -> bool:
        return self.error is not None


class ModelError(Exception):
    """A backend that cannot start at all (bad spec, missing optional dependency, weights that
    fail verification): one clear message, raised before any request is made."""


@runtime_checkable
class Model(Protocol):
    """A model backend. `name` identifies the model in caches and reports (two backends that
    answer differently must not share a name)."""

    name: str

    async def generate(self, request: Request) -> Generation: ...

    async def aclose(self) -> None: ...
