"""One content-addressed store of unpacked npm packages, keyed by their published integrity;
an environment's `node_modules` is hard links into it, so a second environment of the same
packages costs directory entries only (pnpm's idea, with npm's own resolution)."""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any

from filelock import FileLock

from pinbench.core.env import EnvError
from pinbench.core.paths import cache_root
from pinbench.envs.node import registry

_DONE = ".pinbench-unpacked"
_ARCH = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def store_dir() -> Path:
    return cache_root() / "node" / "store"


def _entry_dir(integrity: str) -> Path:
    digest = hashlib.sha256(integrity.split()[0].encode()).hexdigest()[:32]
    return store_dir() / "packages" / digest[:2] / digest


def unpack_into(archive: Path, target: Path, only: tuple[str, ...] = ()) -> None:
    """Extract an npm tarball without its top directory (`package/`), refusing links, devices
    and paths that leave `target` (tarfile's `data` filter); `only`: these member paths."""
    with tarfile.open(archive, "r:*") as tar:
        members = []
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            if len(parts) < 2 or not (member.isfile() or member.isdir()):
                continue  # the top directory itself, links (npm does not install them either)
            member.name = str(PurePosixPath(*parts[1:]))
            if only and member.name not in only:
                continue
            member.mode = 0o755 if member.isdir() or member.mode & 0o111 else 0o644
            members.append(member)
        tar.extractall(target, members=members, filter="data")


def unpacked(name: str, version: str, integrity: str, url: str) -> Path:
    """The store's copy of a package (downloaded and unpacked on first use)."""
    entry = _entry_dir(integrity)
    if (entry / _DONE).exists():
        return entry
    entry.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(entry) + ".lock"):
        if (entry / _DONE).exists():
            return entry
        with tempfile.TemporaryDirectory(dir=entry.parent) as scratch:
            archive = Path(scratch) / "package.tgz"
            registry.download(url, integrity, archive)
            tree = Path(scratch) / "tree"
            try:
                unpack_into(archive, tree)
            except (tarfile.TarError, OSError) as exc:
                raise EnvError(f"{name}@{version}: unreadable tarball ({exc})") from exc
            (tree / _DONE).write_text(f"{name}@{version}\n")
            shutil.rmtree(entry, ignore_errors=True)
            tree.rename(entry)
    return entry


def link_tree(source: Path, target: Path) -> None:
    """Hard-link every file of `source` under `target` (a copy where the store is on
    another filesystem)."""
    for directory, _dirs, files in os.walk(source):
        relative = Path(directory).relative_to(source)
        (target / relative).mkdir(parents=True, exist_ok=True)
        for file in files:
            if file == _DONE and relative == Path("."):
                continue
            src, dst = Path(directory) / file, target / relative / file
            try:
                os.link(src, dst)
            except FileExistsError:
                continue
            except OSError:
                shutil.copy2(src, dst)


def _platform_fits(entry: dict[str, Any]) -> bool:
    """Whether an optional package's `os`/`cpu` fields admit this machine."""
    system = platform.system().lower()
    arch = _ARCH.get(platform.machine(), platform.machine())

    def admits(values: object, here: str) -> bool:
        if not isinstance(values, list) or not values:
            return True
        allowed = [v for v in values if not str(v).startswith("!")]
        denied = [str(v)[1:] for v in values if str(v).startswith("!")]
        return here not in denied and (not allowed or here in allowed)

    return admits(entry.get("os"), system) and admits(entry.get("cpu"), arch)


def _package_name(path: str, entry: dict[str, Any]) -> str:
    if entry.get("name"):
        return str(entry["name"])
    tail = path.rsplit("node_modules/", 1)[-1]
    return tail


def tarball_url(name: str, version: str) -> str:
    base = name.rsplit("/", 1)[-1]
    return f"{registry.registry_url()}{name}/-/{base}-{version}.tgz"


def materialize(lock: dict[str, Any], target: Path, workers: int = 8) -> int:
    """Lay out the `node_modules` a package-lock (v2/v3) describes under `target`, every file
    a hard link into the store; returns how many packages it holds."""
    wanted: list[tuple[str, str, str, str, str]] = []
    for path, entry in (lock.get("packages") or {}).items():
        if not path or not isinstance(entry, dict) or entry.get("link"):
            continue
        if entry.get("optional") and not _platform_fits(entry):
            continue
        if not path.startswith("node_modules/") or ".." in PurePosixPath(path).parts:
            raise EnvError(f"package-lock places a package at {path!r}")
        name, version = _package_name(path, entry), str(entry.get("version", ""))
        integrity = entry.get("integrity")
        if not integrity:
            integrity = registry.version_info(name, version).get("dist", {}).get("integrity")
            integrity = integrity or registry.version_info(name, version)["dist"]["shasum"]
        url = str(entry.get("resolved") or tarball_url(name, version))
        wanted.append((path, name, version, str(integrity), url))

    def place(item: tuple[str, str, str, str, str]) -> None:
        path, name, version, integrity, url = item
        link_tree(unpacked(name, version, integrity, url), target / path)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(place, wanted))
    return len(wanted)
