"""Content-addressed Node environments: Node at an exact release, and npm packages resolved by
npm itself as of a date (`--before`) with no install script run, laid out as hard links into
the package store. Same spec, same key, same directory; built in scratch, renamed into place.

An environment holds `bin/node` (the pinned Node), `bin/harness-node` (the Node the harness's
own tools run on), `bin/python` (the interpreter that runs the sandbox's runner), its
`package.json`, npm's `package-lock.json` and `node_modules`."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.paths import cache_root, envs_dir
from pinbench.envs.keyed import KeyedEnvironment, build_once, runner_python
from pinbench.envs.node import registry, releases
from pinbench.envs.node.store import materialize

BUILDER_VERSION = 1
MANIFEST = "pinbench-env.json"
_PIN = re.compile(r"^(@[a-z0-9][\w.~-]*/)?[a-z0-9][\w.~-]*@[^\s@]+$", re.IGNORECASE)


def split_pin(pin: str) -> tuple[str, str]:
    """`name@version` (scoped names too) as (name, version); ValueError otherwise."""
    if not _PIN.match(pin):
        raise ValueError(f"npm pin {pin!r} is not like 'name@1.2.3'")
    name, _, version = pin.rpartition("@")
    return name, version


@dataclass(frozen=True)
class Resolution:
    spec: EnvSpec
    node: str  # the exact Node release
    as_of: date | None

    @property
    def packages(self) -> dict[str, str]:
        """What npm installs: the pins, then the harness's tools unless a pin names them."""
        wanted = dict(split_pin(p) for p in self.spec.pins)
        for extra in self.spec.extras:
            name, version = split_pin(extra)
            wanted.setdefault(name, version)
        return wanted

    @property
    def key(self) -> str:
        payload = {
            "builder": BUILDER_VERSION,
            "toolchain": "node",
            "node": self.node,
            "harness_node": releases.HARNESS_NODE,
            "packages": sorted(self.packages.items()),
            "as_of": self.as_of.isoformat() if self.as_of else None,
            "platform": releases.binary_package(),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:20]


class NodeEnvironment(KeyedEnvironment["Resolution"]):
    @property
    def node(self) -> Path:
        return self.path / "bin" / "node"

    @property
    def install_scripts_not_run(self) -> list[str]:
        """Packages of this environment whose install scripts were skipped (`name@version`)."""
        try:
            manifest = json.loads((self.path / MANIFEST).read_text())
        except (OSError, ValueError):
            return []
        return [str(p) for p in manifest.get("install_scripts_not_run") or []]


@cache
def resolve(spec: EnvSpec) -> Resolution:
    """The exact Node release and the as-of date: the spec's, else the day after the newest
    pin was published (as the registry says)."""
    node = releases.exact(spec.version)
    for pin in (*spec.pins, *spec.extras):
        try:
            split_pin(pin)
        except ValueError as exc:
            raise EnvError(str(exc)) from None
    as_of = spec.as_of
    if as_of is None and spec.pins:
        stamps = []
        for pin in spec.pins:
            name, version = split_pin(pin)
            registry.version_info(name, version)  # unpublished: one clear error now
            when = registry.published(name, version)
            if when:
                stamps.append(datetime.fromisoformat(when.replace("Z", "+00:00")).date())
        as_of = max(stamps) + timedelta(days=1) if stamps else None
    return Resolution(spec, node, as_of)


def ensure(spec: EnvSpec) -> NodeEnvironment:
    """The environment of `spec`, built now if it does not exist yet (`reused` says which);
    raises EnvError. The registry is asked once per spec and process."""
    return build(resolve(spec))


def build(resolution: Resolution) -> NodeEnvironment:
    path, reused = build_once(
        envs_dir(), resolution.key, MANIFEST, lambda scratch: _install(resolution, scratch)
    )
    return NodeEnvironment(resolution.key, path, resolution, reused)


def _install(resolution: Resolution, target: Path) -> dict[str, Any]:
    package = {
        "name": "pinbench-env",
        "version": "0.0.0",
        "private": True,
        "dependencies": resolution.packages,
    }
    (target / "package.json").write_text(json.dumps(package, indent=2))
    note = None
    if resolution.packages:
        lock, note = _lock(resolution, target)
        count = materialize(lock, target)
    else:
        lock, count = {}, 0
    bin_dir = target / "bin"
    bin_dir.mkdir()
    _link(releases.binary(resolution.node), bin_dir / "node")
    harness = releases.HARNESS_NODE
    _link(releases.binary(harness), bin_dir / "harness-node")
    (bin_dir / "python").symlink_to(runner_python())
    return {
        "toolchain": "node",
        "node_version": resolution.node,
        "requested_node": resolution.spec.version,
        "harness_node": harness,
        "pins": list(resolution.spec.pins),
        "extras": list(resolution.spec.extras),
        "as_of": resolution.as_of.isoformat() if resolution.as_of else None,
        "as_of_note": note,
        "packages": count,
        "install_scripts_not_run": _install_scripts(lock),
        "registry": registry.registry_url(),
        "built_at": time.time(),
    }


