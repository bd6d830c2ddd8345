"""Where pinbench keeps its state: one root, overridable, so tests and CI can isolate it."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir


def cache_root() -> Path:
    """$PINBENCH_HOME, else the platform cache dir (~/.cache/pinbench)."""
    override = os.environ.get("PINBENCH_HOME")
    return Path(override).expanduser() if override else Path(user_cache_dir("pinbench"))


def envs_dir() -> Path:
    return cache_root() / "envs"


def uv_cache_dir() -> Path:
    """uv's cache, shared by every environment (on the same filesystem, so installs hardlink)."""
    override = os.environ.get("UV_CACHE_DIR")
    return Path(override) if override else cache_root() / "uv-cache"


def package_data() -> Path:
    """The data shipped inside the package (the builtin benchmark, the IDE repositories)."""
    return Path(__file__).resolve().parent.parent / "data"
