"""One content-addressed directory per key, built once: in scratch beside it, under a file
lock, its manifest written last, renamed into place; a directory with its manifest is done and
reused (by this process or another)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filelock import FileLock


def build_once(
    root: Path, key: str, manifest: str, install: Callable[[Path], dict[str, Any]]
) -> tuple[Path, bool]:
    """(the directory of `key` under `root`, whether it was already built); `install` fills a
    scratch directory and returns the manifest's content (key and build time are added)."""
    final = root / key
    root.mkdir(parents=True, exist_ok=True)
    if (final / manifest).exists():
        return final, True
    with FileLock(str(root / f".{key}.lock")):
        if (final / manifest).exists():
            return final, True
        scratch = root / f".build-{key}-{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir()
        started = time.monotonic()
        try:
            content = install(scratch)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        content.update(key=key, build_seconds=round(time.monotonic() - started, 3))
        (scratch / manifest).write_text(json.dumps(content, indent=2))
        shutil.rmtree(final, ignore_errors=True)
        scratch.rename(final)
    return final, False
