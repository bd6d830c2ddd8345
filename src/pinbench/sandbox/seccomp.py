"""The syscall filter every execution runs under, built on the host with libseccomp (through
`pyseccomp`) and handed to the in-sandbox runner as BPF, which installs it just before the
program runs (cold path and each warm child alike).

Docker's default profile is the anchor: the program may use what a program needs and nothing
that reaches the kernel's shared state or administration. Denied with EPERM: the kernel keyring
(it is not namespaced, so it would carry data from one execution to the next, even across
pinbench processes), new namespaces (`unshare`, `setns`, `clone` with a namespace flag),
tracing other processes, mounts, kernel modules and kexec, BPF and perf events,
`userfaultfd`, swap, reboot, the clocks, accounting and quotas, `open_by_handle_at`.
`clone3`, whose flags a filter cannot read, answers ENOSYS so that libc falls back to
`clone`, which it can."""

from __future__ import annotations

import base64
import errno
import functools
import tempfile

DENIED = (
    # keys: shared by every process of a uid, across namespaces and executions
    "add_key", "keyctl", "request_key",
    # namespaces and privilege
    "unshare", "setns", "chroot", "pivot_root",
    # other processes' memory
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # mounts and filesystems
    "mount", "umount2", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount",
    "open_tree", "mount_setattr", "quotactl", "quotactl_fd", "swapon", "swapoff",
    "open_by_handle_at", "name_to_handle_at",
    # the kernel itself
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "bpf", "perf_event_open", "userfaultfd", "acct", "lookup_dcookie", "syslog",
    "iopl", "ioperm", "vhangup", "uselib", "ustat", "sysfs", "_sysctl", "nfsservctl",
    # the clocks everyone shares
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "stime",
)  # fmt: skip
NAMESPACE_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME
)


class SeccompUnavailable(Exception):
    """libseccomp could not be loaded or could not build the filter."""


@functools.cache
def program() -> str:
    """The filter as base64 BPF (the runner decodes and installs it); raises SeccompUnavailable
    when this host has no libseccomp."""
    try:
        import pyseccomp as sc

        native = sc.Arch.NATIVE
        rules = sc.SyscallFilter(defaction=sc.ALLOW)
        for name in DENIED:
            if sc.resolve_syscall(native, name) >= 0:  # not every call exists on every arch
                rules.add_rule(sc.ERRNO(errno.EPERM), name)
        for flag in _bits(NAMESPACE_FLAGS):
            rules.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        if sc.resolve_syscall(native, "clone3") >= 0:
            rules.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        with tempfile.TemporaryFile() as out:
            rules.export_bpf(out)
            out.seek(0)
            bpf = out.read()
    except (ImportError, OSError, RuntimeError, ValueError, AttributeError) as exc:
        raise SeccompUnavailable(f"no syscall filter: libseccomp unavailable ({exc})") from exc
    if not bpf or len(bpf) % 8:
        raise SeccompUnavailable("no syscall filter: libseccomp exported no BPF program")
    return base64.b64encode(bpf).decode("ascii")


def _bits(mask: int) -> list[int]:
    return [1 << i for i in range(mask.bit_length()) if mask >> i & 1]
