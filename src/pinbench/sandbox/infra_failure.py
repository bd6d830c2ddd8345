"""Failures caused by what the machine lacks, not by the program: a system library, a system
tool, or downloadable data. They are environment outcomes, never scored as model failures."""

from __future__ import annotations

import re

# (pattern over "ExcType: message", what is missing)
_MISSING = (
    (re.compile(r"lib[\w.+-]*\.so[\w.]*: cannot open shared object file"), "a system library"),
    (
        re.compile(r"(sndfile|portaudio|ffi|GL|glib|cairo) library not found", re.I),
        "a system library",
    ),
    (re.compile(r"cannot load library '?lib", re.I), "a system library"),
    (
        re.compile(
            r"FileNotFoundError: \[Errno 2\] No such file or directory: "
            r"'(ffmpeg|ffprobe|sox|avconv|tesseract|java|node|git|gs|convert|latex|dot)'"
        ),
        "a system tool",
    ),
    (re.compile(r"(ffmpeg|ffprobe)\W.*not (found|installed)", re.I), "a system tool"),
    (
        re.compile(r"Cannot find module '[^'\n]*\.node'"),
        "a native addon (npm install scripts are not run)",
    ),
    (re.compile(r"Resource .*not found.*nltk", re.I | re.S), "NLTK data"),
    (re.compile(r"nltk\.download\(", re.I), "NLTK data"),
)


def missing_resource(exc_type: str | None, message: str, trace: str = "") -> str | None:
    """What the environment lacks, when a failure says so; None for a genuine failure."""
    text = f"{exc_type or ''}: {message}\n{trace[-2000:]}"
    for pattern, what in _MISSING:
        found = pattern.search(text)
        if found:
            return f"environment lacks {what}: {found.group(0)[:200]}"
    return None
