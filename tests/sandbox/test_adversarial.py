"""Hostile programs: each must end with the right outcome, never a false pass, the harness alive
and the host untouched (checked by the `run` fixture after every test)."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from pinbench.core.outcome import Limits, Status
from pinbench.core.tests import TestKind

from .conftest import HOSTILE_MARK, Run

pytestmark = pytest.mark.integration

NOT_PASSED = {Status.FAILED, Status.RESOURCE_LIMIT, Status.TIMEOUT}
FAST = Limits(wall_seconds=6, cpu_seconds=3)
WRONG = "def f():\n    return 1\n"
UNITTEST_TEST = """
import unittest
from sample_x import f
class T(unittest.TestCase):
    def test_f(self):
        self.assertEqual(f(), 2)
"""


def test_fork_bomb_hits_the_process_limit(run: Run) -> None:
    result = run(
        f"import os\nwhile True:\n    os.fork()  # {HOSTILE_MARK}",
        "assert False",
        limits=Limits(wall_seconds=10, cpu_seconds=5, processes=32),
    )
    assert result.status is Status.RESOURCE_LIMIT, result
    assert result.seconds < 5  # refused at once, not stopped by the deadline


def test_memory_bomb_hits_the_address_space_limit(run: Run) -> None:
    result = run("blocks = []\nwhile True:\n    blocks.append(bytearray(50 << 20))", "assert True")
    assert result.status is Status.RESOURCE_LIMIT


def test_cpu_spin_hits_cpu_or_wall_limit(run: Run) -> None:
    result = run("while True:\n    pass", "assert True", limits=FAST)
    assert result.status in {Status.RESOURCE_LIMIT, Status.TIMEOUT}
    assert result.seconds < 10


def test_sleep_forever_times_out(run: Run) -> None:
    result = run("import time\ntime.sleep(10**6)", "assert True", limits=FAST)
    assert result.status is Status.TIMEOUT
    assert result.seconds < 10


def test_gigabytes_of_output_hit_the_output_limit(run: Run) -> None:
    result = run(
        "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(4096):\n    sys.stdout.write(chunk)",
        "assert True",
        limits=Limits(wall_seconds=20, cpu_seconds=20, file_size_bytes=8 << 20),
    )
    assert result.status is Status.RESOURCE_LIMIT
    assert len(result.stdout) <= Limits().output_bytes + 100


def test_write_to_home_is_refused(run: Run) -> None:
    target = Path.home() / f"{HOSTILE_MARK}-home"
    result = run(f"open({str(target)!r}, 'w').write('owned')", "assert True")
    assert result.status is Status.FAILED
    assert not target.exists()


def test_write_to_tmp_outside_its_dir_stays_private(run: Run) -> None:
    target = f"/tmp/{HOSTILE_MARK}-tmp"
    result = run(
        f"open({target!r}, 'w').write('owned')\nimport os\nassert os.path.exists({target!r})",
        "assert True",
    )
    assert result.status is Status.PASSED  # allowed inside: its own private /tmp
    assert not Path(target).exists()


def test_write_to_dataset_is_refused(run: Run, dataset_dir: Path) -> None:
    victim = dataset_dir / "hidden_test.py"
    result = run(f"open({str(victim)!r}, 'w').write('SECRET_EXPECTED = 1')", "assert True")
    assert result.status is Status.FAILED
    assert victim.read_text() == "SECRET_EXPECTED = 42\n"


def test_reading_the_dataset_finds_nothing(run: Run, dataset_dir: Path) -> None:
    result = run(f"print(open({str(dataset_dir / 'hidden_test.py')!r}).read())", "assert True")
    assert result.status is Status.FAILED
    assert "SECRET_EXPECTED" not in result.stdout + result.stderr + result.message


def test_inherited_descriptors_do_not_reach_the_host(run: Run, dataset_dir: Path) -> None:
    """A directory descriptor left open from outside the sandbox's root leads back to the host's
    tree by `..`: the program must hold none (a warm server's own descriptors included)."""
    program = f"""
import os, stat
reached = []
for fd in range(256):
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            continue
        up = '../' * 40 + {str(dataset_dir / "hidden_test.py").lstrip("/")!r}
        with open(os.open(up, os.O_RDONLY, dir_fd=fd)) as fh:
            reached.append(fh.read())
    except OSError:
        pass
print(reached)
"""
    result = run(program, "assert reached == []")
    assert result.status is Status.PASSED, result
    assert "SECRET_EXPECTED" not in result.stdout


def test_no_execution_can_gain_privileges_through_exec(run: Run) -> None:
    """no_new_privs holds for the program (a warm server sets it on itself for its children)."""
    program = "flags = [l.split()[1] for l in open('/proc/self/status') if l.startswith('NoNew')]"
    result = run(program, "assert flags == ['1'], flags")
    assert result.status is Status.PASSED, result


def test_write_into_the_environment_is_refused(run: Run, env_python: Path) -> None:
    site = next(env_python.parent.parent.glob("lib/python*/site-packages"))
    target = site / f"{HOSTILE_MARK}.pth"
    result = run(f"open({str(target)!r}, 'w').write('import os')", "assert True")
    assert result.status is Status.FAILED
    assert not target.exists()


def test_api_keys_are_not_in_its_environment(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-pinbench-test-secret-0123456789"
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, secret)
    program = f"""
import os
print(dict(os.environ))
for pid in ['1', 'self', str(os.getppid()), {str(os.getpid())!r}]:
    try:
        print(open('/proc/%s/environ' % pid, 'rb').read())
    except OSError as exc:
        print('denied', exc)
"""
    result = run(program, "assert True")
    assert result.status is Status.PASSED
    assert secret not in result.stdout + result.stderr


def test_a_server_on_the_sandboxs_own_loopback_works_and_nothing_else_is_there(
    run: Run, isolation_level: str
) -> None:
    # tornado's and gradio's tests start a server on 127.0.0.1 and talk to it.
    if isolation_level == "none":
        pytest.skip("no network namespace on this machine")
    program = (
        "import socket, threading\n"
        "server = socket.socket()\nserver.bind(('127.0.0.1', 0))\nserver.listen(1)\n"
        "port = server.getsockname()[1]\n"
        "threading.Thread(target=lambda: server.accept()[0].sendall(b'hi'), daemon=True).start()\n"
        "reply = socket.create_connection(('127.0.0.1', port), timeout=3).recv(2)\n"
        "names = sorted(name for _, name in socket.if_nameindex())\n"
    )
    result = run(program, "assert reply == b'hi', reply\nassert names == ['lo'], names")
    assert result.status is Status.PASSED, (result.message, result.stderr[-500:])


def test_socket_to_localhost_cannot_connect(run: Run, isolation_level: str) -> None:
    if isolation_level == "none":
        pytest.skip("no network namespace on this machine")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    program = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=3)"
    result = run(program, "assert True")
    assert result.status is Status.FAILED
    assert result.exc_type in {"OSError", "ConnectionRefusedError", "TimeoutError"}
    with pytest.raises(TimeoutError):
        server.accept()
    server.close()


