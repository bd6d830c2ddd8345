"""The isolation levels a sandbox runs at, and the pool of uids executions run as; which level this
machine allows is proved by `sandbox.probe`."""

from __future__ import annotations

import fcntl
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Isolation:
    """Which protections an execution gets. `level` is recorded with every result."""

    level: str  # "full" (root), "userns" (unprivileged namespaces) or "none" (rlimits only)
    net: bool = False
    mount: bool = False
    pid: bool = False
    userns: bool = False
    drop_uid: bool = False
    notes: tuple[str, ...] = field(default=())

    def job_flags(self, uid: int | None) -> dict[str, object]:
        flags: dict[str, object] = {
            "net": self.net,
            "mount": self.mount,
            "pid": self.pid,
            "userns": self.userns,
        }
        if self.drop_uid and uid is not None:
            flags.update(uid=uid, gid=uid)
        return flags


FULL = Isolation("full", net=True, mount=True, pid=True, drop_uid=True)
USERNS = Isolation("userns", net=True, mount=True, pid=True, userns=True)
NONE = Isolation(
    "none", notes=("no namespaces: network, filesystem and processes are NOT isolated",)
)


class UidPool:
    """Hands each concurrent execution its own unprivileged uid, across processes too.

    Its own uid makes RLIMIT_NPROC per execution and lets no execution signal another.
    """

    def __init__(self, base: int = 61000, size: int = 512) -> None:
        self._base, self._size = base, size
        self._lock = threading.Lock()
        self._held: set[int] = set()
        self._dir = Path(tempfile.gettempdir()) / "pinbench-uids"

    @contextmanager
    def lease(self) -> Iterator[int]:
        uid, fd = self._acquire()
        try:
            yield uid
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            with self._lock:
                self._held.discard(uid)

    def _open(self, uid: int) -> int:
        path = f"{self._dir}/{uid}.lock"
        try:
            return os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        except FileNotFoundError:  # first use, or a temp cleaner removed it
            self._dir.mkdir(mode=0o700, exist_ok=True)
            return os.open(path, os.O_CREAT | os.O_RDWR, 0o600)

    def _acquire(self) -> tuple[int, int]:
        with self._lock:
            for uid in range(self._base, self._base + self._size):
                if uid in self._held:
                    continue
                fd = self._open(uid)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                self._held.add(uid)
                return uid, fd
        raise RuntimeError("no free sandbox uid (too many concurrent executions)")
