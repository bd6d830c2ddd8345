"""Run a program and its test with an environment's interpreter, sandboxed, and grade the proof."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from pinbench import snapshots
from pinbench.envs import system
from pinbench.problems.model import TestKind, TestSpec
from pinbench.sandbox.cgroups import pids_cgroup, pids_root
from pinbench.sandbox.infra_failure import missing_resource
from pinbench.sandbox.isolation import Isolation, UidPool, detect
from pinbench.sandbox.outcome import Execution, Limits, Status
from pinbench.sandbox.warm import ServerBroken, WarmPools, WarmServer

RUNNER = Path(__file__).with_name("_runner.py")
_UIDS = UidPool()
_MAX_PROOF_BYTES = 1 << 20
_MAX_REPO_PROOF_BYTES = 16 << 20  # per-test outcomes and calls of a whole suite
_Result = Callable[..., Execution]

# Only these variables reach a sandboxed program; nothing from the host's environment does.
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def sandbox_environ(python: Path) -> dict[str, str]:
    bins, libs = system.sandbox_paths(python.absolute().parent.parent)
    env = {
        "PATH": ":".join([str(python.parent), *bins, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": "/tmp/pinbench-work",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "NO_COLOR": "1",
    }
    env.update(dict.fromkeys(_THREAD_VARS, "1"))
    if libs:  # an environment's own system packages (envs.system), loaded and found by name
        env["LD_LIBRARY_PATH"] = env["LIBRARY_PATH"] = ":".join(libs)
    return env


def execute(
    python: Path,
    program: str,
    test: TestSpec,
    limits: Limits | None = None,
    isolation: Isolation | None = None,
    *,
    warm: WarmPools | None = None,
    preload: tuple[str, ...] = (),
) -> Execution:
    """Run `program` with `test` under `python`; the outcome is graded from the proof record.

    With `warm`, a warm server with `preload` imported forks the execution (same isolation and
    grading); if no server can take it, the cold path runs it instead.
    """
    limits = limits or Limits()
    if warm is not None:
        try:
            with warm.lease(python, preload) as server:
                return _run_job(python, _job(program, test), limits, warm.isolation, server)
        except ServerBroken:
            warm.fallbacks += 1  # fall back to the cold path, the reference
    return _run_job(python, _job(program, test), limits, isolation or detect())


def _job(program: str, test: TestSpec) -> dict[str, Any]:
    if test.kind is TestKind.REPO:
        return _repo_job(program, test)
    if test.kind is TestKind.PYTEST:
        module = test.module or "solution"
        return {
            "mode": "pytest",
            "program": program,
            "module": module,
            "test_file": f"test_{module}.py",
            "files": {f"{module}.py": program, f"test_{module}.py": test.code},
        }
    if test.module:  # a script importing the program from `<module>.py`
        return {
            "mode": "script",
            "program": program,
            "test": test.code,
            "script": f"test_{test.module}.py",
            "files": {f"{test.module}.py": program},
        }
    return {"mode": "script", "program": program, "test": test.code, "files": {}}


def _repo_job(program: str, test: TestSpec) -> dict[str, Any]:
    if test.repo is None:
        raise ValueError("a repo test names no repository snapshot")
    files = dict(snapshots.tree(test.repo))
    if test.path:
        files[test.path] = program
    return {
        "mode": "repo",
        "program": program,
        "path": test.path,
        "files": files,
        "pythonpath": list(snapshots.load(test.repo).pythonpath),
        "select": list(test.select),
        "trace": test.trace or test.focal is not None,
        "focal": test.focal.model_dump(mode="json") if test.focal else None,
        "untraced": ["tests/", "test/"],
        "record_bytes": _MAX_REPO_PROOF_BYTES,
    }


def probe(python: Path, isolation: Isolation) -> tuple[bool, str]:
    """Run the runner's probe under `isolation`; True when it proved its protections hold."""
    result = _run_job(python, {"mode": "probe", "files": {}}, Limits(wall_seconds=20), isolation)
    record = result.tests
    if result.status is not Status.PASSED:
        return False, (result.message or result.stderr.strip()[-300:] or result.status.value)
    if isolation.net and record.get("network", 1):
        return False, "network still reachable"
    if isolation.mount and record.get("root_writable", 1):
        return False, "root filesystem still writable"
    if isolation.drop_uid and record.get("uid", 0) == 0:
        return False, "still running as root"
    return True, ""