def test_socket_to_public_address_cannot_connect(run: Run, isolation_level: str) -> None:
    if isolation_level == "none":
        pytest.skip("no network namespace: refusing to send traffic off this machine")
    # TEST-NET-1 (RFC 5737); inside the namespace no route exists, so no packet leaves.
    program = "import socket\nsocket.create_connection(('192.0.2.1', 80), timeout=3)"
    result = run(program, "assert True")
    assert result.status is Status.FAILED
    assert "unreachable" in result.message.lower()


def test_dns_lookup_fails(run: Run, isolation_level: str) -> None:
    if isolation_level == "none":
        pytest.skip("no network namespace on this machine")
    result = run("import socket\nsocket.getaddrinfo('pypi.org', 443)", "assert True")
    assert result.status is Status.FAILED


def test_killing_its_parent_does_not_pass_or_hurt_the_harness(run: Run) -> None:
    result = run("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", "assert False")
    assert result.status in NOT_PASSED


def test_killing_its_process_group_does_not_pass(run: Run) -> None:
    result = run("import os, signal\nos.killpg(0, signal.SIGKILL)", "assert True")
    assert result.status in NOT_PASSED


def test_killing_every_process_it_can_does_not_pass(run: Run) -> None:
    result = run("import os, signal\nos.kill(-1, signal.SIGKILL)", "assert True")
    assert result.status in NOT_PASSED


