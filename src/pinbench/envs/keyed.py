"""One content-addressed directory per key, built once: in scratch beside it, under a file
lock, its manifest written last, renamed into place; a directory with its manifest is done and
reused (by this process or another). The toolchains other than Python (Node, Java, C/C++) build
their environments this way, each with the sandbox's runner interpreter linked in."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from filelock import FileLock

from pinbench.core.env import EnvError, EnvSpec
from pinbench.envs.python.interpreters import discover


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


def runner_python() -> Path:
    """The newest CPython 3.8+ here: the sandbox's runner (standard library only) runs on it."""
    found = [i for i in discover() if i.implementation == "CPython" and i.version >= (3, 8, 0)]
    if not found:
        raise EnvError("the sandbox's runner needs a CPython 3.8+ on this machine")
    return max(found).path.resolve()


class Resolved(Protocol):
    @property
    def spec(self) -> EnvSpec: ...


R = TypeVar("R", bound=Resolved)


@dataclass(frozen=True)
class KeyedEnvironment(Generic[R]):
    """An environment built by `build_once`, the runner's interpreter at `bin/python`; no warm
    server (each run starts its own Node, JVM or build)."""

    key: str
    path: Path
    resolution: R
    reused: bool

    @property
    def interpreter(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def spec(self) -> EnvSpec:
        return self.resolution.spec

    def preload(self) -> tuple[str, ...]:
        return ()
