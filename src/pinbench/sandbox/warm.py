"""Warm worker pools: per environment, servers that keep the pinned library imported and fork
one fully isolated child per execution (see inside/_server.py). Lazily created, bounded in
number and memory (least recently used pools are shut down), restarted when they die, closed
at exit."""

from __future__ import annotations

import array
import atexit
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pinbench.sandbox import zygote
from pinbench.sandbox.cgroups import pids_root
from pinbench.sandbox.environ import sandbox_environ, visible_paths
from pinbench.sandbox.isolation import Isolation

SERVER = Path(__file__).parent / "inside" / "_server.py"
_START_SECONDS = 120.0  # importing pandas or torch on a busy machine takes a while
_GRACE_SECONDS = 10.0


class ServerBroken(Exception):
    """The warm server could not take or finish a job; the caller falls back to the cold path."""


class ZygoteStalled(ServerBroken):
    """A Node zygote's child stalled on a lock its fork copied (`_zygotes.Stalls`): the server
    ended the execution and is fine; the caller runs the job on the cold path."""


def _rss_bytes(pid: int) -> int:
    """RSS of a process and its direct children (the server is the child of the process we
    started when it lives in its own pid namespace)."""
    total = 0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    for one in (pid, *map(int, children)):
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


class WarmServer:
    """One server process: its control socket, and the jobs it runs one at a time."""

    def __init__(
        self,
        python: Path,
        preload: tuple[str, ...],
        isolation: Isolation,
        keep: list[str],
        environ: dict[str, str],
        tmpfs_bytes: int,
    ) -> None:
        self.python, self.preload = python, preload
        # a Node environment's zygote (sandbox/zygote.py), which the server must see
        self.zygote_dir = zygote.for_environment(python.absolute().parent.parent)
        if self.zygote_dir is not None:
            keep = [*keep, str(self.zygote_dir)]
        host, server = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = host
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
        cgroups = pids_root()
        config = {
            "cgroup_root": str(cgroups) if cgroups else None,
            "control_fd": server.fileno(),
            "isolation": isolation.job_flags(None),
            "keep": keep,
            "tmpfs_bytes": tmpfs_bytes,
            "preload": list(preload),
            "node_large_pages": zygote.large_pages(),
        }
        try:
            self._proc = subprocess.Popen(
                [str(python), "-I", "-S", "-B", str(SERVER)],
                stdin=subprocess.PIPE,
                stdout=self._log,
                stderr=self._log,
                env=environ,
                cwd="/",
                start_new_session=True,
                pass_fds=(server.fileno(),),
            )
        except OSError as exc:
            raise ServerBroken(f"cannot start {python}: {exc}") from exc
        finally:
            server.close()
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(config).encode())
        self._proc.stdin.close()
        ready = self._reply(_START_SECONDS)
        if not ready.get("ready"):
            self.close()
            raise ServerBroken(str(ready.get("error") or "server did not start"))
        self.preload_failures: dict[str, str] = dict(ready.get("failed") or {})
        self.broken = False

    @property
    def pid(self) -> int:
        return self._proc.pid

    def rss_bytes(self) -> int:
        return _rss_bytes(self._proc.pid)

    def run(self, job: dict[str, Any], fds: tuple[int, ...], wall: float) -> tuple[int, bool]:
        """Run one job; (exit status of the child, whether the wall deadline killed it)."""
        payload = json.dumps(job).encode()
        try:
            self._sock.sendmsg(
                [payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
            )
        except OSError as exc:
            self.broken = True
            raise ServerBroken(f"server {self.pid} refused the job: {exc}") from exc
        try:  # the server enforces the deadline; ours is only for a server that hangs
            reply = self._reply(wall + _GRACE_SECONDS)
            if reply.get("stalled"):  # a zygote's child hung on a lock copied by its fork
                raise ZygoteStalled(f"server {self.pid}: a Node zygote's child stalled")
            return int(reply["exit"]), bool(reply.get("timeout"))
        except TimeoutError:
            self.broken = True  # closing it kills its pid namespace, the child with it
            return -signal.SIGKILL, True
        except ZygoteStalled:
            raise
        except (OSError, KeyError, ValueError, ServerBroken) as exc:
            self.broken = True
            raise ServerBroken(f"server {self.pid} lost the job: {exc}") from exc

    def _reply(self, timeout: float) -> dict[str, Any]:
        ready, _, _ = select.select([self._sock], [], [], timeout)
        if not ready:
            raise TimeoutError
        data = self._sock.recv(65536)
        if not data:
            self.broken = True
            raise ServerBroken(f"server exited: {self.log_tail()}")
        reply: dict[str, Any] = json.loads(data)
        return reply

    def log_tail(self) -> str:
        with contextlib.suppress(OSError, ValueError):
            self._log.seek(0)
            return self._log.read()[-2000:].decode("utf-8", "replace").strip()
        return ""

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)
        self._log.close()


