"""The process primitive: one job run by the in-sandbox runner, cold (a fresh interpreter) or
forked by a warm server, under the limits and isolation given, its output captured and capped
and its proof record read back for grading."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from pinbench.core.outcome import Execution, Limits, Status
from pinbench.sandbox import seccomp
from pinbench.sandbox.cgroups import pids_cgroup, pids_root
from pinbench.sandbox.environ import sandbox_environ, visible_paths
from pinbench.sandbox.grade import TRUSTED, deprecation_capture, grade, grading_mode
from pinbench.sandbox.isolation import Isolation, UidPool
from pinbench.sandbox.warm import ServerBroken, WarmServer

RUNNER = Path(__file__).parent / "inside" / "_runner.py"
MAX_PROOF_BYTES = 1 << 20
_UIDS = UidPool()


def syscall_filter() -> str:
    """The filter every execution installs; without libseccomp, none, said once and loudly."""
    try:
        return seccomp.program()
    except seccomp.SeccompUnavailable as exc:
        _warn_once(str(exc))
        return ""


@functools.cache
def _warn_once(message: str) -> None:
    print(f"WARNING: pinbench runs programs without a syscall filter: {message}", file=sys.stderr)


def run_job(
    python: Path,
    job: dict[str, Any],
    limits: Limits,
    isolation: Isolation,
    server: WarmServer | None = None,
) -> Execution:
    if not python.exists():
        return Execution(
            status=Status.ENVIRONMENT_ERROR,
            message=f"interpreter {python} does not exist",
            isolation=isolation.level,
            limits=limits,
        )
    job["keep"] = visible_paths(python)
    job["env_root"] = str(python.absolute().parent.parent)
    job["seccomp"] = syscall_filter()
    job["limits"] = {
        "wall_seconds": limits.wall_seconds,
        "address_space": limits.address_space_bytes,
        "cpu_seconds": limits.cpu_seconds,
        "processes": limits.processes,
        "file_size": limits.file_size_bytes,
        "open_files": limits.open_files,
        "tmpfs_bytes": limits.tmpfs_bytes,
    }
    captured = (
        "script",
        "pytest",
        "jest",
        "repo",
        "node-repo",
        "java-repo",
        "cpp-repo",
        "csharp-repo",
    )
    job["deprecations"] = job["mode"] in captured and deprecation_capture()
    secret = _split_secret(job)
    with contextlib.ExitStack() as stack:
        if isolation.drop_uid:  # its own uid: RLIMIT_NPROC caps its processes
            uid = stack.enter_context(_UIDS.lease())
        else:  # the same uid as us: only a cgroup can cap them (moving into one costs ~25 ms)
            uid, group = None, stack.enter_context(pids_cgroup(limits.processes))
            root = pids_root()
            if group and root:  # a warm server finds it relative to the hierarchy it holds
                job["cgroup"] = str(group.relative_to(root)) if server else str(group)
        trusted_node = job.get("grading") == TRUSTED and job["mode"] == "jest"
        if trusted_node and server is not None and server.zygote_dir:
            job["zygote"] = {"dir": str(server.zygote_dir)}  # forked by its Node zygotes
        return _spawn(python, job, limits, isolation, uid, server, secret)


def _split_secret(job: dict[str, Any]) -> dict[str, Any] | None:
    """Under trusted grading, what the program's process must never hold: the test (a file of
    `files`, or a script's `test`), later joined by the nonce. The runner's grader reads it from
    its own descriptor once the program's process is forked. None when the job is graded in
    the program's process (the in-process mode; a test its item's reference passes only that
    way; repository suites, builds and probes)."""
    if (
        grading_mode() != TRUSTED
        or job.get("in_process")
        or job["mode"] not in ("pytest", "script", "jest")
    ):
        return None
    job["grading"] = TRUSTED
    if job["mode"] in ("pytest", "jest"):
        name = job["test_file"]
        return {"test_files": {name: job["files"].pop(name)}}
    return {"test": job.pop("test")}


def _secret_fd(secret: dict[str, Any]) -> int:
    """The secret in an anonymous file, at its start, for the runner to read."""
    data = json.dumps(secret).encode()
    try:
        fd = os.memfd_create("pinbench-secret")
    except (AttributeError, OSError):
        fd, path = tempfile.mkstemp(prefix="pinbench-secret-")
        os.unlink(path)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _spawn(
    python: Path,
    job: dict[str, Any],
    limits: Limits,
    isolation: Isolation,
    uid: int | None,
    server: WarmServer | None,
    secret: dict[str, Any] | None,
) -> Execution:
    nonce = secrets.token_hex(16)
    read_end, write_end = os.pipe()
    job.update(proof_fd=write_end, isolation=isolation.job_flags(uid))
    secret_fd = None
    if secret is None:
        job["nonce"] = nonce
    else:
        secret_fd = _secret_fd({**secret, "nonce": nonce})
        job["secret_fd"] = secret_fd
    proof = bytearray()
    cap = int(job.get("record_bytes", MAX_PROOF_BYTES))
    # A record that fits the pipe's buffer is read once the run is over; a larger one by a
    # thread while it is written.
    reader = None
    if cap > MAX_PROOF_BYTES:
        reader = threading.Thread(target=_drain, args=(read_end, proof, cap), daemon=True)
        reader.start()
    with _capture_file("stdout") as out, _capture_file("stderr") as err:
        started = time.monotonic()
        try:
            passed = (write_end,) if secret_fd is None else (write_end, secret_fd)
            if server is None:
                returncode, timed_out = _cold(python, job, (out, err), passed, limits)
            else:
                fds = (out.fileno(), err.fileno(), *passed)
                returncode, timed_out = server.run(job, fds, limits.wall_seconds)
        except (OSError, ServerBroken) as exc:
            os.close(write_end)
            if secret_fd is not None:
                os.close(secret_fd)
            if reader is not None:
                reader.join(timeout=5)  # it owns the read end
            else:
                os.close(read_end)
            if isinstance(exc, ServerBroken):
                raise
            return Execution(
                status=Status.ENVIRONMENT_ERROR,
                message=f"cannot start {python}: {exc}",
                isolation=isolation.level,
                limits=limits,
            )
        os.close(write_end)
        if secret_fd is not None:
            os.close(secret_fd)
        if reader is not None:
            reader.join(timeout=5)
        else:
            _drain_ready(read_end, proof, cap)
        seconds = time.monotonic() - started
        stdout, out_full = _read_capped(out, limits)
        stderr, err_full = _read_capped(err, limits)
    return grade(
        proof=bytes(proof),
        nonce=nonce,
        returncode=returncode,
        timed_out=timed_out,
        output_exceeded=out_full or err_full,
        base=Execution(
            status=Status.HARNESS_ERROR,
            stdout=stdout,
            stderr=stderr,
            exit_code=returncode,
            seconds=seconds,
            isolation=isolation.level,
            path="cold" if server is None else "warm",
            limits=limits,
        ),
    )


def _capture_file(name: str) -> IO[bytes]:
    """An anonymous in-memory file (RLIMIT_FSIZE still applies to it) for captured output."""
    try:
        return os.fdopen(os.memfd_create(f"pinbench-{name}"), "w+b")
    except (AttributeError, OSError):
        return tempfile.TemporaryFile()


def _cold(
    python: Path,
    job: dict[str, Any],
    streams: tuple[IO[bytes], IO[bytes]],
    passed: tuple[int, ...],
    limits: Limits,
) -> tuple[int, bool]:
    """A fresh interpreter running the runner: (exit status, killed by the deadline)."""
    out, err = streams
    proc = subprocess.Popen(
        [str(python), "-I", "-S", "-B", str(RUNNER)],
        stdin=subprocess.PIPE,
        stdout=out,
        stderr=err,
        env=sandbox_environ(python),
        cwd="/",
        start_new_session=True,
        pass_fds=passed,
    )
    timed_out = _feed_and_wait(proc, json.dumps(job).encode(), limits.wall_seconds)
    _kill_group(proc.pid)  # whatever it left behind outside a pid namespace
    return proc.returncode, timed_out


def _feed_and_wait(proc: subprocess.Popen[bytes], payload: bytes, wall: float) -> bool:
    """Send the job, wait for the deadline; True when the deadline killed the process group."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    try:
        proc.wait(timeout=wall)
        return False
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        proc.wait()
        return True


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _drain(fd: int, sink: bytearray, cap: int) -> None:
    """Read the proof pipe to EOF, keeping at most `cap` bytes: in a thread, for records
    larger than the pipe's buffer, joined with a timeout after the run."""
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while chunk := pipe.read(65536):
            if len(sink) < cap:
                sink.extend(chunk[: cap - len(sink)])


def _drain_ready(fd: int, sink: bytearray, cap: int) -> None:
    """Read what the ended run left in the proof pipe, without waiting: the runner wrote its
    record before exiting, and a leftover process still holding the write end (possible only
    without a pid namespace) must not hang the host."""
    os.set_blocking(fd, False)
    try:
        while len(sink) < cap:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            sink.extend(chunk[: cap - len(sink)])
    except BlockingIOError:
        pass
    finally:
        os.close(fd)


def _read_capped(fh: IO[bytes], limits: Limits) -> tuple[str, bool]:
    size = fh.seek(0, os.SEEK_END)
    fh.seek(0)
    data = fh.read(limits.output_bytes)
    text = data.decode("utf-8", errors="replace")
    if size > limits.output_bytes:
        text += f"\n[... {size - limits.output_bytes} more bytes not kept]"
    return text, size >= limits.file_size_bytes
