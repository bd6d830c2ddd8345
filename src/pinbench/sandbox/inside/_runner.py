"""pinbench's in-sandbox runner, executed by the *environment's* interpreter (Python 3.6+).

It reads its job as JSON on stdin, isolates itself (namespaces, private /tmp, read-only
filesystem, resource limits, an unprivileged uid), runs the program and its test, and writes one
proof record carrying the per-run nonce to the proof fd *after* the tests ran to completion and
the test framework was checked for tampering. The host trusts nothing else: not the exit code,
not stdout. It starts with -S: the environment's site-packages, whose `.pth` files and
`sitecustomize` run code at startup, are enabled only once the process is isolated.
Keep this file free of pinbench imports and of syntax newer than Python 3.6.
"""

import ctypes
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _cpp  # noqa: E402  (beside this file; imported before the sandbox hides it)
import _csharp  # noqa: E402
import _deprecations  # noqa: E402
import _remote  # noqa: E402
import _trusted  # noqa: E402
import _values  # noqa: E402

del sys.path[0]

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
KEY_SPEC_USER_KEYRING = -4
WORKDIR = "/tmp/pinbench-work"  # the program's cwd and $HOME: writable
CODEDIR = "/tmp/pinbench-code"  # program and tests: read-only, first on sys.path

_libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    """An isolation step that was asked for could not be applied."""


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _install_seccomp(encoded):
    """The host's syscall filter (libseccomp's BPF, base64), for this process and every process
    it starts; no_new_privs first, as the kernel requires of an unprivileged filter."""
    if not encoded:
        return
    import base64

    bpf = base64.b64decode(encoded)
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = _SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    ret = _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)
    _check(ret, "seccomp")


def _check(ret, what):
    if ret != 0:
        err = ctypes.get_errno()
        raise SetupError("%s failed: %s" % (what, os.strerror(err)))


def _mount(source, target, fstype, flags, data):
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        "mount %s" % target,
    )


def _write_file(path, text):
    with open(path, "w") as fh:
        fh.write(text)


def _enter_namespaces(iso):
    """Unshare the namespaces asked for; in a user namespace map ourselves to root."""
    flags = 0
    if iso.get("userns"):
        flags |= CLONE_NEWUSER
    if iso.get("mount"):
        flags |= CLONE_NEWNS
    if iso.get("net"):
        flags |= CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC
    if iso.get("ipc"):
        flags |= CLONE_NEWIPC
    if iso.get("pid"):
        flags |= CLONE_NEWPID
    if not flags:
        return
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")
    if iso.get("userns"):
        _write_file("/proc/self/setgroups", "deny")
        _write_file("/proc/self/uid_map", "0 %d 1" % uid)
        _write_file("/proc/self/gid_map", "0 %d 1" % gid)
    if iso.get("net"):
        _loopback_up()


SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def _loopback_up():
    """A new network namespace has only `lo`, and down: bring it up, so a test can run a
    server and talk to it (tornado, gradio, Flask's live servers) with no way out."""
    import fcntl
    import socket
    import struct

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))
    finally:
        sock.close()


SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc")
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
NEWROOT = "/tmp"


def _bind_ro(source, target, is_dir=True):
    if is_dir:
        if not os.path.isdir(target):
            os.makedirs(target)
    elif not os.path.exists(target):
        open(target, "w").close()
    _mount(source, target, None, MS_BIND | MS_REC, None)
    _mount("none", target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, None)


def _mkdir(path):
    if not os.path.isdir(path):
        os.makedirs(path)


def _tmpfs(target, size):
    if not os.path.isdir(target):
        os.makedirs(target)
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=1777" % size)


