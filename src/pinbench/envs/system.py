"""System libraries and tools a Python package needs at run time, from Debian's packages.

Some pins need more than wheels: audioread (librosa's loader) runs `ffmpeg`, old soundfile
loads `libsndfile` with ctypes. No host install: the Debian packages (and whatever of their
dependencies the host lacks) are fetched with `apt-get download` and unpacked with `dpkg -x`
(no maintainer scripts run) into a content-addressed root of pinbench's own, shared by every
environment that needs the same set; the sandbox sees it read-only, on PATH and
LD_LIBRARY_PATH. Only packages the host lacks are unpacked, so no host library is shadowed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from filelock import FileLock
from packaging.utils import canonicalize_name

from pinbench.core.paths import cache_root
from pinbench.core.sysroot import LINK, MANIFEST, library_dirs, sandbox_paths

__all__ = ["LINK", "MANIFEST", "library_dirs", "packages_for", "root_for", "sandbox_paths"]

_LAYOUT = 2  # 2: development links (libsndfile.so) beside the runtime libraries

# Python distribution -> the Debian packages it needs at run time (and cannot get from wheels).
NEEDS: dict[str, tuple[str, ...]] = {
    "audioread": ("ffmpeg",),
    "pydub": ("ffmpeg",),
    "moviepy": ("ffmpeg",),
    "ffmpy": ("ffmpeg",),
    "soundfile": ("libsndfile1",),
    "pysoundfile": ("libsndfile1",),
    "rtree": ("libspatialindex-dev",),  # found by name (libspatialindex_c.so), at build and run
}


class SystemError_(Exception):
    """The system packages could not be provided (no apt, not downloadable)."""


def packages_for(distributions: Iterable[str]) -> tuple[str, ...]:
    """The Debian packages the named Python distributions need at run time."""
    wanted: set[str] = set()
    for name in distributions:
        wanted.update(NEEDS.get(canonicalize_name(name), ()))
    return tuple(sorted(wanted))


def root_for(packages: tuple[str, ...]) -> Path:
    """The unpacked root of `packages`, made now if no environment has needed it before."""
    release = _debian_release()
    payload = json.dumps([_LAYOUT, release, sorted(packages)])
    digest = hashlib.sha256(payload.encode()).hexdigest()[:16]
    base = cache_root() / "sysroots"
    final = base / digest
    if (final / MANIFEST).is_file():
        return final
    base.mkdir(parents=True, exist_ok=True)
    with FileLock(str(base / f".{digest}.lock")):
        if (final / MANIFEST).is_file():
            return final
        scratch = base / f".build-{digest}-{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)
        try:
            unpacked = _unpack(packages, scratch)
        except SystemError_:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        manifest = {"packages": list(packages), "release": release, "unpacked": unpacked}
        manifest["library_dirs"] = _library_dirs(scratch / "root")
        (scratch / MANIFEST).write_text(json.dumps(manifest, indent=2))
        scratch.rename(final)
    return final


def _unpack(packages: tuple[str, ...], scratch: Path) -> list[str]:
    for tool in ("apt-cache", "apt-get", "dpkg", "dpkg-query"):
        if shutil.which(tool) is None:
            raise SystemError_(f"system packages {' '.join(packages)} need Debian's {tool}")
    closure = _closure(packages)
    installed = set(_run(["dpkg-query", "-W", "-f=${Package}\\n"]).split())
    missing = sorted(closure - installed)
    debs = scratch / "debs"
    debs.mkdir(parents=True)
    if missing:
        _run(["apt-get", "download", "-q", *missing], cwd=debs)
    for deb in sorted(debs.glob("*.deb")):
        _run(["dpkg", "-x", str(deb), str(scratch / "root")])
    shutil.rmtree(debs)
    (scratch / "root").mkdir(exist_ok=True)
    _link_development_names(scratch / "root")
    return missing


def _link_development_names(root: Path) -> None:
    """`libsndfile.so` beside `libsndfile.so.1`, as the -dev package would put it: libraries
    loaded by name (ctypes.util.find_library('sndfile'), soundfile, rtree) look for it."""
    for library in root.rglob("lib*.so.*"):
        plain = library.with_name(library.name.split(".so.", 1)[0] + ".so")
        if not plain.exists() and not plain.is_symlink():
            plain.symlink_to(library.name)


def _closure(packages: tuple[str, ...]) -> set[str]:
    """Every package `packages` depend on, recursively (recommends and suggests left out)."""
    flags = ["--recurse", "--no-recommends", "--no-suggests", "--no-conflicts", "--no-breaks"]
    flags += ["--no-replaces", "--no-enhances"]
    out = _run(["apt-cache", "depends", *flags, *packages])
    return {line.strip() for line in out.splitlines() if line[:1].isalnum()}


def _library_dirs(root: Path) -> list[str]:
    dirs = {str(p.parent.relative_to(root)) for p in root.rglob("*.so*") if p.is_file()}
    return sorted(dirs)


def _debian_release() -> str:
    try:
        return Path("/etc/debian_version").read_text().strip()
    except OSError:
        return "unknown"


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemError_(f"`{' '.join(cmd[:3])} …` failed: {tail}")
    return done.stdout
