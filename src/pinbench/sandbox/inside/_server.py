"""pinbench's warm server, executed by the *environment's* interpreter (Python 3.6+).

It enters its own namespaces, builds the read-only root once, imports the libraries it was told
to preload, then serves jobs from the host over a SOCK_SEQPACKET socket: for each job it forks a
child that runs the cold path's isolation and grading (`_runner.run_job`), so a program gets
the same sandbox and the same outcome, warm or cold. Between jobs, while the host reads the
outcome, it prepares the next child's state: fresh mount (scratch) and IPC namespaces, fresh
random seeds.

Protocol: the host sends the job as JSON with three fds attached (stdout, stderr, proof pipe);
the server answers {"exit": status, "timeout": bool} when the child and all it left have ended.
"""

import array
import gc
import importlib
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _deprecations  # noqa: E402  (beside this file, as the runner)
import _runner  # noqa: E402  (the runner sits beside this file)
import _values  # noqa: E402  (the codec's, beside it)
import _zygotes  # noqa: E402

MAX_MESSAGE = 4 << 20


def _receive(sock, buffer):
    """One job and its fds, received into the server's one buffer (`_buffer`)."""
    fds = array.array("i")
    size, ancdata, _flags, _addr = sock.recvmsg_into([buffer], socket.CMSG_LEN(8 * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    return bytes(buffer[:size]), list(fds)


def _buffer():
    """The server's receive buffer: a fresh 4 MB one per job would be an mmap, page faults and
    an munmap every execution. A private anonymous mapping, not a bytearray: only the pages a
    job's message was written to are resident (a zero-filled bytearray would be 1 024 of them,
    a sixth of a numpy server's memory), and every fork copies, and every child's exit tears
    down, the page table of what is resident."""
    import mmap

    return mmap.mmap(-1, MAX_MESSAGE, flags=mmap.MAP_PRIVATE)


def _send(sock, payload):
    sock.send(json.dumps(payload).encode("utf-8"))


def _status(status):
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _fork_function():
    """fork(2) as cheaply as this server allows; (the call, whether it is the lean one).

    CPython's os.fork runs after-fork hooks in the child: threading's alone copies ~130 pages
    (~0.4 ms of a run that costs ~4). A server with only its main thread needs none of them
    but reseeding random, which the server does between executions (`_reseed`). With another
    thread (a preloaded library's), a runtime without a GIL, or one newer than those tested:
    os.fork."""
    import threading

    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    if threading.active_count() != 1 or not gil or sys.version_info >= (3, 14):
        return os.fork, False
    try:
        import ctypes

        # PyDLL: the call keeps the GIL, as os.fork does
        fork = ctypes.PyDLL(None, use_errno=True).fork
    except (OSError, AttributeError):
        return os.fork, False
    fork.restype, fork.argtypes = ctypes.c_int, ()

    def lean_fork():
        pid = fork()
        if pid < 0:
            raise OSError(ctypes.get_errno(), "fork failed")
        return pid

    return lean_fork, True


def _reseed():
    """A fresh seed for the random generators a program may use without seeding them, as a
    fresh interpreter would have. Done in the server between executions, while no child shares
    its pages (in a child it would copy ~90 pages), so the next child inherits it. numpy's
    global generator gets 128 bits from the OS through its array seeding (its own seeding from
    entropy costs ~0.13 ms, a few per cent of a run)."""
    entropy = os.urandom(16)
    module = sys.modules.get("random")
    if module is not None:
        try:
            module.seed(entropy)
        except Exception:
            pass
    module = sys.modules.get("numpy.random")
    if module is not None:
        try:
            module.seed([int.from_bytes(entropy[i : i + 4], "little") for i in (0, 4, 8, 12)])
        except Exception:
            pass


def _child(job, fds, devnull, sock):
    import signal

    sock.close()
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the server's deadline handler is not theirs
    out, err, proof = fds[:3]
    os.dup2(devnull, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    for fd in (out, err, devnull):
        if fd > 2:
            os.close(fd)
    job["proof_fd"] = proof
    if len(fds) > 3:  # the grader's secret (trusted grading): the server never reads it
        job["secret_fd"] = fds[3]
    _runner.run_job(job, in_server=True)
    os._exit(70)  # run_job always exits; this is only reached if it did not


def main():
    config = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, int(config["control_fd"]))
    iso = config["isolation"]
    try:
        if config.get("cgroup_root"):  # opened before the new root hides it
            _runner.CGROUP_ROOT_FD.append(os.open(config["cgroup_root"], os.O_RDONLY))
        _runner.prepare_server(iso, config["keep"], int(config["tmpfs_bytes"]))
        _runner.enable_site()  # packages' startup hooks run inside the namespaces, not before
    except Exception as exc:
        _send(sock, {"ready": False, "error": "sandbox setup failed: %s" % (exc,)})
        return
    _deprecations.install()  # before the libraries: their `from warnings import warn` binds it
    failed = {}
    for name in config.get("preload", ()):
        try:
            importlib.import_module(name)
        except BaseException as exc:  # a library that does not import is the host's to report
            failed[name] = "%s: %s" % (type(exc).__name__, exc)
    _runner.warm_up()
    _values.named_global(None)  # the loaded packages' sentinels: once, not in every child
    if hasattr(gc, "freeze"):  # 3.7+: children's collections leave the preloaded pages shared
        gc.freeze()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    fork, _ = _fork_function()
    tmpfs_bytes = fresh_bytes = int(config["tmpfs_bytes"])  # the next child's fresh scratch
    try:  # the namespace as built stays a clean template: no child runs in it
        _runner.renew_namespaces(iso, tmpfs_bytes)
    except Exception as exc:
        _send(sock, {"ready": False, "error": "sandbox setup failed: %s" % (exc,)})
        return
    _send(sock, {"ready": True, "failed": failed, "pid": os.getpid()})
    buffer = _buffer()
    zygotes = _zygotes.Zygotes(iso, bool(config.get("node_large_pages", True)))
    node_jobs = 0  # trusted Node jobs that asked for the zygotes
    while True:
        msg, fds = _receive(sock, buffer)
        if not msg:
            return  # the host closed the socket: shut down
        job = json.loads(msg.decode("utf-8"))
        wanted = int(job["limits"].get("tmpfs_bytes") or tmpfs_bytes)
        if wanted != fresh_bytes:  # this job asks for another scratch size
            _runner.renew_namespaces(iso, wanted)
        if job.get("zygote") and (job.get("isolation") or {}).get("uid") is not None:
            # from this server's second such job: starting the zygotes costs about what one
            # execution in fresh processes does, and a server may be asked for only one
            node_jobs += 1
            if node_jobs >= 2:
                limits = job["limits"]
                job["zygote_fds"] = zygotes.control_fds(job["zygote"], job["env_root"], limits)
        job["highest_fd"], job["library_files"] = _runner.descriptors()
        stalls = _zygotes.Stalls(zygotes.pids()) if job.get("zygote_fds") else None
        status, timed_out = _runner.fork_and_wait(
            fork,
            lambda: _child(job, fds, devnull, sock),
            float(job["limits"]["wall_seconds"]),
            spare=zygotes.pids(),
            stalls=stalls,
        )
        zygotes.forget_dead()
        for fd in fds:
            os.close(fd)
        if stalls is not None and stalls.found:  # not the program's doing: the host runs it again
            _send(sock, {"exit": _status(status), "timeout": False, "stalled": True})
        else:
            _send(sock, {"exit": _status(status), "timeout": timed_out})
        # Off the critical path, while the host reads the outcome: the next child's state.
        _reseed()
        try:
            _runner.renew_namespaces(iso, tmpfs_bytes)
        except Exception as exc:  # the host finds the socket closed and starts another server
            sys.stderr.write("cannot renew the sandbox's namespaces: %s\n" % (exc,))
            return
        fresh_bytes = tmpfs_bytes


if __name__ == "__main__":
    main()