def _build_root(keep, tmpfs_bytes, with_proc):
    """A new root holding only system dirs, the interpreter and the environment, read-only,
    plus fresh size-capped scratch dirs: no home dirs, datasets or caches are visible."""
    import platform

    _mount("none", "/", None, MS_REC | MS_PRIVATE, None)
    # Hold every source open first: the new root's tmpfs may hide them (e.g. envs under /tmp).
    sources = []
    for path in SYSTEM_DIRS + tuple(keep):
        if os.path.islink(path) and path in SYSTEM_DIRS:
            sources.append((path, os.readlink(path), None))
        elif os.path.isdir(path):
            sources.append(
                (os.path.realpath(path), None, os.open(path, os.O_PATH | os.O_DIRECTORY))
            )
    _mount("tmpfs", NEWROOT, "tmpfs", MS_NOSUID | MS_NODEV, "size=%d,mode=0755" % (16 << 20))
    new = NEWROOT
    for scratch in SCRATCH:  # before the binds: an env may live in /tmp
        _tmpfs(new + scratch, tmpfs_bytes)
    for path, link, fd in sources:
        if link is not None:
            os.symlink(link, new + path)
        else:
            _bind_ro("/proc/self/fd/%d" % fd, new + path)
            os.close(fd)
    _mkdir(new + "/sys")  # CPU counts are read here; cgroup submounts are not needed
    try:
        _mount("/sys", new + "/sys", None, MS_BIND, None)
    except SetupError:  # a user namespace may not split /sys from its locked submounts
        _mount("/sys", new + "/sys", None, MS_BIND | MS_REC, None)
    _mount("none", new + "/sys", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, None)
    if not os.path.isdir(new + "/dev"):
        os.makedirs(new + "/dev")
    for dev in DEVICES:
        if os.path.exists("/dev/" + dev):
            _bind_ro("/dev/" + dev, new + "/dev/" + dev, is_dir=False)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, new + "/dev/" + name)
    os.makedirs(new + "/proc")
    if with_proc:
        _mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    os.makedirs(new + "/.old")
    number = PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise SetupError("pivot_root: unsupported architecture %s" % platform.machine())
    os.chdir(new)
    _check(_libc.syscall(number, b".", b".old"), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old", 2), "umount old root")  # MNT_DETACH
    os.rmdir("/.old")
    _mount("none", "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, None)
    if _probe_writable("/"):
        raise SetupError("root filesystem is still writable")


def enable_site():
    """The environment's site-packages, and the startup hooks its packages install (`.pth`
    files, `sitecustomize`), only now: the interpreter starts with -S, so that none of them
    runs before the sandbox is in place, where it would run on the host."""
    if sys.flags.no_site:
        import site

        site.main()


def _probe_writable(directory):
    probe = os.path.join(directory, ".pinbench-probe-%d" % os.getpid())
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
    except OSError:
        return False
    os.close(fd)
    os.unlink(probe)
    return True


def _set_limits(limits):
    import resource

    pairs = (
        ("address_space", resource.RLIMIT_AS),
        ("cpu_seconds", resource.RLIMIT_CPU),
        ("processes", resource.RLIMIT_NPROC),
        ("file_size", resource.RLIMIT_FSIZE),
        ("open_files", resource.RLIMIT_NOFILE),
    )
    for key, which in pairs:
        value = limits.get(key)
        if value:
            # CPU: soft < hard, so the soft limit delivers SIGXCPU (recognisable) before SIGKILL.
            hard = int(value) + 1 if which == resource.RLIMIT_CPU else int(value)
            resource.setrlimit(which, (int(value), hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _drop_privileges(uid, gid):
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SetupError("could not drop privileges to uid %d" % uid)


def _lay_out_files(files, read_only_mount, binary=None):
    """Program and tests go to their own directory, read-only, so the program can neither
    change nor delete its tests; it works in a separate writable directory. Read-only by
    ownership when the program will run as another uid (root's files, 0444, in root's 0755
    directory, inside the sticky scratch), else by a read-only bind mount where we have a
    mount namespace. `binary`: a repository's binary files, base64-encoded."""
    import base64
    import itertools

    # os-level calls: in a warm child every Python object touched is a page copied.
    for directory, mode in ((WORKDIR, 0o1777), (CODEDIR, 0o755)):
        _mkdir(directory)
        os.chmod(directory, mode)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    texts = ((name, text.encode("utf-8")) for name, text in files.items())
    binaries = ((name, base64.b64decode(data)) for name, data in (binary or {}).items())
    for name, data in itertools.chain(texts, binaries):  # one file's bytes at a time
        path = CODEDIR + "/" + name
        if "/" in name:  # a repository's tree
            parent = os.path.dirname(path)
            if not os.path.isdir(parent):
                os.makedirs(parent, 0o755)
        fd = os.open(path, flags, 0o444)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, 0o444)  # whatever the umask
        finally:
            os.close(fd)
    if read_only_mount:
        _mount(CODEDIR, CODEDIR, None, MS_BIND, None)
        _mount("none", CODEDIR, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, None)
    os.chdir(WORKDIR)


SECBITS_ALL_LOCKED = 239  # NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE, KEEP_CAPS_LOCKED, +locks
PR_SET_SECUREBITS = 28


def _drop_capabilities():
    """In a user namespace we stay uid 0 there: shed every capability, for good, so the program
    cannot remount, or regain them through exec."""
    _check(_libc.prctl(PR_SET_SECUREBITS, SECBITS_ALL_LOCKED, 0, 0, 0), "set securebits")
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable (x2): all empty
    _check(_libc.capset(header, data), "capset")


# --------------------------------------------------------------------------- tamper checks


_UNITTEST_NAMES = ("assert", "fail", "_base", "_formatMessage", "run", "__call__")


def _snapshot():
    """Identity of every object a program could replace to fake a pass."""
    import builtins

    snap = {}
    for name, value in vars(builtins).items():
        snap["builtins." + name] = value
    unittest = sys.modules.get("unittest")
    if unittest is not None:
        for klass in unittest.TestCase.__mro__:
            for name, value in vars(klass).items():
                if name.startswith(_UNITTEST_NAMES):
                    snap["%s.%s" % (klass.__name__, name)] = value
        snap["TestCase.failureException"] = unittest.TestCase.failureException
        runners = [unittest.TestResult, unittest.TextTestResult, unittest.TextTestRunner]
        if "unittest.main" in sys.modules:
            runners.append(unittest.TestProgram)
        for klass in runners:  # what grades a script's unittest.main()
            for name, value in vars(klass).items():
                if callable(value) or isinstance(value, (staticmethod, classmethod, property)):
                    snap["%s.%s" % (klass.__name__, name)] = value
    pytest_mod = sys.modules.get("_pytest.runner")
    if pytest_mod is not None:
        import _pytest.outcomes
        import _pytest.python
        import _pytest.reports
        import _pytest.runner

        for module in (_pytest.runner, _pytest.outcomes, _pytest.reports, _pytest.python):
            for name, value in vars(module).items():
                if callable(value) and not name.startswith("__"):
                    snap["%s.%s" % (module.__name__, name)] = value
        for klass in (_pytest.python.Function, _pytest.reports.TestReport):
            for name, value in vars(klass).items():
                snap["%s.%s" % (klass.__name__, name)] = value
    return snap


def _tampered(snapshot):
    """Names whose object is no longer the one loaded before the program ran."""
    now = _snapshot()
    changed = [name for name, value in snapshot.items() if now.get(name, _MISSING) is not value]
    if "TestCase.failureException" not in snapshot and "unittest" in sys.modules:
        changed += _unittest_not_pristine()  # imported by the program itself: check its origin
    return sorted(changed)


def _unittest_not_pristine():
    """unittest was loaded after the snapshot: its assert methods must still be its own code."""
    import builtins
    import unittest

    bad = []
    if unittest.TestCase.failureException is not builtins.AssertionError:
        bad.append("TestCase.failureException")
    for name, value in vars(unittest.TestCase).items():
        if not name.startswith(_UNITTEST_NAMES) or isinstance(value, type) or not callable(value):
            continue
        code = getattr(value, "__code__", None)
        origin = code.co_filename.replace(os.sep, "/") if code is not None else ""
        if getattr(value, "__module__", None) != "unittest.case" or not origin.endswith(
            "unittest/case.py"
        ):
            bad.append("TestCase." + name)
    return bad


_MISSING = object()


# --------------------------------------------------------------------------- test modes


def _short_trace(exc_info):
    import traceback

    lines = traceback.format_exception(*exc_info)
    text = "".join(lines)
    return text[-4000:]


def _script_name(job):
    return job.get("script") or "program.py"


def _script_source(job):
    """The test appended to the program (GitChameleon 1.0 and the 2.0 visible tests), or, when
    the job names a script of its own, the test alone: it imports the program's module."""
    if job.get("script"):
        return job["test"] + "\n"
    return job["program"] + "\n\n" + job["test"] + "\n"


def _run_script(job, record):
    """The test runs as a script, as `python file.py` would run it, in `__main__`."""
    source = _script_source(job)
    name = _script_name(job)
    try:
        compile(job["program"], "program.py", "exec")
        code, runs_unittest = _script_code(source, name, _test_start(job))
    except SyntaxError:
        info = sys.exc_info()
        record.update(status="syntax_error", exc_type=info[0].__name__, message=str(info[1]))
        record["trace"] = _short_trace(info)
        return
    import types

    main = types.ModuleType("__main__")
    main.__file__ = os.path.join(CODEDIR, name)
    sys.modules["__main__"] = main
    genuine = _genuine_unittest() if runs_unittest else None
    snapshot = _snapshot()
    _watch_deprecations(job, {name: _test_start(job) - 1} if not job.get("script") else None)
    try:
        exec(code, main.__dict__)
        if genuine is not None:
            _grade_unittest_main(main.__dict__.get(_UNITTEST_RESULT), genuine, record)
            return
    except SystemExit as exc:
        record.update(
            status="failed",
            exc_type="SystemExit",
            message="program exited (code %r) before the test completed" % (exc.code,),
        )
        return
    except BaseException:
        info = sys.exc_info()
        record.update(status="failed", exc_type=info[0].__name__, message=str(info[1])[:2000])
        record["trace"] = _short_trace(info)
        return
    finally:
        record["tampered"] = _tampered(snapshot)
    record.update(status="passed", tests={"collected": 1, "passed": 1})


_UNITTEST_RESULT = "__pinbench_unittest_program__"


def _test_start(job):
    """The first line of the test in the script's source (the program comes before it)."""
    if job.get("script"):
        return 1
    return job["program"].count("\n") + 3


def _script_code(source, name, test_start):
    """The script's code object; when its last statement is the test's `unittest.main(...)`,
    that call is made with exit=False and its program kept, so the harness reads the results
    instead of taking a SystemExit (which any program can raise) for a verdict."""
    import ast

    tree = ast.parse(source, name)
    last = tree.body[-1] if tree.body else None
    call = last.value if isinstance(last, ast.Expr) else None
    if not (isinstance(call, ast.Call) and last.lineno >= test_start and _is_unittest_main(call)):
        return compile(source, name, "exec"), False
    call.keywords = [k for k in call.keywords if k.arg != "exit"]
    false = ast.Constant(value=False) if sys.version_info >= (3, 8) else ast.NameConstant(False)
    call.keywords.append(ast.keyword(arg="exit", value=false))
    target = ast.Name(id=_UNITTEST_RESULT, ctx=ast.Store())
    tree.body[-1] = ast.copy_location(ast.Assign(targets=[target], value=call), last)
    return compile(ast.fix_missing_locations(tree), name, "exec"), True


def _is_unittest_main(call):
    import ast

    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr == "main" and getattr(func.value, "id", None) == "unittest"
    return getattr(func, "id", None) == "main"


def _genuine_unittest():
    """unittest's own runner classes, taken before the program runs."""
    import unittest
    import unittest.main  # noqa: F401  (the module, for TestProgram)

    return {"program": unittest.TestProgram, "result": unittest.TestResult}


def _grade_unittest_main(program, genuine, record):
    """The verdict of the test's unittest.main(): at least one test ran, none failed."""
    if type(program) is not genuine["program"] or not isinstance(
        getattr(program, "result", None), genuine["result"]
    ):
        record.update(status="failed", exc_type="HarnessTampering", message="not unittest's run")
        return
    result = program.result
    problems = list(result.failures) + list(result.errors)
    problems += list(getattr(result, "unexpectedSuccesses", ()))
    skipped = list(getattr(result, "skipped", ()))
    ran = int(result.testsRun)
    if problems:
        test, trace = problems[0] if isinstance(problems[0], tuple) else (problems[0], "")
        message = "%s: %s" % (test, str(trace).strip().splitlines()[-1:] or "")
        record.update(status="failed", exc_type="TestFailure", message=message[:2000])
        record["trace"] = str(trace)[-4000:]
    elif skipped:  # a test that did not run did not pass
        test, reason = skipped[0] if isinstance(skipped[0], tuple) else (skipped[0], "")
        message = "test did not run to completion: %s (%s)" % (test, reason)
        record.update(status="failed", exc_type="Skipped", message=message[:2000])
    elif ran == 0:
        record.update(status="failed", exc_type="NoTests", message="unittest ran no test")
    else:
        record.update(status="passed", tests={"collected": ran, "passed": ran})


class _Collector(object):
    """pytest plugin: what was collected, what ran and how, independent of pytest's exit code."""

    def __init__(self):
        self.items = []
        self.marked_skip = set()
        self.reports = {}
        self.collect_errors = []
        self.first_exc = None
        self.internal_error = None  # pytest's own INTERNALERROR, as it printed it

    def pytest_collection_finish(self, session):
        self.items = [item.nodeid for item in session.items]
        for item in session.items:
            for name in ("skip", "skipif", "xfail"):
                if any(True for _ in item.iter_markers(name=name)):
                    self.marked_skip.add(item.nodeid)

    def pytest_exception_interact(self, node, call, report):
        if self.first_exc is None and call.excinfo is not None:
            self.first_exc = (call.excinfo.typename, str(call.excinfo.value)[:2000])

    def pytest_internalerror(self, excrepr, excinfo):
        if self.internal_error is None:
            self.internal_error = (excinfo.typename, str(excrepr)[-4000:])

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(str(report.longrepr)[-4000:])

    def pytest_runtest_logreport(self, report):
        entry = self.reports.setdefault(report.nodeid, {})
        entry[report.when] = report.outcome
        if report.failed and "crash" not in entry:
            crash = getattr(report.longrepr, "reprcrash", None)
            entry["crash"] = crash.message if crash is not None else str(report.longrepr)[-400:]
            entry["trace"] = str(report.longrepr)[-4000:]


def _run_pytest(job, record, test_dir=CODEDIR, trusted=False):
    """GitChameleon 2.0 style: a pytest module imports the program from `<module>.py`. With
    `trusted`, this is the grader: the module is the program's, in its own process."""
    try:
        compile(job["program"], job["module"] + ".py", "exec")
    except SyntaxError:
        info = sys.exc_info()
        record.update(status="syntax_error", exc_type=info[0].__name__, message=str(info[1]))
        record["trace"] = _short_trace(info)
        return
    import pytest

    collector = _Collector()
    snapshot = None if trusted else _snapshot()
    args = ["-q", "-p", "no:cacheprovider", "--noconftest", "--rootdir", test_dir, "--tb=short"]
    if trusted:  # its own (empty) configuration: none is looked for where the program writes
        args += ["-c", os.path.join(test_dir, "pytest.ini")]
    args.append(os.path.join(test_dir, job["test_file"]))
    if not trusted:
        _watch_deprecations(job)
    try:
        exit_code = pytest.main(args, plugins=[collector])
    except SystemExit as exc:
        record.update(status="failed", exc_type="SystemExit", message="exited: %r" % (exc.code,))
        record["tampered"] = [] if trusted else _tampered(snapshot)
        return
    record["tampered"] = [] if trusted else _tampered(snapshot)
    ran = [n for n in collector.items if collector.reports.get(n, {}).get("call") == "passed"]
    failed = [
        (n, r)
        for n, r in collector.reports.items()
        if "failed" in (r.get("setup"), r.get("call"), r.get("teardown"))
    ]
    unmarked_skips = [
        n
        for n in collector.items
        if n not in collector.marked_skip and collector.reports.get(n, {}).get("call") != "passed"
    ]
    record["tests"] = {
        "collected": len(collector.items),
        "passed": len(ran),
        "failed": len(failed),
        "skipped_by_marker": len(collector.marked_skip),
        "exit_code": int(exit_code),
    }
    exc_type, exc_message = collector.first_exc or ("Error", "")
    if collector.internal_error is not None:  # pytest itself failed: what it said, not a skip
        exc_type, trace = collector.internal_error
        message = "pytest internal error: %s" % trace.strip().splitlines()[-1:]
        record.update(status="failed", exc_type=exc_type, message=message[:2000], trace=trace)
    elif collector.collect_errors:
        trace = collector.collect_errors[0]
        record.update(status="failed", exc_type=exc_type, message=exc_message, trace=trace)
    elif failed:
        nodeid, rep = failed[0]
        record.update(
            status="failed",
            exc_type=exc_type,
            message=("%s: %s" % (nodeid, exc_message or rep.get("crash", "")))[:2000],
            trace=rep.get("trace", ""),
        )
    elif not collector.items:
        record.update(status="failed", exc_type="NoTests", message="no test was collected")
    elif unmarked_skips:
        record.update(
            status="failed",
            exc_type="Skipped",
            message="test did not run to completion: %s" % unmarked_skips[0],
        )
    elif not ran:
        record.update(status="failed", exc_type="NoTests", message="no test ran")
    elif int(exit_code) != 0:
        record.update(
            status="failed", exc_type="PytestExit", message="pytest exit code %d" % exit_code
        )
    else:
        record["status"] = "passed"


class _CallTracer(object):
    """Function-level coverage per test: which functions of the repository each test called
    (setup, call and teardown), from a profile hook. Also proves a test reached a focal method."""

    def __init__(self, root, skip_prefixes):
        self.root = root.rstrip(os.sep) + os.sep
        self.skip = tuple(skip_prefixes)
        self.ids = {}
        self.functions = []
        self.current = None

    def _id(self, code):
        found = self.ids.get(code)
        if found is None:
            found = -1
            path = code.co_filename
            if path.startswith(self.root):
                rel = path[len(self.root) :]
                if not rel.startswith(self.skip):
                    found = len(self.functions)
                    self.functions.append("%s:%d:%s" % (rel, code.co_firstlineno, code.co_name))
            self.ids[code] = found
        return found

    def profile(self, frame, event, arg):
        if event == "call" and self.current is not None:
            found = self._id(frame.f_code)
            if found >= 0:
                self.current.add(found)


def _repo_outcome(entry):
    phases = (entry.get("setup"), entry.get("call"), entry.get("teardown"))
    if "failed" in phases:
        return "failed"
    if entry.get("call") == "passed":
        return "passed"
    return "skipped"


def _run_repo(job, record):
    """A repository's own pytest suite (or the tests `select` names), with the program written
    over one of its files; per-test outcomes and, when asked, the functions each test called."""
    path = job.get("path")
    if path:
        try:
            compile(job["program"], path, "exec")
        except SyntaxError:
            info = sys.exc_info()
            record.update(status="syntax_error", exc_type=info[0].__name__, message=str(info[1]))
            record["trace"] = _short_trace(info)
            return
    for extra in reversed(job.get("pythonpath", [])):
        sys.path.insert(0, os.path.join(CODEDIR, extra))
    import pytest

    collector = _Collector()
    tracer = _CallTracer(CODEDIR, job.get("untraced", ()))
    calls = {}

    class _Tracing(object):
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):
            tracer.current = calls.setdefault(item.nodeid, set())
            sys.setprofile(tracer.profile)
            try:
                yield
            finally:
                sys.setprofile(None)
                tracer.current = None

    plugins = [collector] + ([_Tracing()] if job.get("trace") else [])
    selected = [os.path.join(CODEDIR, s) for s in job.get("select", [])] or [CODEDIR]
    args = ["-q", "-p", "no:cacheprovider", "--rootdir", CODEDIR, "--tb=short"] + selected
    snapshot = _snapshot()
    if path:  # the signals raised under the file the program replaced, on the lines it wrote
        _watch_deprecations(job, {os.path.join(CODEDIR, path): 0})
    try:
        exit_code = pytest.main(args, plugins=plugins)
    except SystemExit as exc:
        record.update(status="failed", exc_type="SystemExit", message="exited: %r" % (exc.code,))
        record["tampered"] = _tampered(snapshot)
        return
    record["tampered"] = _tampered(snapshot)
    if path and _deprecations.watching():
        changed = job.get("changed")
        record["deprecations"] = {
            "found": [
                f for f in _deprecations.found() if changed is None or f["line"] in set(changed)
            ],
            "tampered": _deprecations.tampered(),
        }
    outcomes = dict((n, _repo_outcome(collector.reports.get(n, {}))) for n in collector.items)
    details = {"outcomes": outcomes, "collect_errors": collector.collect_errors[:20]}
    if job.get("trace"):
        details["functions"] = tracer.functions
        details["calls"] = dict((n, sorted(ids)) for n, ids in calls.items())
    record["details"] = details
    passed = [n for n, o in outcomes.items() if o == "passed"]
    record["tests"] = {
        "collected": len(outcomes),
        "passed": len(passed),
        "failed": sum(1 for o in outcomes.values() if o == "failed"),
        "exit_code": int(exit_code),
    }
    focal = job.get("focal")
    failed = [n for n, o in outcomes.items() if o != "passed"]
    exc_type, exc_message = collector.first_exc or ("Error", "")
    if collector.collect_errors:
        record.update(
            status="failed",
            exc_type=exc_type,
            message=exc_message,
            trace=collector.collect_errors[0],
        )
    elif not outcomes:
        record.update(status="failed", exc_type="NoTests", message="no test was collected")
    elif failed:
        rep = collector.reports.get(failed[0], {})
        record.update(
            status="failed",
            exc_type=exc_type if outcomes[failed[0]] == "failed" else "Skipped",
            message=("%s: %s" % (failed[0], exc_message or rep.get("crash", "")))[:2000],
            trace=rep.get("trace", ""),
        )
    elif focal and not _called(focal, tracer.functions, calls):
        record.update(
            status="failed",
            exc_type="FocalNotCalled",
            message="no test called %s" % focal["name"],
        )
    else:
        record["status"] = "passed"


def _called(focal, functions, calls):
    """Whether any test called the focal function: same file, one of its first lines (Python:
    its first decorator's on 3.8+, its def's before) and its name (Python's code object says
    `name`; V8 says `name`, `Class.name`, `get name`, the class for a constructor, or nothing
    for an anonymous function)."""
    lines = set(focal["lines"])
    for ids in calls.values():
        for index in ids:
            rel, line, name = functions[index].rsplit(":", 2)
            short = name.rsplit(".", 1)[-1].rsplit(" ", 1)[-1]
            named = short in (focal["name"], "") or focal["name"] == "constructor"
            if rel == focal["path"] and int(line) in lines and named:
                return True
    return False


# --------------------------------------------------------------------------- main


NODE_RESULT_BYTES = 1 << 20
_ANSI = None


def _node_env():
    env = dict(os.environ)
    env.update(TZ="UTC", FORCE_COLOR="0", NODE_OPTIONS="")
    return env


def _run_node(argv, result_fd=False, extra=()):
    """Run a Node process of the harness (in this, confined, process's sandbox): its output
    goes to ours; what it writes to its result descriptor (or, without one, its last stdout
    line) comes back. `extra`: arguments after the descriptor's."""
    import subprocess

    if not result_fd:
        done = subprocess.run(argv, stdout=subprocess.PIPE, env=_node_env(), cwd=WORKDIR)
        lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
        return done.returncode, (lines[-1] if lines else "")
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        argv + [str(write_end)] + list(extra), pass_fds=(write_end,), env=_node_env(), cwd=WORKDIR
    )
    os.close(write_end)
    text = _read_result(read_end)
    proc.wait()
    return proc.returncode, text


def _read_result(read_end, line=False):
    """What a Node process of the harness wrote on its result pipe, to its end, or with `line`
    to the end of its first line (the first NODE_RESULT_BYTES kept); the pipe is closed.
    A zygote's grader child ends its result with a newline: the runner goes on without waiting
    for that process to exit (its zygote ends it)."""
    chunks, size = [], 0
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        end = chunk.find(b"\n") if line else -1
        if end >= 0:
            chunk = chunk[:end]
        if size < NODE_RESULT_BYTES:
            chunks.append(chunk)
        size += len(chunk)
        if end >= 0:
            break
    os.close(read_end)
    return b"".join(chunks)[:NODE_RESULT_BYTES].decode("utf-8", "replace")


def _plain(text):
    """A message without terminal colour codes (Jest's `expect` colours its diffs)."""
    import re

    global _ANSI
    if _ANSI is None:
        _ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
    return _ANSI.sub("", text)


def _link_node_modules(env_root):
    modules = os.path.join(env_root, "node_modules")
    if os.path.isdir(modules) and not os.path.lexists("/tmp/node_modules"):
        os.symlink(modules, "/tmp/node_modules")  # found by every file under /tmp, ES modules too


def _node_version(env_root, field="node_version"):
    """The environment's Node release (`harness_node`: the harness's), as its manifest records
    it ('' if it cannot be read)."""
    try:
        with open(os.path.join(env_root, "pinbench-env.json")) as handle:
            return str(json.load(handle).get(field) or "")
    except (OSError, ValueError):
        return ""


def _typescript(job, record, env_root):
    """The program to run: a TypeScript one type-checked and transpiled (on the harness's
    Node) first; None when it does not type-check (`record` says why)."""
    program = os.path.join(CODEDIR, job["program_file"])
    if program.endswith(".ts"):
        out = os.path.join(WORKDIR, ".pinbench-ts", job["program_file"][: -len(".ts")] + ".js")
        harness_node = os.path.join(env_root, "bin", "harness-node")
        checker = os.path.join(CODEDIR, "_pinbench_tscheck.js")
        code, line = _run_node([harness_node, checker, program, out, _node_version(env_root)])
        try:
            checked = json.loads(line)
        except ValueError:
            raise RuntimeError("the TypeScript check ended (status %s) without a result" % code)
        if checked.get("missing"):
            record.update(status="environment_error", message=checked["missing"])
            return None
        if not checked.get("ok"):
            diagnostics = [str(d) for d in checked.get("diagnostics") or []]
            status = "syntax_error" if checked.get("syntax") else "failed"
            record.update(status=status, exc_type="TypeScriptError")
            record["message"] = "\n".join(diagnostics)[:2000]
            return None
        program = out
    return program


def _run_jest(job, record):
    """A Jest/Mocha/node:test-style module against a JavaScript or TypeScript program, on the
    environment's Node, in the program's process (the in-process mode: forgeable, and every
    report says so); under trusted grading `_run_trusted_node` runs it instead."""
    env_root = job["env_root"]
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # Node, of our uid, must not read our memory
    _link_node_modules(env_root)
    node = os.path.join(env_root, "bin", "node")
    program = _typescript(job, record, env_root)
    if program is None:
        return
    test = os.path.join(CODEDIR, job["test_file"])
    runner = os.path.join(CODEDIR, "_pinbench_jest.js")
    argv = [node, runner, "local", program, test]
    code, text = _run_node(argv, result_fd=True, extra=["1"] if job.get("deprecations") else [])
    try:
        result = json.loads(text)
    except ValueError:
        record.update(
            status="failed",
            exc_type="NoResult",
            message="node ended (exit status %s) before the tests completed" % code,
        )
        return
    _jest_record(result, record)


def _repo_verdict(job, record, outcomes, calls, functions, errors, failures):
    """The verdict on a repository's suite run (Node or Java): the tests `select` names (all
    when it names none of them), each passed, none of their files failing to load, and, for a
    generated test, its focal function called; `details` carries per-test outcomes and calls."""
    wanted = [s for s in job.get("select", []) if "::" in s]
    judged = dict((n, o) for n, o in outcomes.items() if not wanted or n in wanted)
    for name in wanted:
        judged.setdefault(name, "missing")
    details = {"outcomes": outcomes, "collect_errors": errors[:20]}
    if job.get("trace"):
        details["functions"] = functions
        details["calls"] = dict((n, sorted(ids)) for n, ids in calls.items())
    record["details"] = details
    passed = [n for n, o in judged.items() if o == "passed"]
    failed = [n for n, o in judged.items() if o != "passed"]
    record["tests"] = {"collected": len(judged), "passed": len(passed), "failed": len(failed)}
    focal = job.get("focal")
    files = set(n.split("::", 1)[0] for n in wanted)
    unloaded = [  # a wanted test's file that did not load (compile, build): the error says why
        n for n, o in outcomes.items() if n.endswith("::(file)") and n.split("::", 1)[0] in files
    ]
    if errors and (not wanted or unloaded or any(n.endswith("::(file)") for n in judged)):
        record.update(status="failed", exc_type="LoadError", message=errors[0][:2000])
    elif not judged:
        record.update(status="failed", exc_type="NoTests", message="no test was collected")
    elif failed:
        first = failed[0]
        why = next((f for f in failures if f.startswith(first + ":")), first + ": " + judged[first])
        record.update(status="failed", exc_type="TestFailed", message=why[:2000])
    elif focal and not _called(focal, functions, calls):
        record.update(
            status="failed",
            exc_type="FocalNotCalled",
            message="no test called %s" % focal["name"],
        )
    else:
        record["status"] = "passed"


def _run_node_repo(job, record):
    """A repository's own JavaScript/TypeScript test files (or the tests `select` names), each
    file in its own Node process of pinbench's runner (as Jest isolates files), with the
    program written over one of the repository's files; per-test outcomes and, when asked,
    the repository functions each test called."""
    env_root = job["env_root"]
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    _link_node_modules(env_root)
    node = os.path.join(env_root, "bin", "node")
    runner = os.path.join(CODEDIR, "_pinbench_jest.js")
    trace = "1" if job.get("trace") else "0"
    files = sorted(set(s.split("::", 1)[0] for s in job.get("select", []))) or job["test_files"]
    outcomes, calls, functions, index, errors = {}, {}, [], {}, []
    wanted = job.get("path") and job.get("deprecations")
    watched = [os.path.join(CODEDIR, job["path"])] if wanted else []
    signals = {"found": [], "tampered": False}
    for rel in files:
        path = os.path.join(CODEDIR, rel)
        code, text = _run_node(
            [node, runner, "repo", CODEDIR, path, trace], result_fd=True, extra=watched
        )
        try:
            result = json.loads(text)
        except ValueError:
            result = {"no_result": True}
        if not isinstance(result, dict) or result.get("no_result"):
            outcomes[rel + "::(file)"] = "failed"
            errors.append(
                "%s: node ended (exit status %s) before its tests completed" % (rel, code)
            )
            continue
        _merge_signals(signals, result.get("deprecations"))
        if result.get("test_error"):
            first = (result.get("failures") or [{}])[0]
            outcomes[rel + "::(file)"] = "failed"
            errors.append(_plain("%s: %s" % (rel, first.get("message", "")))[:4000])
            continue
        known = [str(f) for f in result.get("functions") or []]
        for entry in result.get("tests") or []:
            name = "%s::%s" % (rel, entry.get("name"))
            outcomes[name] = str(entry.get("outcome"))
            ids = set()
            for i in entry.get("calls") or []:
                if isinstance(i, int) and 0 <= i < len(known):
                    function = known[i]
                    if function not in index:
                        index[function] = len(functions)
                        functions.append(function)
                    ids.add(index[function])
            calls.setdefault(name, set()).update(ids)
        for failure in result.get("failures") or []:
            if isinstance(failure, dict) and len(errors) < 20:
                message = "%s::%s: %s" % (rel, failure.get("test"), failure.get("message", ""))
                record.setdefault("_failures", []).append(_plain(message)[:2000])
    failures = record.pop("_failures", [])
    _repo_verdict(job, record, outcomes, calls, functions, errors, failures)
    if wanted:
        changed = job.get("changed")
        changed = None if changed is None else set(changed)
        signals["found"] = [
            f for f in signals["found"] if changed is None or f.get("line") in changed
        ]
        record["deprecations"] = signals


def _merge_signals(signals, reported):
    """One test file's deprecation signals (its Node process recorded them) into the run's:
    each once; a report not of their shape counts as tampering."""
    if reported is None:
        return
    if not isinstance(reported, dict) or not isinstance(reported.get("found"), list):
        signals["tampered"] = True
        return
    signals["tampered"] = signals["tampered"] or reported.get("tampered") is not False
    seen = set((f.get("line"), f.get("message")) for f in signals["found"])
    for entry in reported["found"]:
        if not isinstance(entry, dict):
            signals["tampered"] = True
        elif (entry.get("line"), entry.get("message")) not in seen and len(signals["found"]) < 50:
            seen.add((entry.get("line"), entry.get("message")))
            signals["found"].append(entry)


JAVA_EXCLUDES = (
    "org.jacoco.*:org.objectweb.*:org.junit.*:junit.*:org.opentest4j.*:org.apiguardian.*:"
    "org.hamcrest.*:PinbenchJUnit*"
)


def _java_sources(root):
    """The repository's Java files, as (main, test): test files are those under a `test` or
    `tests` directory (Maven's src/test/java included); `module-info.java` is left out (the
    code compiles on the class path)."""
    main, test = [], []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_dir = os.path.relpath(directory, root)
        parts = [] if rel_dir == "." else rel_dir.split(os.sep)
        for name in sorted(files):
            if name.endswith(".java") and name != "module-info.java":
                rel = "/".join(parts + [name])
                (test if ("test" in parts or "tests" in parts) else main).append(rel)
    return main, test


def _java_package(path):
    import re

    with open(path, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    found = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.M)
    return found.group(1) if found else ""


def _java_roots(rels):
    """The source roots of these Java files (each file's folder less its package's path)."""
    roots = set()
    for rel in rels:
        package = _java_package(os.path.join(CODEDIR, rel)).replace(".", "/")
        folder = os.path.dirname(rel)
        if package and folder.endswith(package):
            folder = folder[: -len(package)].rstrip("/")
        roots.add(folder or ".")
    return roots


def _javac(env, release, out, classpath, files, sourcepath=None):
    """javac over `files` (no annotation processor runs), and over what they use from
    `sourcepath` (folders); the files it reported errors in (None when it failed without
    naming one) and its first errors."""
    import re
    import subprocess

    if not os.path.isdir(out):
        os.makedirs(out)
    args = os.path.join(WORKDIR, os.path.basename(out) + ".args")
    with open(args, "w") as handle:
        handle.write("\n".join('"%s"' % f.replace("\\", "\\\\") for f in files))
    argv = [os.path.join(env["jdk_home"], "bin", "javac"), "-J-Xmx768m", "-J-XX:+UseSerialGC"]
    argv += ["--release", str(release), "-proc:none", "-implicit:class", "-g"]
    argv += ["-Xlint:none", "-Xlint:deprecation", "-Xlint:removal", "-Xmaxwarns", "100000"]
    argv += ["-encoding", "UTF-8", "-d", out, "-cp", os.pathsep.join(classpath)]
    if sourcepath is not None:
        argv += ["-sourcepath", os.pathsep.join(sorted(sourcepath))]
    argv.append("@" + args)
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=CODEDIR)
    text = done.stdout.decode("utf-8", "replace")
    COMPILER_OUTPUT.append(text[: 4 << 20])
    if done.returncode == 0:
        return set(), ""
    bad = set()
    for match in re.finditer(r"^(.+?\.java):\d+: error:", text, re.M):
        bad.add(os.path.relpath(os.path.join(CODEDIR, match.group(1)), CODEDIR))
    return (bad or None), text[:4000]