def _run_job(
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
    job["limits"] = {
        "wall_seconds": limits.wall_seconds,
        "address_space": limits.address_space_bytes,
        "cpu_seconds": limits.cpu_seconds,
        "processes": limits.processes,
        "file_size": limits.file_size_bytes,
        "open_files": limits.open_files,
        "tmpfs_bytes": limits.tmpfs_bytes,
    }
    with contextlib.ExitStack() as stack:
        if isolation.drop_uid:  # its own uid: RLIMIT_NPROC caps its processes
            uid = stack.enter_context(_UIDS.lease())
        else:  # the same uid as us: only a cgroup can cap them (moving into one costs ~25 ms)
            uid, group = None, stack.enter_context(pids_cgroup(limits.processes))
            root = pids_root()
            if group and root:  # a warm server finds it relative to the hierarchy it holds
                job["cgroup"] = str(group.relative_to(root)) if server else str(group)
        return _spawn(python, job, limits, isolation, uid, server)


def visible_paths(python: Path) -> list[str]:
    """The directories the sandbox must see: the environment and its base interpreter."""
    return list(_visible_paths(python))


@functools.lru_cache(maxsize=256)
def _visible_paths(python: Path) -> tuple[str, ...]:
    # Resolving symlinks costs ~0.15 ms, a tenth of the host's share of a warm execution; an
    # environment's interpreter link does not change while pinbench runs.
    env_prefix = python.absolute().parent.parent
    base_prefix = python.resolve().parent.parent
    sysroot = env_prefix / system.LINK
    roots = [str(sysroot.resolve())] if sysroot.is_symlink() else []
    return tuple(sorted({str(env_prefix), str(base_prefix), *roots}))


def _spawn(
    python: Path,
    job: dict[str, Any],
    limits: Limits,
    isolation: Isolation,
    uid: int | None,
    server: WarmServer | None,
) -> Execution:
    nonce = secrets.token_hex(16)
    read_end, write_end = os.pipe()
    job.update(nonce=nonce, proof_fd=write_end, isolation=isolation.job_flags(uid))
    proof = bytearray()
    cap = int(job.get("record_bytes", _MAX_PROOF_BYTES))
    # A record that fits the pipe's buffer is read once the run is over; a larger one by a
    # thread while it is written.
    reader = None
    if cap > _MAX_PROOF_BYTES:
        reader = threading.Thread(target=_drain, args=(read_end, proof, cap), daemon=True)
        reader.start()
    with _capture_file("stdout") as out, _capture_file("stderr") as err:
        started = time.monotonic()
        try:
            if server is None:
                returncode, timed_out = _cold(python, job, (out, err, write_end), limits)
            else:
                fds = (out.fileno(), err.fileno(), write_end)
                returncode, timed_out = server.run(job, fds, limits.wall_seconds)
        except (OSError, ServerBroken) as exc:
            os.close(write_end)
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
        if reader is not None:
            reader.join(timeout=5)
        else:
            _drain_ready(read_end, proof, cap)
        seconds = time.monotonic() - started
        stdout, out_full = _read_capped(out, limits)
        stderr, err_full = _read_capped(err, limits)
    return _grade(
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
    python: Path, job: dict[str, Any], fds: tuple[IO[bytes], IO[bytes], int], limits: Limits
) -> tuple[int, bool]:
    """A fresh interpreter running the runner: (exit status, killed by the deadline)."""
    out, err, proof = fds
    proc = subprocess.Popen(
        [str(python), "-I", "-B", str(RUNNER)],
        stdin=subprocess.PIPE,
        stdout=out,
        stderr=err,
        env=sandbox_environ(python),
        cwd="/",
        start_new_session=True,
        pass_fds=(proof,),
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


def _grade(
    *,
    proof: bytes,
    nonce: str,
    returncode: int,
    timed_out: bool,
    output_exceeded: bool,
    base: Execution,
) -> Execution:
    """Trust only a single well-formed record carrying this run's nonce."""

    def result(status: Status, **fields: Any) -> Execution:
        return base.model_copy(update={"status": status, **fields})

    if timed_out:
        return result(Status.TIMEOUT, message=f"wall deadline of {base.limits.wall_seconds:g}s")
    lines = [line for line in proof.split(b"\n") if line.strip()]
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            records.append(None)
    genuine = [r for r in records if isinstance(r, dict) and r.get("nonce") == nonce]
    if len(lines) > 1 or (records and not genuine):
        return result(
            Status.FAILED,
            exc_type="ProofForgery",
            message="something other than the runner wrote to the proof channel",
        )
    if output_exceeded:
        return result(Status.RESOURCE_LIMIT, message="output or file size limit exceeded")
    if not genuine:
        return _without_record(returncode, result)
    return _from_record(genuine[0], returncode, result)


def _without_record(returncode: int, result: _Result) -> Execution:
    """The runner never reached its proof: the program ended the process, or a limit did."""
    limit_signals = {
        128 + signal.SIGXCPU: "CPU time limit exceeded",
        128 + signal.SIGXFSZ: "file size limit exceeded",
        -signal.SIGXCPU: "CPU time limit exceeded",
        -signal.SIGXFSZ: "file size limit exceeded",
    }
    if returncode in limit_signals:
        return result(Status.RESOURCE_LIMIT, message=limit_signals[returncode])
    return result(
        Status.FAILED,
        exc_type="NoProof",
        message=f"process ended (exit status {returncode}) before the tests completed",
    )


def _from_record(record: dict[str, Any], returncode: int, result: _Result) -> Execution:
    status = str(record.get("status", "harness_error"))
    exc_type = record.get("exc_type")
    message = str(record.get("message", ""))
    fields = {
        "exc_type": exc_type,
        "message": message,
        "trace": str(record.get("trace", "")),
        "tests": {k: v for k, v in _tests_of(record).items()},
        "details": record.get("details") if isinstance(record.get("details"), dict) else {},
    }
    if status == "passed":
        if returncode != 0:
            return result(Status.FAILED, exc_type="NoProof", message="runner did not exit cleanly")
        return result(Status.PASSED, **fields)
    if _hit_a_limit(exc_type, message):
        return result(Status.RESOURCE_LIMIT, **fields)
    lacking = missing_resource(exc_type, message, str(fields["trace"]))
    if lacking:
        return result(Status.ENVIRONMENT_ERROR, **{**fields, "message": f"{lacking} ({message})"})
    try:
        return result(Status(status), **fields)
    except ValueError:
        return result(Status.HARNESS_ERROR, **fields)


# EAGAIN (fork refused: process limit), EFBIG (file size limit), ENOSPC (scratch space full)
_LIMIT_ERRNOS = ("[Errno 11]", "[Errno 27]", "[Errno 28]")


def _hit_a_limit(exc_type: object, message: str) -> bool:
    if exc_type == "MemoryError":
        return True
    return exc_type in ("OSError", "BlockingIOError") and any(e in message for e in _LIMIT_ERRNOS)


def _tests_of(record: dict[str, Any]) -> dict[str, int]:
    tests = dict(record.get("tests") or {})
    for key in ("network", "root_writable", "uid"):  # probe facts travel in the same field
        if key in record:
            tests[key] = int(record[key])
    return {k: int(v) for k, v in tests.items() if isinstance(v, (int, bool))}
