"""What isolation this machine allows, detected once at start by probing the real runner: the
strongest level whose probe run proves no network, a read-only root and a dropped uid."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from pinbench.core.outcome import Limits, Status
from pinbench.sandbox.isolation import FULL, NONE, USERNS, Isolation
from pinbench.sandbox.process import run_job, syscall_filter


def probe(python: Path, isolation: Isolation) -> tuple[bool, str]:
    """Run the runner's probe under `isolation`; True when it proved its protections hold."""
    result = run_job(python, {"mode": "probe", "files": {}}, Limits(wall_seconds=20), isolation)
    record = result.tests
    if result.status is not Status.PASSED:
        return False, (result.message or result.stderr.strip()[-300:] or result.status.value)
    if isolation.net and record.get("network", 1):
        return False, "network still reachable"
    if isolation.mount and record.get("root_writable", 1):
        return False, "root filesystem still writable"
    if isolation.drop_uid and record.get("uid", 0) == 0:
        return False, "still running as root"
    if syscall_filter() and record.get("keyring", 1):
        return False, "the syscall filter did not hold (the kernel keyring is reachable)"
    return True, ""


@functools.cache
def detect() -> Isolation:
    """The strongest isolation whose probe run proves no network and a read-only root."""
    candidates = [FULL, USERNS] if os.geteuid() == 0 else [USERNS]
    forced = os.environ.get("PINBENCH_ISOLATION")
    if forced:
        candidates = [c for c in (FULL, USERNS, NONE) if c.level == forced]
        if not candidates:
            raise ValueError(f"PINBENCH_ISOLATION={forced!r}: expected full, userns or none")
    reasons = []
    for candidate in candidates:
        ok, why = probe(Path(sys.executable), candidate)
        if ok:
            return candidate
        reasons.append(f"{candidate.level}: {why}")
    if candidates and candidates[-1] is NONE:
        return NONE
    degraded = Isolation("none", notes=(*NONE.notes, *reasons))
    warn(degraded)
    return degraded


def warn(isolation: Isolation) -> None:
    """Say loudly, once, that executions are not isolated."""
    console = Console(stderr=True, soft_wrap=True, markup=False)  # notes quote error texts
    console.print(
        Text.assemble(
            ("WARNING: pinbench could not isolate executions on this machine", "bold red"),
            " (generated code will run without network/filesystem isolation):",
        )
    )
    for note in isolation.notes:
        console.print(f"  - {note}")