COMPILER_OUTPUT = []  # what the compilers said, for the deprecation warnings in it

_DEPRECATION_WARNINGS = {
    "java": r"^(?P<path>[^\n:]+?\.java):(?P<line>\d+): warning: \[(?P<kind>deprecation|removal)\] "
    r"(?P<message>[^\n]+)$",
    "csharp": r"^(?P<path>[^\n(]+?\.cs)\((?P<line>\d+),\d+\): warning (?P<kind>CS0618|CS0612): "
    r"(?P<message>[^\n]+)$",
    "cpp": r"^(?P<path>[^\n:]+):(?P<line>\d+):\d+: warning: (?P<message>[^\n]+?) "
    r"\[-W(?P<kind>deprecated-declarations)\]$",
}
_DEPRECATED_API = {
    "java": r"^(?P<member>\S+?(?:\([^)]*\))?) in (?P<owner>\S+) has been deprecated",
    "csharp": r"^`(?P<member>[^']+)' is obsolete",
    "cpp": r"^'(?P<member>[^']+)' is deprecated",
}


def _compiled_deprecations(job, text, language):
    """The compiler's deprecation warnings on the lines the program wrote (the file it
    replaces, or its own new file): the deprecated APIs the answer uses."""
    import re

    path = job.get("path")
    if not path or not job.get("deprecations"):
        return None
    changed = job.get("changed")
    changed = None if changed is None else set(changed)
    lines = job["program"].split("\n")
    found, seen = [], set()
    for match in re.finditer(_DEPRECATION_WARNINGS[language], text, re.M):
        rel = os.path.relpath(os.path.join(CODEDIR, match.group("path")), CODEDIR)
        number = int(match.group("line"))
        if os.path.normpath(rel) != os.path.normpath(path):
            continue
        if changed is not None and number not in changed:
            continue
        message = match.group("message").strip()[:300]
        if (number, message) in seen or len(found) >= 50:
            continue
        seen.add((number, message))
        named = re.match(_DEPRECATED_API[language], message)
        api = None
        if named and language == "java":
            api = "%s.%s" % (named.group("owner"), named.group("member"))
        elif named:
            api = named.group("member")
        code = lines[number - 1].strip()[:200] if 0 < number <= len(lines) else ""
        found.append(
            {
                "category": match.group("kind"),
                "message": message,
                "api": api and api[:120],
                "line": number,
                "code": code,
            }
        )
    return {"found": found, "tampered": False}


