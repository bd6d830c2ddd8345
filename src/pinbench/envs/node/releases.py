"""Node releases: the machine's own Node when it is the release asked for, else the binary the
npm registry publishes as `node-linux-<arch>@<version>`, kept once per release in the store."""

from __future__ import annotations

import functools
import platform
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from filelock import FileLock
from packaging.version import InvalidVersion, Version

from pinbench.core.env import EnvError
from pinbench.envs.node import registry
from pinbench.envs.node.store import store_dir, unpack_into

# The Node the harness's own tools run on (the grader of trusted grading, the TypeScript
# checker), exact so that grading is the same everywhere: Node 22 starts in 20 ms where Node 20
# takes 50, and type-checks in about half the time (bench/node.py).
HARNESS_NODE = "22.12.0"
_ARCH = {"x86_64": "x64", "aarch64": "arm64"}


def binary_package() -> str:
    arch = _ARCH.get(platform.machine())
    if platform.system() != "Linux" or arch is None:
        raise EnvError(
            f"Node releases are taken from the npm registry's node-linux-* packages; "
            f"none for {platform.system()} {platform.machine()}"
        )
    return f"node-linux-{arch}"


@functools.cache
def machine_node() -> tuple[str, Path] | None:
    """The machine's Node: (version, resolved path), if there is one."""
    found = shutil.which("node")
    if found is None:
        return None
    try:
        out = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = out.stdout.strip().lstrip("v")
    return (version, Path(found).resolve()) if out.returncode == 0 and version else None


def published() -> list[str]:
    """Every Node release published on the registry, oldest first."""
    return [str(v) for v in _published_versions()]


def _published_versions() -> list[Version]:
    versions = []
    for text in registry.document(binary_package()).get("versions") or {}:
        try:
            versions.append(Version(text))
        except InvalidVersion:
            continue
    return sorted(versions)


def exact(requested: str | None) -> str:
    """The exact release a request names: '18.20.4' as is, '18' or '18.20' the newest of that
    line, None the machine's Node (else the harness's)."""
    if requested is None:
        here = machine_node()
        return here[0] if here else HARNESS_NODE
    text = requested.strip().lstrip("v")
    if not re.fullmatch(r"\d+(\.\d+){0,2}", text):
        raise EnvError(f"node version {requested!r} is not like '18.20.4', '18.20' or '18'")
    if text.count(".") == 2:
        return text
    here = machine_node()
    if here and (here[0] + ".").startswith(text + "."):
        return here[0]
    prefix = tuple(int(p) for p in text.split("."))
    matching = [v for v in _published_versions() if v.release[: len(prefix)] == prefix]
    if not matching:
        raise EnvError(f"no Node release {text}.x is published as {binary_package()}")
    return str(matching[-1])


def binary(version: str) -> Path:
    """The `node` executable of an exact release (downloaded into the store on first use)."""
    here = machine_node()
    if here and here[0] == version:
        return here[1]
    target = store_dir() / "node" / version / "bin" / "node"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target.parent.parent) + ".lock"):
        if target.exists():
            return target
        package = binary_package()
        try:
            dist = registry.version_info(package, version)["dist"]
        except EnvError:
            raise EnvError(
                f"Node {version} is not published on the npm registry ({package}@{version})"
            ) from None
        with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
            archive = Path(scratch) / "node.tgz"
            registry.download(dist["tarball"], dist.get("integrity") or dist["shasum"], archive)
            unpack_into(archive, Path(scratch) / "tree", only=("bin/node",))
            (Path(scratch) / "tree" / "bin" / "node").rename(target)
    return target
