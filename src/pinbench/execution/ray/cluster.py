"""Joining a Ray cluster: one clear error for an address where no cluster answers, one
connection shared by the executor and a cluster-served model, and the nodes there are."""

from __future__ import annotations

import logging
import os
import socket
import tempfile
import threading
from dataclasses import dataclass

import ray
from ray._private import ray_constants

_CONNECT_SECONDS = 3.0
_lock = threading.Lock()
_users = 0
_owned = False  # whether pinbench called ray.init (and so shuts it down)


class ClusterError(Exception):
    """There is no cluster to use (nothing at the address, no node with CPUs, a node that
    cannot run pinbench): one line for the user, never a traceback."""


@dataclass(frozen=True)
class NodeInfo:
    id: str
    host: str
    cpus: int


# Ray puts unix sockets under $TMPDIR, and a socket path has at most 107 bytes.
_MAX_RAY_TMPDIR = 40


def short_temp_dir() -> None:
    """Give Ray a short temporary directory when $TMPDIR is too long for its sockets."""
    if "RAY_TMPDIR" not in os.environ and len(tempfile.gettempdir()) > _MAX_RAY_TMPDIR:
        os.environ["RAY_TMPDIR"] = f"/tmp/pinbench-ray-{os.getuid()}"


def connect(address: str) -> None:
    """Join the cluster at `address` (`auto`: the one this machine belongs to, as `ray start`
    recorded it, or $RAY_ADDRESS). Counted: the last `disconnect` leaves it."""
    global _users, _owned
    with _lock:
        if _users == 0 and not ray.is_initialized():
            short_temp_dir()
            _check_reachable(address)
            _keep_workers_python()
            try:
                ray.init(
                    address=address,
                    namespace="pinbench",
                    logging_level=logging.WARNING,
                    log_to_driver=False,
                )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ClusterError(f"cannot join the Ray cluster at {address}: {exc}") from None
            _owned = True
        _users += 1


def disconnect() -> None:
    global _users, _owned
    with _lock:
        _users = max(0, _users - 1)
        if _users == 0 and _owned:
            ray.shutdown()
            _owned = False


def live_nodes() -> list[NodeInfo]:
    """The nodes that are alive and offer CPUs (a node without CPUs cannot run a sandbox)."""
    return [
        NodeInfo(n["NodeID"], str(n.get("NodeManagerHostname") or n["NodeManagerAddress"]), cpus)
        for n in ray.nodes()  # type: ignore[no-untyped-call]
        if n.get("Alive") and (cpus := int(n.get("Resources", {}).get("CPU", 0))) > 0
    ]


def _check_reachable(address: str) -> None:
    """Ray retries an address where nothing listens for minutes; a plain TCP connection says
    at once whether anything is there."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"--ray-address {address!r} is not `auto` or HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=_CONNECT_SECONDS).close()
    except OSError as exc:
        raise ClusterError(
            f"no Ray cluster answers at {address} ({exc.strerror or exc}); start one with "
            "`ray start --head` there, or give the address `ray start` printed"
        ) from None


def _keep_workers_python() -> None:
    """Ray re-creates a `uv run` driver's project on every worker (a fresh virtual environment
    per node and a copy of the working tree: ~15 s here, and it ignores what each node has
    installed); pinbench's nodes run the pinbench they have. RAY_ENABLE_UV_RUN_RUNTIME_ENV=1
    restores Ray's behaviour."""
    if os.environ.get("RAY_ENABLE_UV_RUN_RUNTIME_ENV") != "1":
        ray_constants.RAY_ENABLE_UV_RUN_RUNTIME_ENV = False
