"""Prompts: what a model is shown for a problem, and the program taken from its answer."""

from pinbench.prompts.extract import compiles, extract_program
from pinbench.prompts.templates import (
    COMPLETION_STOP,
    ERROR_TAIL_CHARS,
    Feedback,
    Style,
    build_request,
    trim_error,
)

__all__ = [
    "COMPLETION_STOP",
    "ERROR_TAIL_CHARS",
    "Feedback",
    "Style",
    "build_request",
    "compiles",
    "extract_program",
    "trim_error",
]
