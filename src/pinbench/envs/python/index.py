"""What the package index knows about a pin: when it was uploaded and which Pythons have wheels.

Uses the PEP 691 JSON simple API (with PEP 700 upload times), cached on disk for a day.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache

import httpx
from packaging.requirements import Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, platform_tags
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from pinbench.core.paths import cache_root

_TTL_SECONDS = 24 * 3600


def index_url() -> str:
    return os.environ.get("UV_INDEX_URL") or "https://pypi.org/simple"


@dataclass(frozen=True)
class DistFile:
    filename: str
    version: Version
    uploaded: datetime | None
    requires_python: str | None
    tags: frozenset[Tag] | None  # None for an sdist
    yanked: bool = False  # still installable by an exact pin (PEP 592), never otherwise
    url: str = ""
    sha256: str | None = None

    def supports(self, python: tuple[int, int]) -> bool:
        if self.requires_python:
            try:
                if not SpecifierSet(self.requires_python).contains(f"{python[0]}.{python[1]}.0"):
                    return False
            except InvalidSpecifier:
                pass
        return self.tags is None or bool(self.tags & _supported_tags(python))


@cache
def _supported_tags(python: tuple[int, int]) -> frozenset[Tag]:
    platforms = list(platform_tags())
    interp = f"cp{python[0]}{python[1]}"
    return frozenset(
        [*cpython_tags(python, platforms=platforms), *compatible_tags(python, interp, platforms)]
    )


class IndexUnavailable(Exception):
    """The index could not be asked (offline, or no such project)."""


def project_files(name: str, *, yanked: bool = False) -> list[DistFile]:
    """Every file of a project on the index (yanked ones only when asked), from a day-old
    cache when possible."""
    key = canonicalize_name(name)
    cache_file = cache_root() / "index" / f"{key}.json"
    payload = None
    try:
        if time.time() - cache_file.stat().st_mtime < _TTL_SECONDS:
            payload = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        payload = None
    if payload is None:
        payload = _fetch(key)
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        # Unique per process *and* thread: two threads fetching one project must not share it.
        tmp = cache_file.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(payload))
        tmp.replace(cache_file)
    rows = payload.get("files", [])
    if not isinstance(rows, list):
        raise IndexUnavailable(f"unexpected answer from the index for {key}")
    files = [f for f in (_parse(row) for row in rows) if f is not None]
    return files if yanked else [f for f in files if not f.yanked]


def _fetch(key: str) -> dict[str, object]:
    url = f"{index_url().rstrip('/')}/{key}/"
    headers = {"Accept": "application/vnd.pypi.simple.v1+json"}
    try:
        response = httpx.get(url, headers=headers, timeout=30, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise IndexUnavailable(f"cannot reach the package index for {key}: {exc}") from exc
    if response.status_code == 404:
        raise IndexUnavailable(f"no project {key!r} on {index_url()}")
    if response.status_code != 200:
        raise IndexUnavailable(f"index answered {response.status_code} for {key}")
    data: dict[str, object] = response.json()
    return data


def _parse(row: dict[str, object]) -> DistFile | None:
    filename = str(row.get("filename", ""))
    try:
        if filename.endswith(".whl"):
            _, version, _, tags = parse_wheel_filename(filename)
            tagset: frozenset[Tag] | None = frozenset(tags)
        elif filename.endswith((".tar.gz", ".zip")):
            _, version = parse_sdist_filename(filename)
            tagset = None
        else:
            return None
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None
    uploaded = row.get("upload-time")
    when = datetime.fromisoformat(str(uploaded).replace("Z", "+00:00")) if uploaded else None
    requires = row.get("requires-python")
    requires_text = str(requires) if requires else None
    hashes = row.get("hashes")
    sha256 = hashes.get("sha256") if isinstance(hashes, dict) else None
    return DistFile(
        filename,
        version,
        when,
        requires_text,
        tagset,
        bool(row.get("yanked")),
        url=str(row.get("url", "")),
        sha256=str(sha256) if sha256 else None,
    )


def wheel_fits(filename: str, python: tuple[int, int]) -> bool:
    """True when a wheel of that name installs on this Python (its tags, not its metadata)."""
    try:
        tags = parse_wheel_filename(filename)[3]
    except (InvalidWheelFilename, InvalidVersion):
        return False
    return bool(frozenset(tags) & _supported_tags(python))


def pinned_version(pin: str) -> tuple[str, Version] | None:
    """('numpy', 1.21.6) for 'numpy==1.21.6'; None for anything that is not an exact pin."""
    req = Requirement(pin)
    specs = list(req.specifier)
    if len(specs) != 1 or specs[0].operator not in ("==", "===") or "*" in specs[0].version:
        return None
    try:
        return req.name, Version(specs[0].version)
    except InvalidVersion:
        return None


def files_of(pin: str) -> list[DistFile]:
    """The files of the exact version a pin names (empty for a range); yanked ones too, which
    an exact pin still installs (networkx 2.6)."""
    pinned = pinned_version(pin)
    if pinned is None:
        return []
    name, version = pinned
    return [f for f in project_files(name, yanked=True) if f.version == version]


def installable_on(pin: str, python: tuple[int, int], *, from_source: bool = False) -> bool:
    """True when a wheel of the pin fits this Python; with `from_source`, an sdist whose
    requires-python admits it is enough (a build, the last resort)."""
    files = files_of(pin)
    if not files:
        return pinned_version(pin) is None  # ranges are the resolver's business
    usable = files if from_source else [f for f in files if f.tags is not None]
    return any(f.supports(python) for f in usable)


def as_of_date(pins: tuple[str, ...], python: tuple[int, int]) -> date | None:
    """The day after the newest pin's first upload usable on `python`.

    `--exclude-newer` filters the pins too, so the date must admit every pinned file; using
    the first *usable* upload keeps transitive dependencies period-correct.
    """
    newest: datetime | None = None
    for pin in pins:
        usable = [f.uploaded for f in files_of(pin) if f.uploaded and f.supports(python)]
        if usable:
            first = min(usable)
            newest = first if newest is None or first > newest else newest
    if newest is None:
        return None
    return (newest.astimezone(UTC) + timedelta(days=1)).date()


def release_date(pins: tuple[str, ...]) -> date | None:
    """When the newest of the exact pins was first uploaded (None: no exact pin known)."""
    days = [min(u) for u in ([f.uploaded for f in files_of(p) if f.uploaded] for p in pins) if u]
    return max(days).date() if days else None
