"""What a fresh network namespace per execution would cost: fork+exit of a child that does
nothing, against one that also enters a new network namespace and brings its loopback up
(what a warm server's child would have to do). Alternating rounds, medians. Needs root.

    uv run python bench/netns_cost.py [--rounds 5] [--children 200]
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import os
import socket
import statistics
import struct
import time

CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
_libc = ctypes.CDLL(None, use_errno=True)


def _child(new_net: bool) -> None:
    if new_net:
        if _libc.unshare(CLONE_NEWNET) != 0:
            os._exit(1)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))
        sock.close()
    os._exit(0)


def _round(new_net: bool, children: int) -> float:
    started = time.perf_counter()
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            _child(new_net)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            raise SystemExit("unshare(CLONE_NEWNET) failed: run as root")
    return (time.perf_counter() - started) / children * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--children", type=int, default=200)
    args = parser.parse_args()
    plain, fresh = [], []
    for _ in range(args.rounds):
        plain.append(_round(False, args.children))
        fresh.append(_round(True, args.children))
    a, b = statistics.median(plain), statistics.median(fresh)
    print(f"fork+exit: {a:.2f} ms; with a new network namespace: {b:.2f} ms ({b / a:.1f}x)")


if __name__ == "__main__":
    main()
