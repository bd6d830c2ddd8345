"""Grading: an execution's outcome from the proof record its runner wrote, trusted only when it
is the single well-formed record carrying this run's nonce."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pinbench.core.outcome import Deprecations, Execution, Grading, Status
from pinbench.sandbox.infra_failure import missing_resource

_Result = Callable[..., Execution]
_HERE = Path(__file__).resolve().parent
# The code that decides an outcome: the in-sandbox runner and server, the job it is given, and
# this grader. A verdict reached by other code is another verdict (the outcome cache keys on it).
_GRADING_CODE = (
    *sorted((_HERE / "inside").glob("*.py")), *sorted((_HERE / "inside").glob("*.js")),
    *sorted((_HERE / "inside").glob("*.c")), *sorted((_HERE / "inside").glob("*.?js")),
    _HERE / "jobs.py", _HERE / "execute.py", _HERE / "process.py", _HERE / "zygote.py",
    _HERE / "infra_failure.py",  # which failures are the machine's, not the program's
    Path(__file__).resolve(),
)  # fmt: skip
TRUSTED, IN_PROCESS = "trusted", "in-process"
MODE_VARIABLE = "PINBENCH_GRADING"


CAPTURE_VARIABLE = "PINBENCH_DEPRECATIONS"


def deprecation_capture() -> bool:
    """Whether executions record the deprecation signals their pinned libraries raise (on
    unless PINBENCH_DEPRECATIONS=off: the switch is for measuring what capture costs)."""
    value = os.environ.get(CAPTURE_VARIABLE, "on").strip().lower() or "on"
    if value not in ("on", "off"):
        raise ValueError(f"{CAPTURE_VARIABLE}={value!r}: 'on' or 'off'")
    return value == "on"


def grading_mode() -> str:
    """`trusted` (the default: the test and the verdict in a grader process the program cannot
    reach; values cross as inert data, the pinned libraries' own values as copies), or
    `in-process` when PINBENCH_GRADING says so (the test in the program's own process: about
    twice as fast, forgeable, and every report says so). An environment variable, so that
    every process of a run (Ray's workers too) grades the same way."""
    mode = os.environ.get(MODE_VARIABLE, TRUSTED).strip() or TRUSTED
    if mode not in (TRUSTED, IN_PROCESS):
        raise ValueError(f"{MODE_VARIABLE}={mode!r}: the grading is {TRUSTED!r} or {IN_PROCESS!r}")
    return mode


@functools.cache
def _code_digest() -> str:
    digest = hashlib.sha256()
    for path in _GRADING_CODE:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def grading_digest() -> str:
    """A digest of the grading code, mode and deprecation capture, so that no outcome reached
    before a change to it (a forged pass a fix now refuses), or in another mode, is served
    after it."""
    state = f"{_code_digest()}:{grading_mode()}:{deprecation_capture()}"
    return hashlib.sha256(state.encode()).hexdigest()[:16]


def current_grading() -> Grading:
    """The grading mode every execution of this pinbench gets."""
    mode = grading_mode()
    return Grading(mode=mode, forgeable=mode != TRUSTED, digest=grading_digest())


def grade(
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
        except (ValueError, RecursionError):  # not JSON, or nested past the decoder's depth
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


_LIMIT_SIGNALS = {
    128 + signal.SIGXCPU: "CPU time limit exceeded",
    128 + signal.SIGXFSZ: "file size limit exceeded",
    -signal.SIGXCPU: "CPU time limit exceeded",
    -signal.SIGXFSZ: "file size limit exceeded",
}


def _without_record(returncode: int, result: _Result) -> Execution:
    """The runner never reached its proof: the program ended the process, or a limit did."""
    if returncode in _LIMIT_SIGNALS:
        return result(Status.RESOURCE_LIMIT, message=_LIMIT_SIGNALS[returncode])
    return result(
        Status.FAILED,
        exc_type="NoProof",
        message=f"process ended (exit status {returncode}) before the tests completed",
    )


def _from_record(record: dict[str, Any], returncode: int, result: _Result) -> Execution:
    """The outcome a record carrying the nonce states. It is still data from the program's
    process: a field of the wrong type or shape fails the sample, never the harness."""
    try:
        return _stated(record, returncode, result)
    except (TypeError, ValueError, RecursionError) as exc:  # pydantic's errors are ValueErrors
        reason = f"{type(exc).__name__}: {exc}"[:300]
        return result(Status.FAILED, exc_type="MalformedProof", message=f"proof record: {reason}")


def _stated(record: dict[str, Any], returncode: int, result: _Result) -> Execution:
    status = str(record.get("status", "harness_error"))
    exc_type = record.get("exc_type")
    if exc_type is not None and not isinstance(exc_type, str):
        raise TypeError(f"exc_type is {type(exc_type).__name__}")
    message = str(record.get("message", ""))
    fields = {
        "exc_type": exc_type,
        "message": message,
        "trace": str(record.get("trace", "")),
        "tests": {k: v for k, v in _tests_of(record).items()},
        "details": record.get("details") if isinstance(record.get("details"), dict) else {},
        "deprecations": _deprecations_of(record),
    }
    program_exit = record.get("program_exit")  # the grader saw the program's process end so
    if status != "passed" and program_exit in _LIMIT_SIGNALS:
        return result(Status.RESOURCE_LIMIT, **{**fields, "message": _LIMIT_SIGNALS[program_exit]})
    if status == "passed":
        if returncode != 0:
            return result(Status.FAILED, exc_type="NoProof", message="runner did not exit cleanly")
        return result(Status.PASSED, **fields)
    if _hit_a_limit(exc_type, message):
        return result(Status.RESOURCE_LIMIT, **fields)
    lacking = missing_resource(exc_type, message, str(fields["trace"]))
    if lacking:
        claim = {**fields, "message": f"{lacking} ({message})", "claimed": True}
        return result(Status.ENVIRONMENT_ERROR, **claim)
    try:
        stated = Status(status)
    except ValueError:
        stated = Status.HARNESS_ERROR
    return result(stated, **fields, claimed=stated.is_infrastructure)


# EAGAIN (fork refused: process limit), EFBIG (file size limit), ENOSPC (scratch space full)
_LIMIT_ERRNOS = ("[Errno 11]", "[Errno 27]", "[Errno 28]")


def _hit_a_limit(exc_type: object, message: str) -> bool:
    if exc_type == "MemoryError":
        return True
    return exc_type in ("OSError", "BlockingIOError") and any(e in message for e in _LIMIT_ERRNOS)


def _tests_of(record: dict[str, Any]) -> dict[str, int]:
    tests = dict(record.get("tests") or {})
    for key in ("network", "root_writable", "uid", "keyring"):  # probe facts, in the same field
        if key in record:
            tests[key] = int(record[key])
    return {k: int(v) for k, v in tests.items() if isinstance(v, (int, bool))}


def _deprecations_of(record: dict[str, Any]) -> Deprecations | None:
    """The record's deprecation signals; one that is not of their shape counts as tampered
    (the capture's output was altered), never as clean."""
    data = record.get("deprecations")
    if data is None:
        return None
    try:
        found = tuple(
            {k: v[:300] if isinstance(v, str) else v for k, v in entry.items()}
            for entry in data["found"][:50]
        )
        stated = {"found": found, "tampered": data["tampered"]}
        return Deprecations.model_validate(stated, strict=True)
    except (TypeError, KeyError, AttributeError, ValidationError):
        return Deprecations(tampered=True)
