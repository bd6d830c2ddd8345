"""The npm registry, as this machine's npm is configured to reach it: package documents
(versions and their publish times) and tarballs, checked against their published integrity."""

from __future__ import annotations

import base64
import functools
import hashlib
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from pinbench.core.env import EnvError

_TIMEOUT = httpx.Timeout(60.0, connect=15.0)


@functools.cache
def npm() -> str:
    """The npm that resolves environments (the machine's, beside its Node)."""
    found = shutil.which("npm")
    if found is None:
        raise EnvError("npm is not installed: the Node toolchain needs Node.js and npm on PATH")
    return found


@functools.cache
def registry_url() -> str:
    """The registry npm uses here (a mirror when the machine is configured for one)."""
    try:
        done = subprocess.run(
            [npm(), "config", "get", "registry"], capture_output=True, text=True, timeout=60
        )
        url = done.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        url = ""
    return (url or "https://registry.npmjs.org/").rstrip("/") + "/"


def _name_path(name: str) -> str:
    return quote(name, safe="@")  # a scoped name keeps its @ and escapes its /


@functools.cache
def document(name: str) -> dict[str, Any]:
    """The registry's full document of a package (its versions and their publish times)."""
    url = registry_url() + _name_path(name)
    try:
        response = httpx.get(url, timeout=_TIMEOUT, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise EnvError(f"npm registry unreachable ({registry_url()}): {exc}") from exc
    if response.status_code == 404:
        raise EnvError(f"no package {name!r} on the npm registry")
    if response.status_code != 200:
        raise EnvError(f"npm registry answered {response.status_code} for {name!r}")
    doc: dict[str, Any] = response.json()
    return doc


def version_info(name: str, version: str) -> dict[str, Any]:
    """A published version's metadata; EnvError naming the package when it does not exist."""
    versions = document(name).get("versions") or {}
    if version not in versions:
        raise EnvError(f"{name}@{version} is not published on the npm registry")
    info: dict[str, Any] = versions[version]
    return info


def published(name: str, version: str) -> str | None:
    """When `name@version` was published, as the registry says (ISO 8601), if it says."""
    when = (document(name).get("time") or {}).get(version)
    return str(when) if when else None


def verify(data: bytes, integrity: str) -> bool:
    """Whether `data` matches an SRI string (`sha512-...`, several allowed) or a hex sha1."""
    if "-" not in integrity:  # a bare shasum (old packages)
        return hashlib.sha1(data).hexdigest() == integrity.strip().lower()
    for entry in integrity.split():
        algorithm, _, expected = entry.partition("-")
        if algorithm not in ("sha1", "sha256", "sha384", "sha512"):
            continue
        digest = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
        if digest == expected:
            return True
    return False


def download(url: str, integrity: str, target: Path) -> None:
    """Fetch a tarball to `target`, refusing it unless it matches `integrity`."""
    try:
        response = httpx.get(url, timeout=_TIMEOUT, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise EnvError(f"cannot download {url}: {exc}") from exc
    if response.status_code != 200:
        raise EnvError(f"cannot download {url}: HTTP {response.status_code}")
    if not verify(response.content, integrity):
        raise EnvError(f"{url} does not match its published integrity {integrity[:30]}...")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    partial.write_bytes(response.content)
    partial.replace(target)
