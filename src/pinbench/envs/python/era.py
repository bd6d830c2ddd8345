"""The as-of date as a preference for the era, bounded below by what has wheels.

A problem's dependencies are resolved as of its pins' release (`--exclude-newer`), so an old
pin gets period-correct dependencies. But an old era may have no wheels for the interpreter
the problem pins (numpy of 2020 on Python 3.10): resolving there compiles numpy from source,
which fails or takes half an hour. So resolution runs wheels-only first; each package uv names
as lacking wheels (or as filtered out by the date) gets its own later cutoff, the first day a
fitting wheel existed (`--exclude-newer-package`), and uv tries again. A source build is
needed only when no cutoff can help: some package has no fitting wheel at any date. uv never
builds (`--no-build`, always): such a package is built in the sandbox (`sdists`) and offered
to uv as a wheel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from pinbench.envs.python import index

_FILTERED = re.compile(
    r"`(?P<name>[A-Za-z0-9._-]+)` was filtered by `exclude-newer(?:-package)?`[^\n]*?"
    r"(?P<which>requested version|latest version)[^\n]*?published at "
    r"(?P<when>\d{4}-\d\d-\d\dT[\d:.]+)Z?"
)
# "Because only pygments<=2.7.0 is available and pytest>=8.4.2 depends on pygments>=2.7.2"
_TOO_OLD = re.compile(
    r"only (?P<name>[A-Za-z0-9._-]+)<=\S+ (?:is|are) available and .*? depends on "
    r"(?P=name)(?P<spec>[<>=!~][^\s,]*(?:,\s?[<>=!~][^\s,]*)*)"
)
_NO_WHEELS = re.compile(
    r"(?:Wheels are required for|only found wheels for|no wheels are available for) "
    r"`(?P<name>[A-Za-z0-9._-]+)`"
)
# "Because blinker==1.4 has no usable wheels", "pyperclip>=1.6.0,<=1.8.2 has no usable
# wheels": the versions the resolution needs.
_NO_USABLE = re.compile(
    r"(?P<name>[A-Za-z0-9._-]+)(?P<spec>[<>=!~]=?[^\s,]+(?:,[<>=!~]=?[^\s,]+)*)"
    r" has no usable wheels"
)
BASE_PACKAGES = ("setuptools",)  # what the harness adds to every environment
# First final release of each CPython minor: nothing older was written to run on it.
PYTHON_RELEASED = {
    (3, 6): date(2016, 12, 23),
    (3, 7): date(2018, 6, 27),
    (3, 8): date(2019, 10, 14),
    (3, 9): date(2020, 10, 5),
    (3, 10): date(2021, 10, 4),
    (3, 11): date(2022, 10, 24),
    (3, 12): date(2023, 10, 2),
    (3, 13): date(2024, 10, 7),
}


@dataclass
class Plan:
    """What the next uv attempt allows: per-package cutoffs, and the wheels built from source
    for packages with no fitting wheel at any date (`pending` until built)."""

    as_of: date | None
    cutoffs: dict[str, date] = field(default_factory=dict)
    pending: dict[str, SpecifierSet | None] = field(default_factory=dict)  # -> what uv needs
    wheels: dict[str, Path] = field(default_factory=dict)
    built: dict[str, Version] = field(default_factory=dict)

    def cutoff(self, name: str) -> date | None:
        return self.cutoffs.get(canonicalize_name(name), self.as_of)

    def uv_args(self) -> list[str]:
        args = ["--exclude-newer", self.as_of.isoformat()] if self.as_of else []
        for name, day in sorted(self.cutoffs.items()):
            args += ["--exclude-newer-package", f"{name}={day.isoformat()}"]
        return [*args, "--no-build"]  # nothing is ever built on the host

    def learn(self, stderr: str, python: tuple[int, int]) -> bool:
        """Widen the plan from uv's failure; False when nothing more can be tried."""
        learned = False
        for match in _FILTERED.finditer(stderr):
            name = match["name"]
            when: datetime | None
            if match["which"] == "requested version":  # a pin: exactly its upload
                when = datetime.fromisoformat(match["when"]).replace(tzinfo=UTC)
            else:  # uv names the newest fit; the nearest to the era is the next release
                when = next_release(name, self.cutoff(name))
            learned |= self._raise_cutoff(name, when)
        for match in _TOO_OLD.finditer(stderr):
            learned |= self._raise_cutoff(match["name"], first_upload(match["name"], match["spec"]))
        named: dict[str, SpecifierSet] = {}
        for match in _NO_USABLE.finditer(stderr):
            try:
                named[canonicalize_name(match["name"])] = SpecifierSet(match["spec"])
            except InvalidSpecifier:
                continue
        unbuilt: dict[str, SpecifierSet | None] = {}
        for match in _NO_WHEELS.finditer(stderr):
            name = canonicalize_name(match["name"])
            needed = named.get(name)
            if self._raise_cutoff(name, first_wheel(name, python)):
                learned = True
            elif name not in self.built or (
                needed is not None and not needed.contains(self.built[name], prereleases=True)
            ):
                unbuilt[name] = needed  # first built, or another version is needed
        if learned:
            return True
        self.pending.update(unbuilt)  # no later date gives them a wheel: built from source
        return bool(unbuilt)

    def floor_base_packages(self, python: tuple[int, int]) -> None:
        """The harness's own base packages (setuptools) are never older than the interpreter:
        setuptools of 2018 does not import on Python 3.10 (collections.MutableMapping)."""
        released = PYTHON_RELEASED.get(python)
        if self.as_of is None or released is None:
            return
        for name in BASE_PACKAGES:
            current = self.cutoff(name)
            if current is not None and released > current:
                self.cutoffs[name] = released

    def _raise_cutoff(self, name: str, when: datetime | None) -> bool:
        if when is None:
            return False
        day = (when.astimezone(UTC) + timedelta(days=1)).date()
        current = self.cutoff(name)
        if current is not None and day <= current:
            return False
        self.cutoffs[canonicalize_name(name)] = day
        return True

    def describe(self) -> dict[str, object]:
        return {
            "cutoffs": {name: day.isoformat() for name, day in sorted(self.cutoffs.items())},
            "source_builds": sorted(self.wheels),
            "built_wheels": sorted(path.name for path in self.wheels.values()),
        }


def first_wheel(name: str, python: tuple[int, int]) -> datetime | None:
    """When the first wheel of `name` that `python` can install was uploaded (None: never)."""
    try:
        files = index.project_files(name)
    except index.IndexUnavailable:
        return None
    uploads = [
        f.uploaded for f in files if f.tags is not None and f.uploaded and f.supports(python)
    ]
    return min(uploads) if uploads else None


def next_release(name: str, after: date | None) -> datetime | None:
    """The first upload of `name` on or after the day `after` (None: no such upload)."""
    if after is None:
        return None
    try:
        files = index.project_files(name)
    except index.IndexUnavailable:
        return None
    start = datetime(after.year, after.month, after.day, tzinfo=UTC)
    later = [f.uploaded for f in files if f.uploaded and f.uploaded >= start]
    return min(later) if later else None


def first_upload(name: str, spec: str) -> datetime | None:
    """When the first release of `name` inside `spec` (say '>=2.7.2') was uploaded."""
    try:
        wanted = SpecifierSet(spec.replace(" ", ""))
        files = index.project_files(name)
    except (InvalidSpecifier, index.IndexUnavailable):
        return None
    uploads = [f.uploaded for f in files if f.uploaded and wanted.contains(f.version)]
    return min(uploads) if uploads else None