def _is_surefire_test(rel):
    """Maven Surefire's default test classes: Test*, *Test, *Tests, *TestCase."""
    stem = os.path.basename(rel)[: -len(".java")]
    return stem.startswith("Test") or stem.endswith(("Test", "Tests", "TestCase"))


def _run_java_repo(job, record):
    """A Maven-layout repository's JUnit tests (JUnit 4, 3 and 5, through the JUnit Platform)
    in one JVM of pinbench's runner, with the program written over one of its files: the main
    code and the tests compiled by javac (a test file that does not compile fails alone), then
    per-test outcomes and, when asked, the main-code methods each test ran (JaCoCo)."""
    import subprocess

    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    env_root = job["env_root"]
    with open(os.path.join(env_root, "pinbench-env.json")) as handle:
        env = json.load(handle)
    release = job.get("release") or env["release"]
    deps = [os.path.join(env_root, p) for p in env["classpath"]]
    harness = [os.path.join(env_root, p) for p in env["harness_classpath"]]
    main, tests = _java_sources(CODEDIR)
    main_out = os.path.join(WORKDIR, "classes")
    test_out = os.path.join(WORKDIR, "test-classes")
    bad, text = _javac(env, release, main_out, harness + deps, main)
    if bad is None or bad:
        record.update(status="failed", exc_type="CompileError", message=text[:2000])
        record["details"] = {"outcomes": {}, "collect_errors": [text[:4000]]}
        return
    resources = [os.path.join(CODEDIR, d) for d in ("src/main/resources", "src/test/resources")]
    resources = [d for d in resources if os.path.isdir(d)]
    base = harness + deps + [main_out] + resources
    errors, outcomes, calls, functions = [], {}, {}, []
    selected = sorted(set(s.split("::", 1)[0] for s in job.get("select", [])))
    wanted = set(r for r in tests if (r in selected if selected else _is_surefire_test(r)))
    # Selected tests: their files are compiled, with what they use from the test folders;
    # every test file when one of those does not compile (it is then dropped, as below).
    compiling, sourcepath = list(tests), None
    if selected:
        compiling, sourcepath = [r for r in tests if r in wanted], _java_roots(tests)
    rounds = 4
    while rounds:  # drop the files javac names, then again, a few times at most
        rounds -= 1
        bad, text = (
            _javac(env, release, test_out, base, compiling, sourcepath)
            if compiling
            else (set(), "")
        )
        if not bad:
            break
        if sourcepath is not None and not bad.issubset(compiling):
            compiling, sourcepath, rounds = list(tests), None, 4
            continue
        for rel in sorted(bad):  # a file that does not compile fails alone (if it is run)
            compiling.remove(rel)
            if rel in wanted:
                outcomes[rel + "::(file)"] = "failed"
                errors.append("%s does not compile:\n%s" % (rel, text[:3000]))
    if bad:
        for rel in compiling:
            if rel in wanted:
                outcomes[rel + "::(file)"] = "failed"
        errors.append("the tests do not compile:\n" + text[:3000])
        compiling = []
    run = [r for r in compiling if r in wanted]
    classes = {}
    for rel in run:
        package = _java_package(os.path.join(CODEDIR, rel))
        stem = os.path.basename(rel)[: -len(".java")]
        classes[(package + "." if package else "") + stem] = rel
    roots = _java_roots(main)
    failures = []
    if classes:
        result_path = os.path.join(WORKDIR, "junit-result.json")
        trace = bool(job.get("trace"))
        argv = [os.path.join(env["jdk_home"], "bin", "java"), "-Xmx1g", "-Xss4m"]
        argv += ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=64m"]
        argv += ["-XX:MaxMetaspaceSize=512m", "-XX:CompressedClassSpaceSize=128m"]
        argv += ["-Djava.io.tmpdir=" + WORKDIR, "-Duser.home=" + WORKDIR]
        if trace:
            agent = os.path.join(env_root, env["agent"])
            argv.append("-javaagent:%s=output=none,excludes=%s" % (agent, JAVA_EXCLUDES))
        argv += ["-cp", os.pathsep.join(base + [test_out]), "PinbenchJUnit"]
        argv += ["--result", result_path, "--classes", main_out]
        argv += ["--sources", ":".join(sorted(roots)), "--trace", "1" if trace else "0"]
        code = subprocess.call(argv + sorted(classes), cwd=CODEDIR)
        try:
            with open(result_path, encoding="utf-8") as handle:
                result = json.load(handle)
        except (OSError, ValueError):
            result = None
        if not isinstance(result, dict):
            for rel in run:
                outcomes[rel + "::(file)"] = "failed"
            errors.append("java ended (exit status %s) before the tests completed" % code)
            result = {}
        known = [str(f) for f in result.get("functions") or []]
        index = {}
        for entry in result.get("tests") or []:
            rel = classes.get(str(entry.get("class")))
            if rel is None:
                continue
            name = "%s::%s" % (rel, str(entry.get("name")).split("#", 1)[-1])
            outcomes[name] = str(entry.get("outcome"))
            ids = set()
            for i in entry.get("calls") or []:
                if isinstance(i, int) and 0 <= i < len(known):
                    if known[i] not in index:
                        index[known[i]] = len(functions)
                        functions.append(known[i])
                    ids.add(index[known[i]])
            calls.setdefault(name, set()).update(ids)
        for entry in result.get("class_errors") or []:
            rel = classes.get(str(entry.get("class")).split("$", 1)[0])
            if rel is not None:
                outcomes[rel + "::(file)"] = "failed"
                errors.append("%s: %s" % (rel, str(entry.get("message", ""))[:3000]))
        for failure in (result.get("failures") or [])[:20]:
            test = str(failure.get("test"))
            rel = classes.get(test.split("#", 1)[0])
            if rel is not None:
                message = "%s::%s: %s" % (rel, test.split("#", 1)[-1], failure.get("message", ""))
                failures.append(message[:2000])
    _repo_verdict(job, record, outcomes, calls, functions, errors, failures)
    record["deprecations"] = _compiled_deprecations(job, "\n".join(COMPILER_OUTPUT), "java")


