"""Where an environment's system packages are, as the sandbox reads them: an environment links
its root (`envs.system` unpacks it) under `LINK`, and the root's manifest lists its library
directories. Writing roots is `envs.system`'s; this is the read side both share."""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST = "pinbench-sysroot.json"
LINK = "sysroot"  # an environment's link to its root


def library_dirs(root: Path) -> list[str]:
    """The directories of a root's shared libraries, relative to its `root/`."""
    try:
        return list(json.loads((root / MANIFEST).read_text()).get("library_dirs", []))
    except (OSError, ValueError):
        return []


def sandbox_paths(env_prefix: Path) -> tuple[list[str], list[str]]:
    """(bin directories, library directories) of an environment's root; empty without one."""
    link = env_prefix / LINK
    if not link.is_symlink():
        return [], []
    root = link.resolve() / "root"
    bins = [str(root / d) for d in ("usr/bin", "bin") if (root / d).is_dir()]
    return bins, [str(root / d) for d in library_dirs(link)]
