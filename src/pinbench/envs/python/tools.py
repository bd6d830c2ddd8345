"""The harness's own tools inside an environment, chosen for the interpreter, not the era.

A problem's dependencies are resolved as of its library's release; pytest is the harness's,
and pytest from 2019 lacks what the runner's plugin uses (`_pytest.reports`), while pytest
6.0 cannot compile its own assertion rewrites on Python 3.10. So each unpinned tool gets a
fixed version per interpreter generation, and it and its own dependencies are exempt from the
as-of date (`--exclude-newer-package`). A problem that pins a tool itself keeps its pin.
"""

from __future__ import annotations

from datetime import date

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# Newest pytest each interpreter generation can run (its requires-python), oldest first.
_PYTEST_BY_PYTHON: tuple[tuple[tuple[int, int], str], ...] = (
    ((3, 6), "7.0.1"),
    ((3, 7), "7.4.4"),
    ((3, 8), "8.3.5"),
    ((3, 9), "8.4.2"),
)
# The tools' own dependencies that only a test runner brings; exempt from the as-of date too.
_TOOL_DEPENDENCIES = {"pytest": ("pytest", "pluggy", "iniconfig", "exceptiongroup", "tomli", "py")}
# The index as of this day is enough for every tool version above (deterministic resolution).
TOOLS_DATE = date(2025, 10, 1)


def tool_pins(extras: tuple[str, ...], pins: tuple[str, ...], python: tuple[int, int]) -> list[str]:
    """Exact pins for the unpinned tools among `extras` on `python`; other extras unchanged."""
    pinned = {canonicalize_name(Requirement(p).name) for p in pins}
    out: list[str] = []
    for extra in extras:
        name = canonicalize_name(Requirement(extra).name)
        if name in pinned:
            continue
        version = _version_for(name, python)
        out.append(f"{name}=={version}" if version and extra == name else extra)
    return out


def exempt_packages(extras: tuple[str, ...], pins: tuple[str, ...]) -> list[str]:
    """Packages resolved as of TOOLS_DATE rather than the problem's date."""
    pinned = {canonicalize_name(Requirement(p).name) for p in pins}
    names: list[str] = []
    for extra in extras:
        name = canonicalize_name(Requirement(extra).name)
        if name not in pinned:
            names.extend(_TOOL_DEPENDENCIES.get(name, ()))
    return list(dict.fromkeys(names))


def _version_for(tool: str, python: tuple[int, int]) -> str | None:
    if tool != "pytest":
        return None
    fitting = [version for minimum, version in _PYTEST_BY_PYTHON if python >= minimum]
    return fitting[-1] if fitting else None
