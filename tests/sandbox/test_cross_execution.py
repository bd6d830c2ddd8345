"""Nothing one execution leaves behind can be read by the next.

A warm server's executions run one after another in the server's network namespace. A socket
closed first by its own side stays in TIME_WAIT after its process is gone, holding its port:
an execution could encode a secret (the hidden test it just ran against) in which ports it
left so, and the next one (its visible test, whose failure message becomes error feedback to
the model) read it back by trying to bind them. The namespace keeps no TIME_WAIT sockets.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pinbench.core.outcome import Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.sandbox.execute import execute
from pinbench.sandbox.isolation import Isolation
from pinbench.sandbox.warm import WarmPools

pytestmark = pytest.mark.integration

BASE_PORT = 47100
SECRET = 0b10110101

LEAVE = f"""
import socket
for bit in range(8):
    if ({SECRET} >> bit) & 1:
        server = socket.socket()
        server.bind(("127.0.0.1", {BASE_PORT} + bit))
        server.listen(1)
        client = socket.create_connection(("127.0.0.1", {BASE_PORT} + bit))
        accepted, _ = server.accept()
        accepted.close()  # the bound side closes first: its port stays in TIME_WAIT
        client.close()
        server.close()
"""

READ = f"""
import socket
found = 0
for bit in range(8):
    probe = socket.socket()
    try:
        probe.bind(("127.0.0.1", {BASE_PORT} + bit))
    except OSError:
        found |= 1 << bit
    finally:
        probe.close()
"""


def test_no_socket_state_crosses_warm_executions(env_python: Path, isolation: Isolation) -> None:
    pools = WarmPools(isolation, per_env=1)
    limits = Limits(wall_seconds=20, cpu_seconds=20)
    try:
        left = execute(
            env_python, LEAVE, TestSpec(kind=TestKind.SCRIPT, code="pass"), limits, warm=pools
        )
        assert left.status is Status.PASSED and left.path == "warm", left.message
        read = execute(
            env_python,
            READ,
            TestSpec(kind=TestKind.SCRIPT, code="assert found == 0, 'read %d' % found"),
            limits,
            warm=pools,
        )
    finally:
        pools.close()
    assert pools.started == 1  # the same server ran both
    assert read.status is Status.PASSED, read.message


def test_a_socket_left_in_the_namespace_is_seen() -> None:
    """The server's last check before it hands its namespace on: any socket, any state."""
    import ctypes
    import os
    import socket

    from pinbench.sandbox.inside import _runner

    if os.geteuid() != 0:
        pytest.skip("a new network namespace needs root here")
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the forked child reports through the pipe
        seen = []
        try:
            assert ctypes.CDLL(None).unshare(_runner.CLONE_NEWNET) == 0
            seen.append(_runner._sockets_left())
            held = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            held.bind(("0.0.0.0", 0))
            seen.append(_runner._sockets_left())
            held.close()
            seen.append(_runner._sockets_left())
        finally:
            os.write(write_end, repr(seen).encode())
            os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)
    with os.fdopen(read_end) as fh:
        assert fh.read() == "[False, True, False]"


ADVANCE = """
import os
for _ in range(4000):  # fork until the last pid handed out is {target} (mod 1024)
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    if child % 1024 == {target}:
        break
"""


def test_no_pid_sequence_crosses_warm_executions(env_python: Path, isolation: Isolation) -> None:
    """pids are handed out in order: an execution that forks until the last pid is some value
    would leave it, shifted by a constant, as the next execution's own pid."""
    pools = WarmPools(isolation, per_env=1)
    limits = Limits(wall_seconds=30, cpu_seconds=30, processes=64)
    report = TestSpec(kind=TestKind.SCRIPT, code="raise AssertionError('pid=%d' % os.getpid())")
    shifts = []
    try:
        for target in (100, 500, 900):
            program = ADVANCE.format(target=target)
            left = execute(
                env_python, program, TestSpec(kind=TestKind.SCRIPT, code="pass"), limits, warm=pools
            )
            assert left.status is Status.PASSED and left.path == "warm", left.message
            read = execute(env_python, "import os\n", report, limits, warm=pools)
            assert read.message.startswith("pid="), read.message
            shifts.append((int(read.message.removeprefix("pid=")) - target) % 1024)
    finally:
        pools.close()
    assert pools.started == 1
    # The same shift three times over is the channel; random pids give that once in a million.
    assert len(set(shifts)) > 1, shifts


def test_a_preloaded_librarys_open_file_is_each_childs_own(tmp_path: Path) -> None:
    """pyproj keeps PROJ's database open from a warm server's preload. Closed in each child,
    its number went to pytest's capture file and both broke (an internal error in GitChameleon
    2.0's geopandas tests). A child opens such a file afresh under the same number: the
    library reads on where it was, and no offset is shared with the server or the next child
    (a channel between executions); the server's other descriptors are closed."""
    import fcntl
    import os
    import socket
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src/pinbench/sandbox/inside"))
    try:
        import _runner
    finally:
        sys.path.pop(0)
    data = tmp_path / "proj.db"
    data.write_bytes(b"0123456789")
    data.chmod(0o644)
    opened = os.open(data, os.O_RDONLY)
    fd = fcntl.fcntl(opened, fcntl.F_DUPFD, 100)  # clear of where the proof goes
    os.close(opened)
    os.lseek(fd, 2, os.SEEK_SET)
    own = socket.socket()  # one of the server's own: never the child's
    highest, files = _runner.descriptors()
    assert [fd, str(data)] in [entry[:2] for entry in files]
    assert own.fileno() not in [entry[0] for entry in files]
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover  (the child reports through the pipe)
        try:
            proof, _, _ = _runner._close_inherited(write_end, highest, None, (), files)
            reads_on = os.read(fd, 3) == b"234"
            os.lseek(fd, 8, os.SEEK_SET)
            try:
                os.fstat(own.fileno())
                closed = False
            except OSError:
                closed = True
            os.write(proof, b"1" if reads_on and closed else b"0")
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    assert os.read(read_end, 1) == b"1"
    assert os.lseek(fd, 0, os.SEEK_CUR) == 2  # the child's reads and seek were its own
    for number in (read_end, fd):
        os.close(number)
    own.close()
