"""A warm server's Node zygotes (_pinbench_zygote.js): one for the program's side of trusted
grading, in a pid namespace of its own, one for the grader's; started on the first Node job
that asks for them, in the server's template mount namespace (no execution's scratch), and
kept while every execution ends clean. Python 3.6+, like the runner."""

import ctypes
import json
import os
import socket

import _runner  # noqa: E402  (beside this file)

ROLES = ("program", "grader")
_START_SECONDS = 60.0


class ZygoteError(Exception):
    pass


class Zygotes:
    def __init__(self, iso, large_pages=True):
        self.iso = iso
        self.large_pages = large_pages  # Node's code on huge pages (`_large_pages`)
        self.live = {}  # role -> (pid in the server's namespace, control socket)
        self.failed = None  # why they could not start (then no job asks again)

    def pids(self):
        return [pid for pid, _ in self.live.values()]

    def control_fds(self, spec, env_root, limits):
        """The zygotes' control sockets for a job, started if need be; None when they cannot
        run here (the job then starts fresh processes). `limits`: the job's, whose address
        space the zygotes start under."""
        if self.failed is not None:
            return None
        space = int(limits.get("address_space") or 0)
        try:
            for role in ROLES:
                if role not in self.live:
                    self.live[role] = _start_preloaded(
                        role, spec["dir"], env_root, self.iso, space, self.large_pages
                    )
        except Exception as exc:  # noqa: BLE001 (any failure: fresh processes instead)
            self.failed = str(exc)
            self.close()
            return None
        return [self.live[role][1].fileno() for role in ROLES]

    def forget_dead(self):
        """After an execution: drop the zygotes that are gone (killed with what the execution
        left, when it did not end clean)."""
        for role, (pid, sock) in list(self.live.items()):
            if not _alive(pid):
                sock.close()
                del self.live[role]

    def close(self):
        for pid, sock in self.live.values():
            sock.close()
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        self.live = {}


class Stalls(object):
    """Watches the zygotes' children during one execution for a stall: a child forked from a
    zygote has none of the zygote's threads, and V8 in it may post a task to Node's worker
    pool (a heap compaction's parallel job, Node 14's V8 does so even single-threaded); the
    pool's condition variable was copied with the zygote's waiters in it, and the child's
    pthread_cond_signal then waits for them forever (seen with gdb: uv_cond_signal under
    NodePlatform::CallOnWorkerThread under MarkCompactCollector). `check()` is True once a
    child has sat in a futex wait without spending CPU since the previous check; the server
    then ends the execution and the host runs it again on the cold path, in fresh processes.
    A program that waits on a futex itself (Atomics.wait) is run again the same way: slower,
    never a wrong verdict."""

    def __init__(self, zygote_pids):
        self.zygotes = list(zygote_pids)
        self.seen = {}
        self.found = False

    def check(self):
        seen = {}
        for zygote in self.zygotes:
            try:
                with open("/proc/%d/task/%d/children" % (zygote, zygote)) as fh:
                    children = fh.read().split()
            except (IOError, OSError):
                continue
            for child in children:
                try:
                    with open("/proc/%s/wchan" % child) as fh:
                        waiting = "futex" in fh.read()
                    with open("/proc/%s/stat" % child) as fh:
                        fields = fh.read().rsplit(")", 1)[1].split()
                    cpu = int(fields[11]) + int(fields[12])
                except (IOError, OSError, IndexError, ValueError):
                    continue
                if waiting:
                    seen[child] = cpu
                    if self.seen.get(child) == cpu:
                        self.found = True
        self.seen = seen
        return self.found


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (IOError, OSError, IndexError):
        return False


CONTROL_FD = 3