def _run_cpp_repo(job, record):
    """A CMake repository's tests (`_cpp.py`), with the program written over one of its
    files, or, for a generated test, built as an executable of its own."""
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    outcomes, calls, functions, errors, failures, extra = _cpp.run(
        job, CODEDIR, WORKDIR, job["env_root"]
    )
    _repo_verdict(job, record, outcomes, calls, functions, errors, failures)
    record["details"].update(extra)
    checked = [t for t in _cpp.COMPILER_OUTPUT if t is not None]
    if checked:
        record["deprecations"] = _compiled_deprecations(job, "\n".join(checked), "cpp")


def _run_csharp_repo(job, record):
    """A C# repository's NUnit tests on Mono (`_csharp.py`), with the program written over
    one of its files, or, for a generated test, compiled as an assembly of its own."""
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    outcomes, calls, functions, errors, failures, extra = _csharp.run(
        job, CODEDIR, WORKDIR, job["env_root"]
    )
    _repo_verdict(job, record, outcomes, calls, functions, errors, failures)
    record["details"].update(extra)
    record["deprecations"] = _compiled_deprecations(
        job, "\n".join(_csharp.COMPILER_OUTPUT), "csharp"
    )


GRADER_UID_OFFSET = 1000  # the grader's uid: the program's plus this (a uid of its own)


def _run_trusted_node(job, record, proof_fd, secret_fd, in_server, started):
    """Trusted grading for Node: the program's process (the program's uid, in a pid namespace of
    its own, so it can name no other process) serves its values through the channel; the
    grader's process (another uid, the test in a directory only it sees) runs the test on the
    harness's Node and sends its result here. This process, which runs neither, writes the
    proof. A TypeScript program is type-checked first, in a process of the program's uid."""
    import socket

    write, exit_now = os.write, os._exit
    iso = job.get("isolation", {})
    uid = int(iso["uid"]) if iso.get("uid") is not None else None
    env_root = job["env_root"]
    nonce = None
    # a warm server's Node zygotes (`_zygotes`), where each side runs as a uid of its own
    zygotes = job.get("zygote_fds") if uid is not None and iso.get("mount") else None
    try:
        _link_node_modules(env_root)
        program = _confined_typescript(job, record, iso, in_server, uid, env_root)
        data_g, data_p = socket.socketpair()
        bell_g, bell_p = socket.socketpair()
        signals = os.pipe() if job.get("deprecations") else None  # the program's process tells
        pid = None
        if program is not None and zygotes:
            pid = _zygote_program(job, iso, uid, program, data_p, bell_p, signals, zygotes[0])
        elif program is not None:
            pid = _spawn_program(
                job,
                iso,
                in_server,
                uid,
                env_root,
                program,
                data_p,
                bell_p,
                (data_g, bell_g),
                (proof_fd, secret_fd) + ((signals[0],) if signals else ()),
                signals[1] if signals else None,
            )
        data_p.close()
        bell_p.close()
        if signals:
            os.close(signals[1])
        secret = _read_secret(secret_fd)
        nonce = secret["nonce"]
        if program is not None:
            test_code = (secret.get("test_files") or {}).get(job["test_file"], "")
            grader_uid = uid + GRADER_UID_OFFSET if uid is not None else None
            grader = None  # a zygote's grader child, still to end
            if zygotes:
                text, grader = _zygote_grader(
                    job, grader_uid, test_code, data_g, bell_g, zygotes[1], pid
                )
            else:
                text = _run_grader(
                    job, iso, in_server, grader_uid, env_root, test_code, data_g, bell_g, proof_fd
                )
            _jest_record(_parsed(text), record)
            status = _end_zygote_children(pid, grader) if zygotes else _reap_program(pid)
            if record.get("status") != "passed":
                if status is not None and os.WIFSIGNALED(status):
                    record["program_exit"] = 128 + os.WTERMSIG(status)
            if signals:
                record["deprecations"] = _node_deprecations(signals[0])
        if signals:
            os.close(signals[0])
        data_g.close()
        bell_g.close()
    except Exception:
        if nonce is None:
            nonce = _read_secret(secret_fd)["nonce"]
        record.update(
            status="harness_error", message="trusted grading failed: %s" % (sys.exc_info()[1],)
        )
        record["trace"] = _short_trace(sys.exc_info())
    _finish(record, started)
    record["grading"] = "trusted"
    # how the two processes were had: forked by the server's zygotes, or started afresh
    record.setdefault("details", {})["node_processes"] = "zygote" if zygotes else "fresh"
    code = int(record["status"] != "passed")
    _emit(proof_fd, nonce, record, write, exit_now, code, (sys.stdout, sys.stderr), cap=60000)


def _node_deprecations(fd, cap=256 << 10):
    """What the program's process wrote on its deprecation channel (it has ended, or is about
    to be: read what is there, never wait): one JSON object per line, a signal or
    {"tampered": true}; anything else counts as tampering."""
    import fcntl

    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    data = b""
    while len(data) < cap:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        data += chunk
    found, tampered = [], len(data) >= cap
    for line in data.decode("utf-8", "replace").split("\n"):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            tampered = True
            continue
        if entry == {"tampered": True}:
            tampered = True
        elif isinstance(entry, dict) and len(found) < 50:
            found.append(entry)
        elif not isinstance(entry, dict):
            tampered = True
    return {"found": found, "tampered": tampered}


def _parsed(text):
    try:
        result = json.loads(text)
    except ValueError:
        return {"no_result": True}
    return result if isinstance(result, dict) else {"no_result": True}


def _confined_typescript(job, record, iso, in_server, uid, env_root):
    """`_typescript` in a child of the program's uid (the compiler reads the program)."""
    if not job["program_file"].endswith(".ts"):
        return os.path.join(CODEDIR, job["program_file"])
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(read_end)
            _confine(job, iso, in_server, uid)
            outcome = {}
            program = _typescript(job, outcome, env_root)
            os.write(write_end, json.dumps({"program": program, "record": outcome}).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(child, 0)
    try:
        answer = json.loads(b"".join(chunks).decode("utf-8"))
    except ValueError:
        raise RuntimeError("the TypeScript check ended without an answer")
    record.update(answer.get("record") or {})
    return answer.get("program")


def _spawn_program(
    job, iso, in_server, uid, env_root, program, data, bell, theirs, ours, signals=None
):
    """The program's process: its own pid namespace (and /proc) where the sandbox has one, so
    the grader is no process it can see or signal; the program's uid; the syscall filter.
    `signals`: where it writes the deprecation signals it records."""
    child = os.fork()
    if child:
        return child
    try:
        for sock in theirs:
            sock.close()
        for fd in ours:
            os.close(fd)
        if iso.get("pid") and iso.get("mount"):
            _check(_libc.unshare(ctypes.c_int(CLONE_NEWPID | CLONE_NEWNS)), "unshare")
            inner = os.fork()
            if inner:
                data.close()
                bell.close()
                _mirror_child(inner, os._exit)
            _mount("none", "/", None, MS_REC | MS_PRIVATE, None)
            _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        os.set_inheritable(data.fileno(), True)
        os.set_inheritable(bell.fileno(), True)
        if signals is not None:
            os.set_inheritable(signals, True)
        _confine(job, iso, in_server, uid)
        _libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)  # after the uid change, which clears it
        os.chdir(WORKDIR)
        node = os.path.join(env_root, "bin", "node")
        server = os.path.join(CODEDIR, "_pinbench_program.js")
        argv = [node, server, program, str(data.fileno()), str(bell.fileno())]
        if signals is not None:
            argv.append(str(signals))
        os.execve(node, argv, _node_env())
    finally:
        os._exit(127)


def _run_grader(job, iso, in_server, grader_uid, env_root, test_code, data, bell, proof_fd):
    """The grader's process: the test in a directory only it sees, its own uid, the harness's
    Node running `_pinbench_jest.js remote`; returns what it reports."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(read_end)
            os.close(proof_fd)
            _private_test_dir(iso)
            test = os.path.join(_trusted.GRADERDIR, job["test_file"])
            _trusted.write_private({job["test_file"]: test_code}, _trusted.GRADERDIR)
            if grader_uid is not None:
                os.chown(_trusted.GRADERDIR, grader_uid, grader_uid)
                os.chown(test, grader_uid, grader_uid)
            for fd in (data.fileno(), bell.fileno(), write_end):
                os.set_inheritable(fd, True)
            _confine(job, iso, in_server, grader_uid)
            os.chdir(WORKDIR)
            node = os.path.join(env_root, "bin", "harness-node")
            runner = os.path.join(CODEDIR, "_pinbench_jest.js")
            argv = [
                node,
                runner,
                "remote",
                str(data.fileno()),
                str(bell.fileno()),
                test,
                str(write_end),
            ]
            os.execve(node, argv, _node_env())
        finally:
            os._exit(127)
    os.close(write_end)
    text = _read_result(read_end)
    os.waitpid(child, 0)
    return text


def _zygote_limits():
    """This process's limits (`_set_limits`), for a zygote's child to take: [resource, soft,
    hard] each."""
    import resource

    names = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE")
    which = [getattr(resource, name) for name in names] + [resource.RLIMIT_CORE]
    return [[one] + list(resource.getrlimit(one)) for one in which]


def _zygote_program(job, iso, uid, program, data, bell, signals, control):
    """`_spawn_program` by the program's zygote: its child in the zygote's pid namespace
    (the zygote its pid 1, with its own /proc), the program's uid, the syscall filter. Returns
    the reply socket that ends it (`_end_zygote_children`), before the child is ready: the
    grader's is asked for meanwhile (`_zygote_grader`). The child is the zygote's, which never
    holds the test or the nonce, so the order of the request and the secret's read is free."""
    import _zygotes

    directory = job["zygote"]["dir"]
    args = [program, "@0", "@1"] + (["@2"] if signals else [])
    message = {
        "script": os.path.join(directory, "_pinbench_program.js"),
        "args": args,
        "proc": bool(iso.get("pid")),
        "uid": uid,
        "limits": _zygote_limits(),
        "seccomp": job.get("seccomp") or "",
        "cwd": WORKDIR,
    }
    fds = [data.fileno(), bell.fileno()] + ([signals[1]] if signals else [])
    return _zygotes.ask(control, message, fds)


