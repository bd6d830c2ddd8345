"""Find Python interpreters on this machine; never hard-code their paths."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pinbench.core.paths import cache_root, uv_cache_dir

_PROBE = "import sys, platform; print(platform.python_implementation(), *sys.version_info[:3])"


@dataclass(frozen=True, order=True)
class Interpreter:
    version: tuple[int, int, int]
    path: Path
    implementation: str = "CPython"

    @property
    def minor(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"

    def __str__(self) -> str:
        return f"{self.implementation} {'.'.join(map(str, self.version))} ({self.path})"


def candidate_paths() -> list[Path]:
    """Every place an interpreter may live, most explicit first.

    PINBENCH_PYTHONS (os.pathsep-separated executables or directories), PATH, pyenv-style
    version directories ($PYENV_ROOT, ~/.pyenv), and uv-managed interpreters.
    """
    found: list[Path] = []
    for entry in filter(None, os.environ.get("PINBENCH_PYTHONS", "").split(os.pathsep)):
        path = Path(entry).expanduser()
        found.extend(_executables_in(path) if path.is_dir() else [path])
    for directory in filter(None, os.environ.get("PATH", "").split(os.pathsep)):
        if "shims" not in directory:  # pyenv shims dispatch on cwd; take the real binaries below
            found.extend(_executables_in(Path(directory)))
    roots = {os.environ.get("PYENV_ROOT", ""), str(Path.home() / ".pyenv")}
    if not any(Path(r, "versions").is_dir() for r in roots if r) and shutil.which("pyenv"):
        roots.add(_run_text(["pyenv", "root"]))
    for root in filter(None, roots):
        for version_dir in sorted(Path(root, "versions").glob("*")):
            found.extend(_executables_in(version_dir / "bin"))
    found.extend(_uv_pythons())
    return found


def _executables_in(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    names = sorted(p for p in directory.glob("python*") if _looks_like_python(p.name))
    return [p for p in names if os.access(p, os.X_OK) and p.is_file()]


def _looks_like_python(name: str) -> bool:
    rest = name.removeprefix("python")
    return rest == "" or rest.replace(".", "").isdigit()


def _uv_pythons() -> list[Path]:
    """Interpreters uv installed (`uv python install`), found where uv keeps them."""
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    root = Path(os.environ.get("UV_PYTHON_INSTALL_DIR") or Path(data_home, "uv", "python"))
    found: list[Path] = []
    for install in sorted(root.glob("cpython-*")) if root.is_dir() else []:
        found.extend(_executables_in(install / "bin"))
    return found


def uv_binary() -> str:
    from uv import find_uv_bin

    return str(find_uv_bin())


_PASSED_TO_UV = ("PATH", "LANG", "LC_ALL", "SSL_CERT_FILE", "SSL_CERT_DIR", "UV_INDEX_URL")
_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY")


def uv_environ(home: Path) -> dict[str, str]:
    """uv's environment: what it needs to reach the index and nothing else, so that the user's
    secrets (API keys, tokens) never reach a package index or anything uv starts."""
    names = (*_PASSED_TO_UV, *_PROXIES, *(n.lower() for n in _PROXIES))
    env = {name: os.environ[name] for name in names if name in os.environ}
    return {
        **env,
        "HOME": str(home),
        "UV_CACHE_DIR": str(uv_cache_dir()),
        "UV_NO_CONFIG": "1",
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_LINK_MODE": "hardlink",
    }


# uv's words for an index it could not reach: such a failure is not the spec's, so not kept.
_UNREACHABLE = ("failed to fetch", "error sending request", "dns error", "connection", "timed out")


def uv_unreachable(output: str) -> bool:
    """True when uv's output says it could not reach the index (try again later)."""
    text = output.lower()
    return any(word in text for word in _UNREACHABLE)


def _run_text(cmd: list[str]) -> str:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def discover() -> list[Interpreter]:
    """All distinct working interpreters, newest first; probes are cached by path and mtime."""
    cache_file = cache_root() / "interpreters.json"
    try:
        cache: dict[str, list[object]] = json.loads(cache_file.read_text())
    except (OSError, ValueError):
        cache = {}
    seen: dict[Path, Interpreter] = {}
    for path in candidate_paths():
        try:
            real = path.resolve(strict=True)
            key = f"{real}:{real.stat().st_mtime_ns}"
        except OSError:
            continue
        if real in seen:
            continue
        probe = cache.get(key)
        if probe is None:
            out = _run_text([str(real), "-c", _PROBE]).split()
            probe = [out[0], *map(int, out[1:4])] if len(out) == 4 else []
            cache[key] = probe
        if probe:
            impl, major, minor, micro = probe
            seen[real] = Interpreter((int(major), int(minor), int(micro)), real, str(impl))  # type: ignore[call-overload]
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    cache_file.write_text(json.dumps(cache))
    by_minor: dict[tuple[str, int, int], Interpreter] = {}
    for interp in sorted(seen.values(), reverse=True):
        by_minor.setdefault((interp.implementation, *interp.version[:2]), interp)
    return sorted(by_minor.values(), reverse=True)
