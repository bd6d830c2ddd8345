"""A pids cgroup per execution, for root running without a uid of its own per execution (user
namespace or no isolation): RLIMIT_NPROC exempts root, a cgroup does not. It is also the list of
every process to kill after the run."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

_counter = itertools.count()


@cache
def pids_root() -> Path | None:
    """The mounted cgroup-v1 pids hierarchy, if we may create groups in it."""
    if os.geteuid() != 0:
        return None
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if " - " not in line:
            continue
        after = line.split(" - ", 1)[1].split()
        if len(after) >= 3 and after[0] == "cgroup" and "pids" in after[2].split(","):
            root = Path(fields[4])
            return root if os.access(root, os.W_OK) else None
    return None


@contextlib.contextmanager
def pids_cgroup(limit: int) -> Iterator[Path | None]:
    """A fresh pids cgroup capped at `limit` tasks; on exit every task left in it is killed."""
    root = pids_root()
    if root is None:
        yield None
        return
    group = root / "pinbench" / f"{os.getpid()}-{next(_counter)}"
    try:
        group.mkdir(parents=True)
        (group / "pids.max").write_text(str(limit))
    except OSError:
        yield None
        return
    try:
        yield group
    finally:
        _destroy(group)


def _destroy(group: Path) -> None:
    for _ in range(200):
        with contextlib.suppress(OSError):
            group.rmdir()
            return
        with contextlib.suppress(OSError, ValueError):
            for pid in (group / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(pid), signal.SIGKILL)
        time.sleep(0.01)
