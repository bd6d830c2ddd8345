"""VersiCode's tasks in pinbench: version-specific code completion and version-aware editing."""

from pinbench.versicode.model import (
    CompletionTask,
    EditDirection,
    EditTask,
    Granularity,
    Lifespan,
    MetaInstance,
    Source,
    Transition,
)

__all__ = [
    "CompletionTask",
    "EditDirection",
    "EditTask",
    "Granularity",
    "Lifespan",
    "MetaInstance",
    "Source",
    "Transition",
]