def test_sys_exit_zero_before_the_asserts_fails(run: Run) -> None:
    result = run(WRONG + "import sys\nsys.exit(0)", "assert f() == 2")
    assert result.status is Status.FAILED
    assert result.exc_type == "SystemExit"


def test_os_exit_zero_before_the_asserts_fails(run: Run) -> None:
    result = run(WRONG + "import os\nos._exit(0)", "assert f() == 2")
    assert result.status is Status.FAILED
    assert result.exc_type == "ProcessEnded"  # the grader outlives the program's process
    assert "exit status 0" in result.message


def test_os_exit_zero_in_pytest_mode_fails(run: Run) -> None:
    result = run(
        WRONG + "import os\nos._exit(0)",
        "from sample_x import f\ndef test_f():\n    assert f() == 2\n",
        kind=TestKind.PYTEST,
    )
    assert result.status is Status.FAILED


# GitChameleon 2.0's visible_tests/ files: module-level asserts importing `sample_<id>`.
MODULE_SCRIPT = (
    "import os, sys\nfrom sample_x import f\nassert f() == 2\nprint(os.path.basename(__file__))"
)


def test_a_module_level_script_importing_the_program_passes_and_fails_honestly(run: Run) -> None:
    passed = run("def f():\n    return 2\n", MODULE_SCRIPT, module="sample_x")
    assert passed.status is Status.PASSED, passed
    assert passed.stdout.strip() == "test_sample_x.py"  # run as its own file, as python runs it
    failed = run(WRONG, MODULE_SCRIPT, module="sample_x")
    assert failed.status is Status.FAILED and failed.exc_type == "AssertionError"


@pytest.mark.parametrize("exit_call", ["import sys\nsys.exit(0)", "import os\nos._exit(0)"])
def test_exiting_zero_while_a_module_script_imports_the_program_fails(
    run: Run, exit_call: str
) -> None:
    result = run(WRONG + exit_call, MODULE_SCRIPT, module="sample_x")
    assert result.status is Status.FAILED


# Scripts that end with unittest.main() (mitmproxy's visible tests): it exits 0 when all
# passed, as `python file.py` does; the harness reads unittest's results, not the exit.
UNITTEST_SCRIPT = (
    "import unittest\n"
    "class T(unittest.TestCase):\n"
    "    def test_f(self):\n"
    "        self.assertEqual(f(), 2)\n"
    "unittest.main()\n"
)


def test_a_script_ending_in_unittest_main_passes_and_fails_honestly(run: Run) -> None:
    passed = run("def f():\n    return 2\n", UNITTEST_SCRIPT)
    assert passed.status is Status.PASSED, (passed.message, passed.stderr[-500:])
    assert passed.tests == {"collected": 1, "passed": 1}
    failed = run(WRONG, UNITTEST_SCRIPT)
    assert failed.status is Status.FAILED and failed.exc_type == "TestFailure"
    empty = run("x = 1", "import unittest\nunittest.main()")
    assert empty.status is Status.FAILED and empty.exc_type == "NoTests"


@pytest.mark.parametrize(
    "attack",
    [
        "import unittest\nunittest.TestResult.addFailure = lambda *a: None",
        "import unittest\nunittest.TextTestResult.addFailure = lambda *a: None",
        "import unittest\nunittest.TestProgram.runTests = lambda self: None",
        "class unittest:\n    @staticmethod\n    def main(**k):\n        return None",
        "import sys\nsys.exit(0)",
    ],
)
def test_a_wrong_program_cannot_fake_unittest_mains_verdict(run: Run, attack: str) -> None:
    result = run(WRONG + attack, UNITTEST_SCRIPT)
    assert result.status is Status.FAILED, result