def _only_descriptors(control):
    """Before the zygote's exec: the standard streams and its control socket (at CONTROL_FD)
    and nothing else. The server holds the descriptors of the job it was handling (its output,
    proof pipe, the grader's secret), and every child of the zygote would inherit what it
    holds."""
    os.dup2(control, CONTROL_FD)  # inheritable
    if _runner._libc.syscall(_runner.CLOSE_RANGE, CONTROL_FD + 1, ctypes.c_uint(0xFFFFFFFF), 0):
        import resource

        os.closerange(CONTROL_FD + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _start_preloaded(role, directory, env_root, iso, space, large_pages):
    """A zygote with the environment's pinned packages loaded, or without them when one starts
    a thread as it loads (a process with another thread cannot fork safely)."""
    try:
        return _start(role, directory, env_root, iso, space, large_pages, bare=False)
    except ZygoteError as exc:
        if "threads" not in str(exc):
            raise
    return _start(role, directory, env_root, iso, space, large_pages, bare=True)


def _start(role, directory, env_root, iso, space, large_pages, bare):
    """One zygote. It starts under the jobs' address-space limit (as a soft limit: a child may
    take another), as a fresh Node would: V8 sizes its reservations (WebAssembly's guard
    regions) by it, and a zygote that reserved more than a child's limit would leave the child
    no room to grow its heap."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    node = os.path.join(env_root, "bin", "node" if role == "program" else "harness-node")
    release = _runner._node_version(
        env_root, "node_version" if role == "program" else "harness_node"
    )
    # --no-lazy: every function Node loads as it starts (its own modules, the harness's) is
    # compiled here once, where a child would compile each it calls on first call: a quarter
    # of a child's CPU. The zygote turns lazy compiling back on before its children run
    # anything of their own (_pinbench_zygote.js).
    # --min-semi-space-size: the young generation a child starts with, empty (the zygote
    # collects it), stays large enough for an execution's allocations: V8 would shrink it to
    # 1 MB after the zygote's first collections, and every child would then collect.
    flags = ["--single-threaded", "--no-lazy", "--min-semi-space-size=16"]
    flags += _large_pages(release) if large_pages else []
    script = [
        os.path.join(directory, "_pinbench_zygote.js"),
        os.path.join(directory, "pinbench_zygote.node"),
    ]
    argv = [node] + flags + script + [str(CONTROL_FD), role, env_root] + (["bare"] if bare else [])
    told, tell = os.pipe()
    current = os.open("/proc/self/ns/mnt", os.O_RDONLY)
    _runner._check(_runner._libc.setns(_runner.TEMPLATE_NS[0], _runner.CLONE_NEWNS), "setns")
    try:
        pid = os.fork()
        if pid == 0:
            try:
                ours.close()
                os.close(told)
                if role == "program" and iso.get("pid"):  # pid 1 of a namespace of its own
                    flags = ctypes.c_int(_runner.CLONE_NEWPID)
                    _runner._check(_runner._libc.unshare(flags), "unshare")
                    inner = os.fork()
                    if inner:
                        os.write(tell, str(inner).encode())
                        os._exit(0)
                else:
                    os.write(tell, str(os.getpid()).encode())
                os.close(tell)
                if space:
                    import resource

                    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
                    soft = space if hard == resource.RLIM_INFINITY else min(space, hard)
                    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
                _only_descriptors(theirs.fileno())
                os.chdir("/")
                env = _runner._node_env()
                env["UV_USE_IO_URING"] = "0"  # no ring memory shared with every child
                os.execve(node, argv, env)
            finally:
                os._exit(127)
    finally:
        _runner._check(_runner._libc.setns(current, _runner.CLONE_NEWNS), "setns")
        os.close(current)
    theirs.close()
    os.close(tell)
    try:
        zygote = int(os.read(told, 64) or b"0")
    finally:
        os.close(told)
    if role == "program" and iso.get("pid"):
        os.waitpid(pid, 0)  # the intermediate; the zygote is now the server's child
    ready = _answer(ours, 64)
    if ready != b"ready" or not zygote:
        ours.close()
        if zygote:
            try:
                os.kill(zygote, 9)
            except OSError:
                pass
        why = " (a pinned package starts threads)" if ready == b"threads" else ""
        raise ZygoteError("the %s zygote did not start%s" % (role, why))
    return zygote, ours


def _large_pages(release):
    """Node's own code remapped to transparent huge pages (Node 12.17+ and 13.6+; where the kernel
    or the build cannot, Node goes on without saying so). A child forked from the zygote then
    shares that code through a few page-table entries copied at the fork, where a file-backed
    text is not copied at all and every child faults in the pages it runs again: a tenth of a
    child's CPU (`bench/node.py`)."""
    try:
        major, minor = (int(part) for part in release.split(".")[:2])
    except ValueError:
        return []
    if (major, minor) >= (13, 6) or (major == 12 and minor >= 17):
        return ["--use-largepages=silent"]
    return []


def _answer(sock, size):
    """The next message on `sock`, waited for up to _START_SECONDS (b"" if none came)."""
    sock.settimeout(_START_SECONDS)
    try:
        return sock.recv(size)
    except socket.timeout:
        return b""
    finally:
        sock.settimeout(None)


def ask(control_fd, message, fds):
    """Ask a zygote for a child; the reply socket to wait on (`ready`) and end it by (`end`)."""
    import array

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    mount = os.open("/proc/self/ns/mnt", os.O_RDONLY)
    ipc = os.open("/proc/self/ns/ipc", os.O_RDONLY)
    control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, os.dup(control_fd))
    try:
        sent = [theirs.fileno(), mount, ipc, 1, 2] + list(fds)
        control.sendmsg(
            [json.dumps(message).encode("utf-8")],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", sent))],
        )
    finally:
        control.close()
        theirs.close()
        os.close(mount)
        os.close(ipc)
    return ours


def ready(reply):
    """Wait until the child `ask` asked for is ready (its descriptors in place, its uid, limits
    and filter set), else end it and raise ZygoteError."""
    answer = _answer(reply, 65536)
    if answer != b"ready":
        try:
            why = json.loads(answer.decode("utf-8", "replace"))["error"]
        except (ValueError, KeyError, TypeError):
            why = "no answer"
        end(reply)
        raise ZygoteError("the zygote's child did not start: %s" % (why,))


def end(reply):
    """End a zygote's child (and all it left); its wait status (None if the zygote is gone)."""
    return end_all([reply])[0]


def end_all(replies):
    """End zygotes' children at once (each zygote tears its child down while the others do);
    their wait statuses, None for one whose zygote is gone."""
    asked = []
    for reply in replies:
        try:
            reply.send(b"end")
            asked.append(True)
        except OSError:
            asked.append(False)
    statuses = []
    for reply, sent in zip(replies, asked):
        try:
            answer = reply.recv(4096) if sent else b""
            statuses.append(int(json.loads(answer.decode("utf-8"))["status"]))
        except (OSError, ValueError, KeyError, TypeError):
            statuses.append(None)
        finally:
            reply.close()
    return statuses