@dataclass
class _Pool:
    idle: list[WarmServer] = field(default_factory=list)
    busy: set[WarmServer] = field(default_factory=set)
    starting: int = 0  # servers being started outside the lock
    evicted: bool = False


class WarmPools:
    """Pools of warm servers keyed by (interpreter, preloaded modules)."""

    def __init__(
        self,
        isolation: Isolation,
        *,
        per_env: int = 2,
        max_pools: int = 4,
        max_rss_bytes: int = 3 << 30,
        tmpfs_bytes: int = 256 << 20,
    ) -> None:
        self.isolation = isolation
        self.per_env, self.max_pools, self.max_rss_bytes = per_env, max_pools, max_rss_bytes
        self.tmpfs_bytes = tmpfs_bytes
        self._pools: OrderedDict[tuple[Path, tuple[str, ...]], _Pool] = OrderedDict()
        self._cond = threading.Condition()
        self.started = 0
        self.fallbacks = 0  # executions the cold path had to take over
        self.peak_rss_bytes = 0
        atexit.register(self.close)

    @contextlib.contextmanager
    def lease(self, python: Path, preload: tuple[str, ...]) -> Iterator[WarmServer]:
        key = (python, tuple(sorted(set(preload))))
        server = self._acquire(key)
        try:
            yield server
        finally:
            self._release(key, server)

    def _acquire(self, key: tuple[Path, tuple[str, ...]]) -> WarmServer:
        with self._cond:
            while True:
                pool = self._pools.get(key)
                if pool is None:
                    pool = self._pools[key] = _Pool()
                    self._evict_beyond(self.max_pools, keep=key)
                self._pools.move_to_end(key)
                if pool.idle:
                    server = pool.idle.pop()
                    pool.busy.add(server)
                    return server
                if len(pool.busy) + pool.starting < self.per_env:
                    break
                self._cond.wait()
            pool.starting += 1
        try:
            server = self._start(*key)
        except BaseException:
            with self._cond:
                pool.starting -= 1
                self._cond.notify_all()
            raise
        with self._cond:
            pool.starting -= 1
            pool.busy.add(server)
            self.started += 1
            self._bound_memory(keep=key)
        return server

    def _start(self, python: Path, preload: tuple[str, ...]) -> WarmServer:
        return WarmServer(
            python,
            preload,
            self.isolation,
            visible_paths(python),
            sandbox_environ(python),
            self.tmpfs_bytes,
        )

    def _release(self, key: tuple[Path, tuple[str, ...]], server: WarmServer) -> None:
        with self._cond:
            pool = self._pools.get(key)
            if pool is not None:
                pool.busy.discard(server)
            if server.broken or pool is None or pool.evicted:
                server.close()
            else:
                pool.idle.append(server)
            self._cond.notify_all()

    def rss_bytes(self) -> int:
        with self._cond:
            servers = [s for p in self._pools.values() for s in (*p.idle, *p.busy)]
        total = sum(s.rss_bytes() for s in servers)
        self.peak_rss_bytes = max(self.peak_rss_bytes, total)
        return total

    def _bound_memory(self, keep: tuple[Path, tuple[str, ...]]) -> None:
        """Shut least recently used pools down while the servers' memory is over the bound."""
        while len(self._pools) > 1:
            servers = [s for p in self._pools.values() for s in (*p.idle, *p.busy)]
            total = sum(s.rss_bytes() for s in servers)
            self.peak_rss_bytes = max(self.peak_rss_bytes, total)
            if total <= self.max_rss_bytes:
                return
            if not self._evict_beyond(len(self._pools) - 1, keep=keep):
                return

    def _evict_beyond(self, limit: int, keep: tuple[Path, tuple[str, ...]]) -> bool:
        evicted = False
        for key in list(self._pools):
            if len(self._pools) <= limit:
                break
            if key == keep:
                continue
            pool = self._pools.pop(key)
            pool.evicted = True
            for server in pool.idle:
                server.close()
            pool.idle.clear()
            evicted = True
        return evicted

    def close(self) -> None:
        with self._cond:
            pools = list(self._pools.values())
            self._pools.clear()
        for pool in pools:
            pool.evicted = True
            for server in pool.idle:
                server.close()
            pool.idle.clear()