def test_printing_fake_pass_markers_fails(run: Run) -> None:
    fake = '{"status": "passed", "nonce": "0" }'
    program = WRONG + f"print('PASSED')\nprint('1 passed in 0.01s')\nprint({fake!r})"
    result = run(program, "assert f() == 2")
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_writing_fake_records_to_every_fd_fails(run: Run) -> None:
    program = (
        WRONG
        + """
import os
for fd in os.listdir('/proc/self/fd'):
    try:
        os.write(int(fd), b'{"status": "passed", "nonce": "guess"}\\n')
    except OSError:
        pass
"""
    )
    result = run(program, "assert f() == 2")
    assert result.status is Status.FAILED


@pytest.mark.parametrize(
    "record",
    [
        "'[' * 50000",  # deeper than a JSON decoder's recursion, within a pipe's buffer
        "'{\"a\":' * 10000",
        "'\\ud800' * 1000",  # lone surrogates
        '\'{"status": "passed", "nonce": 1, "tests": {"x": [1]}}\'',
    ],
    ids=["list-bomb", "object-bomb", "surrogates", "odd-types"],
)
def test_a_malformed_record_on_any_fd_fails_and_stays_in_the_denominator(
    run: Run, record: str
) -> None:
    """Whatever reaches the proof channel is untrusted data: decoding it must not raise in the
    host (a harness error would take the sample out of the denominator); it is a failure."""
    program = (
        WRONG
        + f"""
import os
data = ({record}).encode('utf-8', 'surrogatepass') + b'\\n'
for fd in os.listdir('/proc/self/fd'):
    try:
        os.write(int(fd), data)
    except OSError:
        pass
"""
    )
    result = run(program, "assert f() == 2")
    assert result.status is Status.FAILED, result
    assert result.status.is_scored


def test_replacing_assertion_error_fails(run: Run) -> None:
    program = WRONG + "import builtins\nbuiltins.AssertionError = type('Nope', (Exception,), {})"
    result = run(program, "assert f() == 2")
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"  # the grader's own, which the program never saw


def test_replacing_builtin_import_fails(run: Run) -> None:
    program = WRONG + (
        "import builtins\n_real = builtins.__import__\n"
        "builtins.__import__ = lambda *a, **k: _real(*a, **k)"
    )
    result = run(program, "import unittest\nassert f() == 2")
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_patching_every_testcase_assert_method_fails(run: Run) -> None:
    program = (
        WRONG
        + """
import unittest
for name in dir(unittest.TestCase):
    if name.startswith('assert'):
        setattr(unittest.TestCase, name, lambda self, *a, **k: None)
"""
    )
    result = run(program, UNITTEST_TEST, kind=TestKind.PYTEST)
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_patching_failure_exception_fails(run: Run) -> None:
    program = (
        WRONG
        + """
import unittest
class Harmless(Exception):
    pass
unittest.TestCase.failureException = Harmless
"""
    )
    result = run(program, UNITTEST_TEST, kind=TestKind.PYTEST)
    assert result.status is Status.FAILED


def test_patching_pytest_runtest_fails(run: Run) -> None:
    program = WRONG + "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None"
    test = "from sample_x import f\ndef test_f():\n    assert f() == 2\n"
    result = run(program, test, kind=TestKind.PYTEST)
    assert result.status is Status.FAILED


def test_skipping_itself_during_the_test_fails(run: Run) -> None:
    program = "import pytest\ndef f():\n    pytest.skip('not today')\n"
    test = "from sample_x import f\ndef test_f():\n    assert f() == 2\n"
    result = run(program, test, kind=TestKind.PYTEST)
    assert result.status is Status.FAILED
    assert result.exc_type == "Skipped"


def test_pytest_exit_at_import_fails(run: Run) -> None:
    program = "import pytest\npytest.exit('done', returncode=0)\ndef f():\n    return 2\n"
    test = "from sample_x import f\ndef test_f():\n    assert f() == 2\n"
    result = run(program, test, kind=TestKind.PYTEST)
    assert result.status is Status.FAILED


def test_atexit_hook_rewriting_the_outcome_fails(run: Run) -> None:
    program = (
        WRONG
        + """
import atexit, os, sys
def lie():
    print('PASSED')
    os.write(3, b'{"status": "passed"}\\n')
    os._exit(0)
atexit.register(lie)
"""
    )
    result = run(program, "assert f() == 2")
    assert result.status is Status.FAILED
    assert "PASSED" not in result.stdout


