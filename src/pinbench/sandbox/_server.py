"""pinbench's warm server, executed by the *environment's* interpreter (Python 3.6+).

It enters its own mount and network namespaces, builds the read-only root once, imports the
libraries it was told to preload, then serves jobs from the host over a SOCK_SEQPACKET socket:
for each job it forks a child that runs exactly the cold path's isolation and grading
(`_runner.run_job`), so a program cannot tell, and gets the same outcome, warm or cold.

Protocol: the host sends the job as JSON with three fds attached (stdout, stderr, proof pipe);
the server answers {"exit": status, "timeout": bool} when the child has ended.
"""

import array
import gc
import importlib
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _runner  # noqa: E402  (the runner sits beside this file)

MAX_MESSAGE = 4 << 20


def _receive(sock):
    fds = array.array("i")
    msg, ancdata, _flags, _addr = sock.recvmsg(MAX_MESSAGE, socket.CMSG_LEN(8 * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    return msg, list(fds)


def _send(sock, payload):
    sock.send(json.dumps(payload).encode("utf-8"))


def _status(status):
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _child(job, fds, devnull):
    import signal

    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the server's deadline handler is not theirs
    out, err, proof = fds
    os.dup2(devnull, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    for fd in (out, err, devnull):
        if fd > 2:
            os.close(fd)
    job["proof_fd"] = proof
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
    except Exception as exc:
        _send(sock, {"ready": False, "error": "sandbox setup failed: %s" % (exc,)})
        return
    failed = {}
    for name in config.get("preload", ()):
        try:
            importlib.import_module(name)
        except BaseException as exc:  # a library that does not import is the host's to report
            failed[name] = "%s: %s" % (type(exc).__name__, exc)
    _runner.warm_up()
    if hasattr(gc, "freeze"):  # 3.7+: children's collections leave the preloaded pages shared
        gc.freeze()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    _send(sock, {"ready": True, "failed": failed, "pid": os.getpid()})
    while True:
        msg, fds = _receive(sock)
        if not msg:
            return  # the host closed the socket: shut down
        job = json.loads(msg.decode("utf-8"))
        pid = os.fork()
        if pid == 0:
            sock.close()
            _child(job, fds, devnull)
        for fd in fds:
            os.close(fd)
        status, timed_out = _runner.clean_up_after(pid, float(job["limits"]["wall_seconds"]))
        _send(sock, {"exit": _status(status), "timeout": timed_out})


if __name__ == "__main__":
    main()