def _zygote_grader(job, grader_uid, test_code, data, bell, control, program):
    """`_run_grader` by the grader's zygote: the test in a tmpfs of the child's own mount
    namespace, the grader's uid; returns what it reports, and the child's reply socket to end
    it by (it says its result in one line, and need not exit first). `program`: the program's
    child's reply socket, waited on here."""
    import _zygotes

    directory = job["zygote"]["dir"]
    test = os.path.join(_trusted.GRADERDIR, job["test_file"])
    message = {
        "script": os.path.join(directory, "_pinbench_jest.js"),
        "args": ["remote", "@0", "@1", test, "@2"],
        "private": {"dir": _trusted.GRADERDIR, "files": {job["test_file"]: test_code}},
        "uid": grader_uid,
        "limits": _zygote_limits(),
        "seccomp": job.get("seccomp") or "",
        "cwd": WORKDIR,
    }
    read_end, write_end = os.pipe()
    try:
        reply = _zygotes.ask(control, message, [data.fileno(), bell.fileno(), write_end])
    finally:
        os.close(write_end)
    try:
        _zygotes.ready(program)
    except _zygotes.ZygoteError:
        _zygotes.end(reply)
        raise
    _zygotes.ready(reply)
    text = _read_result(read_end, line=True)
    return text, reply


def _end_zygote_children(program, grader):
    """End the program's process (the grader is done with it) and the grader's through their
    zygotes, both at once; the program's wait status."""
    import _zygotes

    status = _zygotes.end_all([program, grader])[0]
    if status is None:
        raise RuntimeError("the program's zygote is gone")
    return status


def _reap_program(pid):
    """End the program's process (the grader is done with it); its wait status."""
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    try:
        return os.waitpid(pid, 0)[1]
    except OSError:
        return None


def _jest_record(result, record):
    if "deprecations" in result:  # in-process: the program's process reported them
        record["deprecations"] = result["deprecations"]
    if result.get("no_result"):
        record.update(
            status="failed",
            exc_type="NoResult",
            message="the test's process ended before the tests completed",
        )
        return
    if isinstance(result.get("broken"), str):
        record.update(
            status="failed",
            exc_type="MalformedChannel",
            message="the program's process sent what the grader does not accept: %s"
            % result["broken"][:300],
        )
        return
    load = result.get("load_error")
    if isinstance(load, dict):
        status = "syntax_error" if load.get("syntax") else "failed"
        record.update(status=status, exc_type=str(load.get("type", "Error")))
        record["message"] = _plain(str(load.get("message", "")))[:2000]
        record["trace"] = _plain(str(load.get("stack", "")))[:4000]
        return
    counts = {}
    for key in ("collected", "passed", "failed", "skipped"):
        value = result.get(key, 0)
        counts[key] = value if isinstance(value, int) and not isinstance(value, bool) else 0
    record["tests"] = counts
    failures = [f for f in result.get("failures") or [] if isinstance(f, dict)]
    if counts["failed"] or failures:
        first = failures[0] if failures else {}
        record.update(status="failed", exc_type=str(first.get("type", "Error")))
        record["message"] = _plain("%s: %s" % (first.get("test", "?"), first.get("message", "")))[
            :2000
        ]
        record["trace"] = _plain(str(first.get("stack", "")))[:4000]
    elif counts["passed"] == 0:
        record.update(status="failed", exc_type="NoTests", message="the test module ran no test")
    else:
        record["status"] = "passed"


def _probe(job, record):
    record["status"] = "passed"
    record["uid"] = os.getuid()
    record["pid"] = os.getpid()
    record["root_writable"] = _probe_writable("/")
    # the kernel keyring is shared across executions unless the syscall filter denies it
    key = _libc.syscall(
        _add_key_number(), b"user", b"pinbench-probe", b"x", 1, KEY_SPEC_USER_KEYRING
    )
    record["keyring"] = key >= 0
    try:
        import socket

        # The sandbox has its own loopback (servers under test bind it) and nothing else: no
        # other interface, so no route out (ENETUNREACH, EHOSTUNREACH).
        interfaces = sorted(name for _, name in socket.if_nameindex())
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(0.5)
        outside = sock.connect_ex(("192.0.2.1", 9)) not in (101, 113)
        sock.close()
        record["network"] = outside or interfaces != ["lo"]
        record["interfaces"] = interfaces
    except OSError:
        record["network"] = False


def _run_build(job, record):
    """A source distribution built into a wheel: its build script is dataset content, so it
    runs here only, offline, as the program under test would. The sdist is unpacked in the
    writable scratch; `pip wheel` runs with the build environment's own packages (no index, no
    isolation: the host installed the build requirements from wheels)."""
    import base64
    import subprocess
    import tarfile
    import zipfile

    src, out = WORKDIR + "/src", WORKDIR + "/wheel"
    _mkdir(src)
    _mkdir(out)
    archive = job["sdist"]
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as bundle:
            bundle.extractall(src)
    else:
        with tarfile.open(archive) as bundle:
            if hasattr(tarfile, "tar_filter"):  # links and devices stay inside the scratch
                bundle.extraction_filter = tarfile.tar_filter
            bundle.extractall(src)
    tops = os.listdir(src)
    root = src + "/" + tops[0] if len(tops) == 1 and os.path.isdir(src + "/" + tops[0]) else src
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    cmd += ["--no-index", "--no-cache-dir", "--disable-pip-version-check", "-w", out, root]
    sys.stdout.flush()
    sys.stderr.flush()
    code = subprocess.call(cmd, cwd=root)
    wheels = [name for name in os.listdir(out) if name.endswith(".whl")]
    if code != 0 or len(wheels) != 1:
        record.update(
            status="failed",
            exc_type="BuildFailed",
            message="pip wheel exited with status %d and left %d wheels" % (code, len(wheels)),
        )
        return
    with open(out + "/" + wheels[0], "rb") as fh:
        data = base64.b64encode(fh.read()).decode("ascii")
    record.update(status="passed", details={"wheel": wheels[0], "data": data})


def _add_key_number():
    """add_key's number on this machine (the probe runs where ctypes has no syscall names)."""
    import platform

    return {"x86_64": 248, "aarch64": 217}.get(platform.machine(), -1)


def _reap_until(worker, exit_now, keep_out=()):
    """As pid 1 of the sandbox's pid namespace: reap orphans until the worker ends, then exit
    with its status (the kernel then kills whatever is left). Returns in the worker only.

    The program never runs as pid 1, where the kernel would ignore its default-action signals
    (SIGXCPU, a kill of its own group) and change how limits show."""
    if worker == 0:
        return
    for fd in keep_out:  # the proof and the secret are the worker's alone
        os.close(fd)
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no same-uid process reads our /proc entries
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            exit_now(70)
        if pid == worker:
            if os.WIFSIGNALED(status):
                exit_now(128 + os.WTERMSIG(status))
            exit_now(os.WEXITSTATUS(status))


def _emit(
    fd, nonce, record, write, exit_now, code, streams=(), owner=None, getpid=os.getpid, cap=60000
):
    if owner is not None and getpid() != owner:
        exit_now(1)  # a forked copy of the program fell through to here: only the runner reports
    for stream in streams + (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    record["nonce"] = nonce
    data = (json.dumps(record) + "\n").encode("utf-8")
    if len(data) > cap:  # stay within one pipe buffer, unless the host reads as we write
        record["trace"] = record.get("trace", "")[-2000:]
        record["tampered"] = record.get("tampered", [])[:20]
        record.pop("details", None)
        data = (json.dumps(record)[:cap] + "\n").encode("utf-8")
    view = memoryview(data)
    while view:
        n = write(fd, view)
        view = view[n:]
    exit_now(code)


def main():
    """Cold path: one fresh interpreter per execution, the job on stdin."""
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    run_job(job, in_server=False)


def _mirror_child(child, exit_now):
    """Wait for `child` and exit the way it did."""
    while True:
        _, status = os.waitpid(child, 0)
        if os.WIFEXITED(status):
            exit_now(os.WEXITSTATUS(status))
        if os.WIFSIGNALED(status):
            exit_now(128 + os.WTERMSIG(status))


def warm_up():
    """Import what a run imports lazily, once in the warm server rather than in every child."""
    import fcntl  # noqa: F401
    import resource  # noqa: F401
    import signal  # noqa: F401
    import traceback  # noqa: F401
    import types  # noqa: F401
    import unittest.mock  # noqa: F401  (the grader mirrors its patches: ~30 ms to import)

    if "pytest" in sys.modules:
        import _pytest.monkeypatch  # noqa: F401
    _snapshot()


def prepare_server(iso, keep, tmpfs_bytes):
    """A warm server's one-time setup, the part of the cold path's isolation that a series of
    executions can share: it becomes pid 1 of its own pid namespace (the reaper every
    execution's program sees as its parent), inside the read-only root. Returns in pid 1."""
    _enter_namespaces(iso)
    if iso.get("net"):
        _forget_closed_sockets()
    if iso.get("pid"):
        child = os.fork()
        if child:
            _mirror_child(child, os._exit)
        _libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
    if iso.get("mount"):
        # Each execution gets a copy of this namespace as built (`renew_namespaces`), not of
        # the last one, which would stack one more scratch layer per execution.
        TEMPLATE_NS.append(os.open("/proc/self/ns/mnt", os.O_RDONLY))
        _build_root(keep, tmpfs_bytes, with_proc=bool(iso.get("pid")))
        for path in keep:  # a kept dir under a scratch dir is re-bound over each fresh scratch
            if any(path == s or path.startswith(s + "/") for s in SCRATCH):
                KEPT_IN_SCRATCH.append(path)
    if os.getsid(0) != os.getpid():
        os.setsid()
    # Inherited by every child, and never lost: no execution can gain privileges through exec.
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    # Its descriptors (each execution's proof and secret pass through it) stay its own.
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
TEMPLATE_NS = []  # a warm server's mount namespace as it was built (an fd)
KEPT_IN_SCRATCH = []  # paths a warm server's children bind back over their fresh scratch


class _Deadline(Exception):
    pass


_ARMED = [False]  # a warm server's deadline is pending (a late alarm after it is ignored)


def _on_alarm(signum, frame):
    if _ARMED[0]:
        _ARMED[0] = False
        raise _Deadline()


STALL_CHECK_SECONDS = 1.0  # how often a warm server looks for a stalled zygote child


def fork_and_wait(fork, child, wall, spare=(), stalls=None):
    """In a warm server: fork a child that runs `child()` (which never returns), wait for it up
    to its wall deadline (then kill it), and when we are pid 1 kill and reap whatever it left
    behind (daemons, orphans), as the end of a cold run's pid namespace would. Returns (wait
    status, whether the deadline struck).

    `spare`: the server's Node zygotes, which outlive executions: kept when the execution ended
    in time and left no process but them (their children are ended and reaped by the zygotes
    before the runner's child ends); else they go with everything else.

    The deadline is armed before the fork (a child inherits no timer), so while the child runs
    the server only waits: every page the server writes while a child shares it is a copy.

    `stalls` (`_zygotes.Stalls`): checked every STALL_CHECK_SECONDS until the deadline; a stall
    ends the execution as the deadline would (`stalls.found` says which it was)."""
    import signal

    server = os.getpid()
    alarm = {signal.SIGALRM}
    signal.signal(signal.SIGALRM, _on_alarm)
    pid, status, timed_out = 0, None, False
    _ARMED[0] = True
    end = time.time() + wall
    try:
        first = min(wall, STALL_CHECK_SECONDS) if stalls is not None else wall
        signal.setitimer(signal.ITIMER_REAL, max(0.001, first))
        # Blocked across the fork: an alarm that came before is raised by this call (it checks
        # for signals), one that comes after waits until the parent holds its child's pid. A
        # deadline handled inside fork() would otherwise leave a child the server never knew.
        signal.pthread_sigmask(signal.SIG_BLOCK, alarm)
        pid = fork()
        if pid == 0:
            try:
                signal.signal(signal.SIGALRM, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, alarm)
                child()
            finally:
                os._exit(70)  # a child never returns into the server's loop
        signal.pthread_sigmask(signal.SIG_UNBLOCK, alarm)
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                _ARMED[0] = False  # inside the try: an alarm handled before this is caught
                break
            except _Deadline:
                left = end - time.time()
                if stalls is None or left <= 0.001 or stalls.check():
                    raise  # the deadline, or a stalled zygote child: ended alike below
                _ARMED[0] = True
                signal.setitimer(signal.ITIMER_REAL, min(left, STALL_CHECK_SECONDS))
    except _Deadline:
        if os.getpid() != server:  # raised in the child (a deadline below a fork's time)
            os._exit(70)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, alarm)
        if status is None:  # else the child had ended: the alarm came just after
            timed_out = True
            if not pid:  # the deadline struck before the fork: nothing ran
                signal.setitimer(signal.ITIMER_REAL, 0)
                return 128 + 9, True
            try:
                os.kill(pid, 9)
                _, status = os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):  # reaped as the alarm came
                status = 128 + 9
    signal.setitimer(signal.ITIMER_REAL, 0)
    if os.getpid() == 1 and spare and not timed_out and _nothing_left_but(spare):
        return status, timed_out
    if os.getpid() == 1:
        try:
            os.kill(-1, 9)  # pid 1 of our namespace: every process here but us
        except OSError:
            pass
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
    return status, timed_out