def test_patching_os_exit_and_write_does_not_reroute_the_proof(run: Run) -> None:
    program = (
        WRONG + "import os\nos._exit = lambda code: None\nos.write = lambda fd, data: len(data)"
    )
    result = run(program, "assert f() == 2")
    assert result.status is Status.FAILED


def test_ignoring_sigterm_still_times_out(run: Run) -> None:
    program = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)"
    result = run(program, "assert True", limits=FAST)
    assert result.status is Status.TIMEOUT


def test_daemon_child_does_not_outlive_the_run(run: Run) -> None:
    program = f"""
import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv('/bin/sleep', ['sleep', '3600', '{HOSTILE_MARK}'])
    os._exit(0)
"""
    result = run(program, "assert True")
    assert result.status is Status.PASSED  # the program itself is fine; its daemon must die


def test_deleting_its_own_test_file_is_refused(run: Run) -> None:
    program = (
        WRONG
        + """
import os, glob
for path in glob.glob('test_*.py') + glob.glob('*.py'):
    try:
        os.remove(path)
    except OSError:
        pass
"""
    )
    test = "from sample_x import f\ndef test_f():\n    assert f() == 2\n"
    result = run(program, test, kind=TestKind.PYTEST)
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_recursion_bomb_fails(run: Run) -> None:
    result = run("def f():\n    return f()\nf()", "assert True")
    assert result.status is Status.FAILED
    assert result.exc_type == "RecursionError"


def test_c_stack_overflow_fails(run: Run) -> None:
    program = "import sys\nsys.setrecursionlimit(10**8)\ndef f(n):\n    return f(n + 1)\nf(0)"
    result = run(program, "assert True", limits=FAST)
    assert result.status in NOT_PASSED


def test_filling_the_disk_hits_the_scratch_limit(run: Run) -> None:
    program = """
chunk = b'x' * (1 << 20)
i = 0
while True:
    with open('fill-%d' % i, 'wb') as fh:
        fh.write(chunk * 4)
    i += 1
"""
    result = run(program, "assert True", limits=Limits(wall_seconds=20, tmpfs_bytes=16 << 20))
    assert result.status is Status.RESOURCE_LIMIT


def test_threads_still_running_after_the_test_do_not_hang_it(run: Run) -> None:
    program = """
import threading, time
def spin():
    while True:
        time.sleep(0.01)
threading.Thread(target=spin).start()
def f():
    return 2
"""
    result = run(program, "assert f() == 2", limits=Limits(wall_seconds=15))
    assert result.status is Status.PASSED
    assert result.seconds < 10


def test_raising_its_rlimits_is_refused(run: Run) -> None:
    program = "import resource\nresource.setrlimit(resource.RLIMIT_NPROC, (10**6, 10**6))"
    result = run(program, "assert True")
    assert result.status is Status.FAILED


def test_becoming_root_is_refused(run: Run, isolation_level: str) -> None:
    if isolation_level != "full":
        pytest.skip("uid drop needs root")
    result = run("import os\nos.setuid(0)", "assert True")
    assert result.status is Status.FAILED
    assert result.exc_type == "PermissionError"


def test_syntax_error_is_its_own_outcome(run: Run) -> None:
    result = run("def f(:\n    return 1", "assert f() == 1")
    assert result.status is Status.SYNTAX_ERROR


def test_many_hostile_runs_in_parallel_keep_the_harness_alive(run: Run) -> None:
    results = []
    programs = ["import os\nos._exit(0)", "while True:\n    pass", "x = 1"]

    def go(program: str) -> None:
        results.append(run(program, "assert x == 1", limits=FAST))

    threads = [threading.Thread(target=go, args=(p,)) for p in programs * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(r.status.value for r in results)
    assert statuses.count("passed") == 2, statuses
    assert os.getpid() > 0


def test_patching_unittest_it_imported_itself_fails_in_script_mode(run: Run) -> None:
    program = (
        WRONG
        + "import unittest\nunittest.TestCase.assertEqual = lambda self, a, b, msg=None: None\n"
    )
    result = run(program, "import unittest\nunittest.TestCase().assertEqual(f(), 2)")
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"