def _install_scripts(lock: dict[str, Any]) -> list[str]:
    """The packages whose install scripts were not run (npm's lock marks them): a native
    addon's build or a binary's download. Most work without; one that does not fails to load,
    and this list says why."""
    found = []
    for path, entry in (lock.get("packages") or {}).items():
        if path and isinstance(entry, dict) and entry.get("hasInstallScript"):
            name = path.rsplit("node_modules/", 1)[-1]
            found.append(f"{name}@{entry.get('version', '?')}")
    return sorted(found)


def _link(binary: Path, target: Path) -> None:
    """The store's binaries are hard-linked (visible inside the sandbox with the environment);
    the machine's own Node is linked symbolically (its directory is visible there anyway)."""
    if binary.is_relative_to(cache_root()):
        try:
            os.link(binary, target)
            return
        except OSError:
            shutil.copy2(binary, target)
            return
    target.symlink_to(binary)


def _npm_lock(target: Path, before: date | None) -> subprocess.CompletedProcess[str]:
    cmd = [
        registry.npm(), "install", "--package-lock-only", "--ignore-scripts", "--no-audit",
        "--no-fund", "--omit-lockfile-registry-resolved=false", "--lockfile-version=3",
        "--prefer-offline",
        "--cache", str(cache_root() / "node" / "npm-cache"),
    ]  # fmt: skip
    if before is not None:
        cmd.append(f"--before={before.isoformat()}")
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}
    try:
        return subprocess.run(
            cmd, cwd=target, env=env, capture_output=True, text=True, timeout=600, check=False
        )
    except subprocess.TimeoutExpired:
        raise EnvError("npm did not resolve the packages within 10 minutes") from None


def _lock(resolution: Resolution, target: Path) -> tuple[dict[str, Any], str | None]:
    """npm's resolution (no package code runs): as of the date, else, where the registry
    has nothing that old in some range (a mirror's rewritten publish times), the newest."""
    done = _npm_lock(target, resolution.as_of)
    note = None
    if done.returncode != 0 and resolution.as_of is not None and "ETARGET" in done.stderr:
        note = f"as of {resolution.as_of}: {_npm_reason(done.stderr)}; resolved without a date"
        done = _npm_lock(target, None)
    if done.returncode != 0:
        log = envs_dir() / "logs" / f"{resolution.key}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(done.stdout + done.stderr)
        raise EnvError(
            f"npm could not resolve {_pins(resolution)}: {_npm_reason(done.stderr)}", log
        )
    try:
        lock: dict[str, Any] = json.loads((target / "package-lock.json").read_text())
    except (OSError, ValueError) as exc:
        raise EnvError(f"npm wrote no readable package-lock.json ({exc})") from exc
    return lock, note


def resolve_ranges(dependencies: dict[str, str]) -> dict[str, str]:
    """The exact versions npm chooses today for `name -> range` dependencies (a repository's
    declared ones), by resolving them as a lock file (no package code runs); raises EnvError."""
    if not dependencies:
        return {}
    with tempfile.TemporaryDirectory(prefix="pinbench-resolve-") as scratch:
        target = Path(scratch)
        package = {"name": "pinbench-resolve", "version": "0.0.0", "private": True}
        (target / "package.json").write_text(json.dumps({**package, "dependencies": dependencies}))
        done = _npm_lock(target, None)
        if done.returncode != 0:
            raise EnvError(f"npm could not resolve the dependencies: {_npm_reason(done.stderr)}")
        lock = json.loads((target / "package-lock.json").read_text())
    packages = lock.get("packages") or {}
    found = {}
    for name in dependencies:
        version = (packages.get(f"node_modules/{name}") or {}).get("version")
        if isinstance(version, str):
            found[name] = version
    return found


def _pins(resolution: Resolution) -> str:
    return " ".join(f"{n}@{v}" for n, v in resolution.packages.items())


def _npm_reason(stderr: str) -> str:
    lines = [
        ln.removeprefix("npm error").removeprefix("npm ERR!").strip() for ln in stderr.splitlines()
    ]
    lines = [ln for ln in lines if ln and not ln.startswith(("A complete log", "code "))]
    return (lines[0] if lines else "npm failed without a message")[:400]