def _nothing_left_but(spare):
    """In a warm server (pid 1): True when, once the zombies are reaped, no process is left in
    its pid namespace (nested ones included) but itself and `spare`."""
    spare = set(spare)
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if not pid:
            break
        if pid in spare:  # a zygote ended
            return False
    try:
        names = os.listdir("/proc")
    except OSError:
        return False
    return all(not name.isdigit() or int(name) == 1 or int(name) in spare for name in names)


CGROUP_ROOT_FD = []  # a warm server keeps the cgroup hierarchy open: its root hides the path


def _join_cgroup(group):
    """Move this process into `group` (a path; relative to CGROUP_ROOT_FD in a warm server)."""
    data = str(os.getpid()).encode()
    if CGROUP_ROOT_FD:
        fd = os.open(os.path.join(group, "cgroup.procs"), os.O_WRONLY, dir_fd=CGROUP_ROOT_FD[0])
    else:
        fd = os.open(os.path.join(group, "cgroup.procs"), os.O_WRONLY)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


CLOSE_RANGE = 436  # the same number on x86_64 and aarch64 (Linux 5.9+)


def _close_inherited(proof_fd, highest, secret_fd=None, extra=(), files=()):
    """In a child of a warm server: keep only the standard streams, the proof (moved to fd 3),
    the grader's secret (to fd 4), `extra` (the server's Node zygotes' sockets, after them)
    and, opened afresh, `files` (`descriptors`). Any other descriptor was the server's (its
    cgroup directory, its sockets): a directory opened outside the sandbox's root leads back to
    the host by `..`. `highest` is the server's highest descriptor when it forked (None if it
    could not tell). Returns the proof's and the secret's new numbers, and the list of
    `extra`'s."""
    import fcntl

    wanted = [fd for fd in (proof_fd, secret_fd) if fd is not None] + list(extra)
    floor = max(wanted + [highest or 0, 64]) + 1
    copies = [fcntl.fcntl(fd, fcntl.F_DUPFD, floor) for fd in wanted]  # out of 3 and 4's way
    for number, copy in enumerate(copies, 3):
        os.dup2(copy, number)
    first = 3 + len(copies)
    kept = _reopened(files, first)
    if highest is not None:  # a few close calls: no ctypes call, whose first use copies pages
        start = first
        for fd in kept + [max(copies) + 1]:
            os.closerange(start, fd)
            start = fd + 1
    elif _libc.syscall(CLOSE_RANGE, first, ctypes.c_uint(0xFFFFFFFF), 0) != 0:
        import resource

        os.closerange(first, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    ours = 3 + (secret_fd is not None)
    return 3, (4 if secret_fd is not None else None), list(range(ours + 1, ours + 1 + len(extra)))


def _reopened(files, first):
    """The server's preloaded libraries' files (`descriptors`), each opened again under its
    own number: the library reads on as it would in one process (pyproj keeps PROJ's database
    open; closed, its number went to pytest's capture file and both broke), but through an
    open file of this execution's own, so that no offset or lock is shared with the server or
    another execution. Returns the numbers kept, in order."""
    kept = []
    for fd, path, device, inode in files:
        if fd < first:  # where the proof or the secret now is
            continue
        try:
            fresh = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            st = os.fstat(fresh)
            if (st.st_dev, st.st_ino) == (device, inode):
                os.lseek(fresh, os.lseek(fd, 0, os.SEEK_CUR), os.SEEK_SET)
                os.dup2(fresh, fd, inheritable=os.get_inheritable(fd))
                kept.append(fd)
        except OSError:
            pass
        finally:
            os.close(fresh)
    return sorted(kept)


def descriptors():
    """In a warm server, before a fork: (its highest open descriptor, or None without /proc;
    the files its preloaded libraries hold open to read, as [fd, path, device, inode]: regular
    files opened read-only that anyone may read, which a child opens afresh)."""
    import fcntl
    import stat

    try:
        numbers = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return None, []
    files = []
    for fd in numbers:
        if fd <= 2:
            continue
        try:
            st = os.fstat(fd)
            readable = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
            path = os.readlink("/proc/self/fd/%d" % fd) if readable else ""
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_mode & 0o004 and path.startswith("/"):
            files.append([fd, path, st.st_dev, st.st_ino])
    return (max(numbers) if numbers else None), files


# A closed TCP socket keeps no TIME_WAIT (or FIN_WAIT2) state in a warm server's network
# namespace: such a socket outlives its process and holds its port, so one execution could
# leave a message in which ports it held, for the next to read by trying to bind them.
_NET_SYSCTLS = (("net/ipv4/tcp_max_tw_buckets", "0"), ("net/ipv4/tcp_fin_timeout", "1"))


def _forget_closed_sockets():
    for name, value in _NET_SYSCTLS:
        try:
            _write_file("/proc/sys/" + name, value)
        except (IOError, OSError) as exc:
            raise SetupError("cannot set %s: %s" % (name, exc))


def _sockets_left():
    """True when any socket is still in use, or in TIME_WAIT, in this network namespace (every
    process of the last execution is gone, and the server holds none there): the namespace is
    no longer the clean one the next execution must get, so the server ends and the host starts
    another. The namespace's own counters (`sockstat`): O(1), where the socket tables walk the
    host's whole hash table (several ms an execution)."""
    for table in ("sockstat", "sockstat6"):
        try:
            with open("/proc/net/" + table) as fh:
                lines = fh.read().splitlines()
        except (IOError, OSError):
            continue  # no IPv6 in this kernel
        for line in lines:
            fields = line.split()
            for key in ("inuse", "tw"):
                if key in fields[1:-1] and fields[fields.index(key) + 1] != "0":
                    return True
    return False


_PID_MAX = []


def _scatter_pids():
    """The next pid in a warm server's pid namespace, drawn at random: pids are handed out in
    order, so an execution that forked until the last one was some value would leave that
    value (a message) in the next execution's own pid."""
    if not _PID_MAX:  # once per server
        try:
            with open("/proc/sys/kernel/pid_max") as fh:
                _PID_MAX.append(int(fh.read()))
        except (IOError, OSError, ValueError) as exc:
            raise SetupError("cannot read pid_max: %s" % (exc,))
    low, high = 1000, max(_PID_MAX[0] - (1 << 16), 2000)
    drawn = low + int.from_bytes(os.urandom(4), "little") % (high - low)
    try:
        _write_file("/proc/sys/kernel/ns_last_pid", str(drawn))
    except (IOError, OSError) as exc:
        raise SetupError("cannot set ns_last_pid: %s" % (exc,))


def renew_namespaces(iso, tmpfs_bytes):
    """In a warm server, between executions, once every process of the last one is gone: the
    next child's fresh mount namespace with new /tmp, /var/tmp and /dev/shm, and fresh SysV
    IPC (whose objects outlive processes). The server's user, pid and network namespaces (no
    interface up) and its root are shared by all its executions, one at a time. Done here
    rather than in the child, it is off the critical path: the host is reading the outcome.
    A socket left in the shared network namespace ends the server (`_sockets_left`); the next
    pid is drawn anew (`_scatter_pids`)."""
    if iso.get("net") and _sockets_left():
        raise SetupError("the last execution left sockets in the network namespace")
    if iso.get("pid"):
        _scatter_pids()
    if iso.get("mount"):
        _check(_libc.setns(TEMPLATE_NS[0], CLONE_NEWNS), "setns")
    _enter_namespaces({"mount": iso.get("mount"), "ipc": iso.get("net")})
    if iso.get("mount"):
        _fresh_scratch(tmpfs_bytes)


def _fresh_scratch(tmpfs_bytes):
    """A new /tmp, /var/tmp and /dev/shm (with the environment bound back in when it lives
    under one of them, e.g. a home under /tmp).

    The server's mounts are all private (`_build_root`), so this namespace's copies are too:
    nothing mounted here propagates back to the server."""
    # Held open in this mount namespace before the new scratch hides them (a bind source must
    # be a mount of the caller's own namespace).
    kept = [(path, os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in KEPT_IN_SCRATCH]
    for scratch in SCRATCH:
        _tmpfs(scratch, tmpfs_bytes)
    for path, fd in kept:
        _bind_ro("/proc/self/fd/%d" % fd, path)
        os.close(fd)


def run_job(job, in_server):
    """Isolate this process as `job` asks, run the program and its test, write the proof, exit.

    Shared by the cold path and the children of warm servers (`in_server`: the server already
    is the pid-1 reaper inside the read-only root), so a program gets the same sandbox, the same
    process tree above it and the same grading either way. With trusted grading the nonce and
    the test are not in `job`: they come on `secret_fd`, read only once the program's process
    is forked (`_trusted`)."""
    nonce = job.pop("nonce", None)
    proof_fd = int(job["proof_fd"])
    secret_fd = job.get("secret_fd")
    # Bound before untrusted code runs, so a program that patches os cannot reroute the proof.
    write, exit_now, getpid, started = os.write, os._exit, os.getpid, time.time()
    streams = (sys.stdout, sys.stderr)
    record = {"status": "harness_error"}
    if job.get("deprecations"):  # before anything imports a library (a server did already)
        _deprecations.install()
    iso = job.get("isolation", {})
    tmpfs_bytes = int(job["limits"].get("tmpfs_bytes", 256 << 20))
    trusted = job.get("grading") == "trusted" and job["mode"] in TRUSTED_MODES
    try:
        if job.get("cgroup"):  # first, while still privileged: every descendant inherits it
            _join_cgroup(job["cgroup"])
        if in_server:
            # Namespaces and scratch are the server's, renewed before each execution
            # (`renew_namespaces`): nothing to set up here but the descriptors.
            proof_fd, secret_fd, job["zygote_fds"] = _close_inherited(
                proof_fd,
                job.get("highest_fd"),
                secret_fd,
                job.get("zygote_fds") or (),
                job.get("library_files") or (),
            )
        else:
            _enter_namespaces(iso)
            if iso.get("pid"):
                child = os.fork()
                if child:
                    os.close(proof_fd)
                    if secret_fd is not None:
                        os.close(secret_fd)
                    _mirror_child(child, exit_now)
            if iso.get("mount"):
                _build_root(job.get("keep", ()), tmpfs_bytes, with_proc=bool(iso.get("pid")))
            if os.getsid(0) != os.getpid():
                os.setsid()
            if iso.get("pid"):
                _libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
                keep_out = [fd for fd in (proof_fd, secret_fd) if fd is not None]
                _reap_until(os.fork(), exit_now, keep_out)
        if job["mode"] == "script" and not trusted:  # on disk too, so tracebacks quote it
            job["files"][_script_name(job)] = _script_source(job)
        if trusted and job["mode"] != "jest":
            job["files"]["program.py"] = job["program"]
        _lay_out_files(
            job["files"],
            bool(iso.get("mount")) and iso.get("uid") is None,
            job.get("binary_files"),
        )
        _set_limits(job.get("limits", {}))
        if trusted and job["mode"] == "jest":
            return _run_trusted_node(job, record, proof_fd, secret_fd, in_server, started)
        if trusted:
            return _run_trusted(job, record, proof_fd, secret_fd, in_server, started)
        _confine(job, iso, in_server, int(iso["uid"]) if iso.get("uid") is not None else None)
        sys.path[:0] = [CODEDIR, WORKDIR]
    except Exception:
        if nonce is None and secret_fd is not None:  # no program ran: the secret is safe to read
            nonce = _read_secret(secret_fd)["nonce"]
        record["message"] = "sandbox setup failed: %s" % (sys.exc_info()[1],)
        record["trace"] = _short_trace(sys.exc_info())
        _emit(proof_fd, nonce, record, write, exit_now, 3)
    owner = getpid()
    mode = job["mode"]
    runners = {"script": _run_script, "pytest": _run_pytest, "repo": _run_repo, "probe": _probe}
    runners["build"] = _run_build
    runners["jest"] = _run_jest
    runners["node-repo"] = _run_node_repo
    runners["java-repo"] = _run_java_repo
    runners["cpp-repo"] = _run_cpp_repo
    runners["csharp-repo"] = _run_csharp_repo
    runner = runners[mode]
    try:
        runner(job, record)
    except BaseException:
        info = sys.exc_info()
        record.update(status="failed", exc_type=info[0].__name__, message=str(info[1])[:2000])
        record["trace"] = _short_trace(info)
    _finish(record, started)
    code = int(record["status"] != "passed")
    cap = int(job.get("record_bytes", 60000))
    _emit(proof_fd, nonce, record, write, exit_now, code, streams, owner, getpid, cap)


TRUSTED_MODES = ("pytest", "script", "jest")


def _confine(job, iso, in_server, uid):
    """The last steps before untrusted code runs in this process: its uid (or no capabilities
    in a user namespace), no new privileges, the syscall filter, the environment's site."""
    if uid is not None:
        _drop_privileges(uid, uid)
    elif iso.get("userns"):
        _drop_capabilities()
    if not in_server:  # a warm server set it on itself: its children inherit it
        _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    sys.dont_write_bytecode = True
    _install_seccomp(job.get("seccomp"))  # the setup above needs what it denies
    if not in_server:  # a warm server's children inherit its site, enabled once
        enable_site()


def _program_sources(job):
    """The files the program's code runs from, each with its last line of the program (0:
    all of it): the module a test imports, or the script's file as it is run."""
    module = job.get("module") or (job.get("script") or "")[len("test_") : -len(".py")]
    sources = {os.path.join(CODEDIR, "program.py"): 0}
    if module:
        sources[os.path.join(CODEDIR, module + ".py")] = 0
    return sources


def _import_libraries(job):
    """The pinned libraries, imported as a warm server has them preloaded: their import-time
    warnings are not the program's."""
    for name in job.get("libraries") or ():
        try:
            __import__(name)
        except BaseException:  # the program meets the same error itself
            pass


def _watch_deprecations(job, sources=None, emit=None):
    """Record deprecation signals from here on (`_deprecations`), once the pinned libraries
    are imported: what they raise as they load is theirs, not the program's."""
    if not job.get("deprecations"):
        return
    _import_libraries(job)
    sources = sources or _program_sources(job)
    lines = job["program"].split("\n")
    _deprecations.watch(sources, dict.fromkeys(sources, lines), emit)


def _finish(record, started):
    if record.get("tampered"):
        record.update(
            status="failed",
            exc_type="HarnessTampering",
            message="the program replaced harness objects: %s" % ", ".join(record["tampered"][:8]),
        )
    record["seconds"] = time.time() - started
    if "deprecations" not in record and _deprecations.watching():
        record["deprecations"] = {
            "found": _deprecations.found(),
            "tampered": _deprecations.tampered(),
        }


def _read_secret(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return json.loads(b"".join(chunks).decode("utf-8"))


def _run_trusted(job, record, proof_fd, secret_fd, in_server, started):
    """Fork the program's process (it has neither the test nor the nonce, nor the proof), then
    become the grader: read the secret, put the test where only this process sees it, confine
    this process too, and run the test against the program's objects."""
    write, exit_now = os.write, os._exit
    iso = job.get("isolation", {})
    _values.set_libraries(job.get("libraries"))
    grader_sock, program_sock = _remote.channel()
    program = os.fork()
    if program == 0:
        try:
            grader_sock.close()
            os.close(proof_fd)
            os.close(secret_fd)
            uid = int(iso["uid"]) if iso.get("uid") is not None else None
            _confine(job, iso, in_server, uid)
            sys.path[:0] = [CODEDIR, WORKDIR]
            os.chdir(WORKDIR)
            watch = lambda emit: _watch_deprecations(job, emit=emit)  # noqa: E731
            _trusted.serve_program(program_sock, job, CODEDIR, watch)
        finally:
            exit_now(0)
    program_sock.close()
    secret = _read_secret(secret_fd)
    nonce = secret["nonce"]
    try:
        _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        uid = int(iso["uid"]) if iso.get("uid") is not None else None
        if job["mode"] == "pytest":  # a script test is compiled from memory: no files at all
            _private_test_dir(iso)
            files = dict(secret.get("test_files") or {})
            files["pytest.ini"] = "[pytest]\n"
            _trusted.write_private(files, _trusted.GRADERDIR)
            if uid is not None:
                os.chown(_trusted.GRADERDIR, uid, uid)
        # The program's uid (the files a test and the program share, such as pytest's
        # tmp_path, stay readable to both), but not dumpable: no process of that uid without
        # CAP_SYS_PTRACE (which the program has not) opens our memory, descriptors or root
        # through /proc, and ptrace is filtered.
        os.set_inheritable(proof_fd, False)  # not for a subprocess the test starts
        _confine(job, iso, in_server, uid)
        _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # a uid change resets it
        os.chdir(WORKDIR)  # relative paths are the program's files, as in one process
    except Exception:
        record["message"] = "sandbox setup failed: %s" % (sys.exc_info()[1],)
        record["trace"] = _short_trace(sys.exc_info())
        _emit(proof_fd, nonce, record, write, exit_now, 3)
    grader = _trusted.Grader(grader_sock, program, bool(job.get("shares_state")))
    try:
        grader.install_mirrors(with_pytest=job["mode"] == "pytest")
        if job.get("shares_state"):
            grader.share_state_modules()
        if job["mode"] == "pytest":
            grader.remote_module(job["module"])
            _run_pytest(job, record, test_dir=_trusted.GRADERDIR, trusted=True)
        else:
            _grade_script(job, secret, grader, record)
    except BaseException:
        info = sys.exc_info()
        record.update(status="failed", exc_type=info[0].__name__, message=str(info[1])[:2000])
        record["trace"] = _short_trace(info)
    if grader.broken is not None:  # whatever the test made of it, the program's side lied
        record.update(
            status="failed",
            exc_type="MalformedChannel",
            message="the program's process sent what the grader does not accept: %s"
            % grader.broken[:300],
        )
    if job.get("deprecations"):
        record["deprecations"] = grader.deprecations_found()
    status = grader.program_ended()
    if status is not None and os.WIFSIGNALED(status):  # a limit's signal, as the kernel says
        record["program_exit"] = 128 + os.WTERMSIG(status)
    _finish(record, started)
    record["grading"] = "trusted"
    try:
        grader_sock.close()
    except OSError:
        pass
    code = int(record["status"] != "passed")
    cap = int(job.get("record_bytes", 60000))
    _emit(proof_fd, nonce, record, write, exit_now, code, (sys.stdout, sys.stderr), cap=cap)


def _private_test_dir(iso):
    """A directory only this process sees: a tmpfs in a mount namespace of its own (the
    program's process is in the one we leave), or without namespaces a 0700 directory."""
    if iso.get("mount"):
        _check(_libc.unshare(ctypes.c_int(CLONE_NEWNS)), "unshare")
        _tmpfs(_trusted.GRADERDIR, 16 << 20)
        os.chmod(_trusted.GRADERDIR, 0o700)
    else:
        _mkdir(_trusted.GRADERDIR)
        os.chmod(_trusted.GRADERDIR, 0o700)


def _grade_script(job, secret, grader, record):
    """The test of a script-mode problem, in the grader: after the program's top level ran in
    its own process (as `__main__`), or, when the test imports the program's module, beside it."""
    import types

    test = secret["test"]
    name = _script_name(job)
    try:
        compile(job["program"], "program.py", "exec")
        code, runs_unittest = _script_code(test + "\n", name, 1)
    except SyntaxError:
        info = sys.exc_info()
        record.update(status="syntax_error", exc_type=info[0].__name__, message=str(info[1]))
        record["trace"] = _short_trace(info)
        return
    main = types.ModuleType("__main__")
    if job.get("script"):
        grader.remote_module(job["script"][len("test_") : -len(".py")])
        namespace, names = main.__dict__, None
        namespace.update(__name__="__main__", __file__=os.path.join(_trusted.GRADERDIR, name))
    else:
        try:
            grader.ep.request("run_main")
        except SystemExit as exc:
            record.update(
                status="failed",
                exc_type="SystemExit",
                message="program exited (code %r) before the test completed" % (exc.code,),
            )
            return
        namespace, names = _trusted.script_namespace(grader, job, main, CODEDIR)
    sys.modules["__main__"] = main
    genuine = _genuine_unittest() if runs_unittest else None
    try:
        if names is None:
            exec(code, namespace)
        else:
            exec(code, namespace, names)
        if genuine is not None:
            _grade_unittest_main(namespace.get(_UNITTEST_RESULT), genuine, record)
            return
    except SystemExit as exc:
        record.update(
            status="failed",
            exc_type="SystemExit",
            message="the test exited (code %r) before it completed" % (exc.code,),
        )
        return
    except BaseException:
        info = sys.exc_info()
        record.update(status="failed", exc_type=info[0].__name__, message=str(info[1])[:2000])
        record["trace"] = _short_trace(info)
        return
    record.update(status="passed", tests={"collected": 1, "passed": 1})


if __name__ == "__main__":
    main()
