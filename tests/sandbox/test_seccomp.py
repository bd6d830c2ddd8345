"""Every execution runs under the syscall filter (sandbox/seccomp.py), on every path: a test
per denied family, each a program that calls the kernel directly (ctypes, no library in the
way) and must get EPERM. The keyring test is the state-crossing one: nothing a program stores
there can reach a later execution."""

from __future__ import annotations

import errno

import pyseccomp
import pytest

from pinbench.core.outcome import Status
from pinbench.sandbox.seccomp import NAMESPACE_FLAGS, program

from .conftest import Run

CALLS = {  # family -> (syscall, arguments): each must fail with EPERM
    "keyring: add a key": ("add_key", 'b"user", b"pinbench-leak", b"secret", 6, -4'),
    "keyring: read the keyring": ("keyctl", "0, -4, 0, 0, 0"),  # KEYCTL_GET_KEYRING_ID
    "keyring: request a key": ("request_key", 'b"user", b"pinbench-leak", None, 0'),
    "namespaces: a new user namespace": ("unshare", "0x10000000"),
    "namespaces: a new network namespace": ("unshare", "0x40000000"),
    "namespaces: enter another": ("setns", "0, 0"),
    "namespaces: clone into a new user namespace": ("clone", "0x10000000 | 17, 0, 0, 0, 0"),
    "tracing: attach to the parent": ("ptrace", "16, os.getppid(), 0, 0"),  # PTRACE_ATTACH
    "tracing: read another's memory": ("process_vm_readv", "os.getppid(), 0, 0, 0, 0, 0"),
    "mounts: mount a tmpfs": ("mount", 'b"none", b"/tmp", b"tmpfs", 0, None'),
    "mounts: open a filesystem context": ("fsopen", 'b"tmpfs", 0'),
    "kernel: load a module": ("init_module", "0, 0, b''"),
    "kernel: load a BPF program": ("bpf", "5, 0, 0"),
    "kernel: open a perf event": ("perf_event_open", "0, 0, -1, -1, 0"),
    "kernel: userfaultfd": ("userfaultfd", "0"),
    "kernel: kexec": ("kexec_load", "0, 0, 0, 0"),
    "clocks: set the time": ("clock_settime", "0, 0"),
}


def _program(name: str, args: str) -> str:
    number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name)
    return f"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
result = libc.syscall({number}, {args})
code = ctypes.get_errno()
def denied():
    return result == -1 and code == errno.EPERM, (result, errno.errorcode.get(code, code))
"""


def test_the_filter_is_built_here() -> None:
    assert program()  # libseccomp is present: every execution below runs filtered


@pytest.mark.parametrize(("name", "args"), list(CALLS.values()), ids=list(CALLS))
def test_a_denied_call_fails_with_eperm(run: Run, name: str, args: str) -> None:
    if pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, name) < 0:
        pytest.skip(f"{name} does not exist on this architecture")
    result = run(_program(name, args), "ok, why = denied()\nassert ok, why")
    assert result.status is Status.PASSED, (result.message, result.stderr[-500:])


def test_clone3_answers_enosys_so_libc_falls_back_to_clone(run: Run) -> None:
    number = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "clone3")
    if number < 0:
        pytest.skip("no clone3 here")
    program_text = f"""
import ctypes, errno, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
result = libc.syscall({number}, 0, 0)
code = ctypes.get_errno()
child = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True)
"""
    test = "assert result == -1 and code == errno.ENOSYS\nassert child.stdout.strip() == '42'"
    result = run(program_text, test)
    assert result.status is Status.PASSED, (result.message, result.stderr[-500:])


def test_threads_and_processes_still_work(run: Run) -> None:
    program_text = """
import multiprocessing, threading
box = []
thread = threading.Thread(target=lambda: box.append(1))
thread.start(); thread.join()
with multiprocessing.Pool(2) as pool:
    squares = pool.map(abs, [-1, -2, -3])
"""
    result = run(program_text, "assert box == [1] and squares == [1, 2, 3]")
    assert result.status is Status.PASSED, (result.message, result.stderr[-500:])


def test_every_namespace_flag_is_in_the_mask() -> None:
    assert NAMESPACE_FLAGS & 0x10000000 and NAMESPACE_FLAGS & 0x40000000
    assert errno.EPERM == 1
