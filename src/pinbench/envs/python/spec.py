"""The environment spec of a Python library pin: `library==version` first, then the other pins
sorted, pytest beside them when a test runs under it, and a dataset harness's own installs."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from pinbench.core.env import EnvSpec
from pinbench.core.tests import TestSpec


def requirement_pins(library: str, version: str, extra_pins: Iterable[str]) -> tuple[str, ...]:
    """The library pin first, then the extra pins that are not the library itself."""
    main_name = canonicalize_name(library)
    extras = tuple(p for p in extra_pins if canonicalize_name(Requirement(p).name) != main_name)
    return (f"{library}=={version}", *extras)


def pinned_spec(
    pins: tuple[str, ...],
    python: str | None,
    tests: Iterable[TestSpec | None],
    *,
    harness_pins: tuple[str, ...] = (),
    as_of: date | None = None,
) -> EnvSpec:
    """The environment of `pins` (the library pin first) for programs meeting `tests`."""
    needs_pytest = any(t is not None and t.runs_under_pytest for t in tests)
    harness = {canonicalize_name(Requirement(p).name) for p in harness_pins}
    return EnvSpec(
        version=python,
        pins=(pins[0], *sorted(pins[1:], key=str.lower)),
        extras=("pytest",) if needs_pytest and "pytest" not in harness else (),
        as_of=as_of,
        harness=harness_pins,
    )
