"""Hostile programs against trusted grading (the default): the test and the verdict live in a
grader process the program cannot reach. Each attack runs on every path (full and userns
isolation, cold and warm); the `run` fixture checks the host and the harness afterwards.

Every program here is wrong: it passes only if it defeats the grader."""

from __future__ import annotations

import pytest

from pinbench.core.outcome import Limits, Status
from pinbench.core.tests import TestKind

from .conftest import Run

pytestmark = pytest.mark.integration

WRONG = "def f(*args):\n    return 1\n"
PYTEST_F = "from sample_x import f\ndef test_f():\n    assert f() == 2\n"
SECRET = "k8Zq-unguessable-31"

# The program's side of the channel, as the program can find it in its own process.
FIND_ENDPOINT = """
import gc, json, struct
def endpoint():
    for o in gc.get_objects():
        if type(o).__name__ == 'Endpoint' and hasattr(o, 'sock'):
            return o
def raw(data):
    ep = endpoint()
    ep.sock.sendall(struct.pack('>I', len(data)) + data)
def pending_id():
    import sys
    frame = sys._getframe()
    while frame is not None:
        if 'rid' in frame.f_locals and frame.f_code.co_name == 'serve_one':
            return frame.f_locals['rid']
        frame = frame.f_back
"""


def _pytest(run: Run, program: str, test: str = PYTEST_F, **kw: object):
    return run(program, test, kind=TestKind.PYTEST, **kw)


def test_searching_everywhere_for_the_hidden_test_finds_nothing(run: Run) -> None:
    """The test's text is in no memory, file, descriptor or /proc entry the program can read:
    it would pass by returning the expected value it found there."""
    program = r"""
import gc, os, re
PATTERN = re.compile(rb"[a-zA-Z0-9]{4}-unguess" + rb"able-[0-9]+")
def scan(data):
    m = PATTERN.search(data)
    return m.group(0).decode() if m else None
def walk(root):
    for base, dirs, files in os.walk(root):
        for name in files:
            try:
                with open(os.path.join(base, name), 'rb') as fh:
                    yield fh.read(1 << 20)
            except Exception:
                pass
def sources():
    for o in gc.get_objects():
        if isinstance(o, (str, bytes)):
            yield o.encode() if isinstance(o, str) else o
        elif isinstance(o, dict):
            for v in o.values():
                if isinstance(v, str):
                    yield v.encode()
    for root in ('/tmp', '/var/tmp', '/dev/shm'):
        yield from walk(root)
    for pid in [p for p in os.listdir('/proc') if p.isdigit()]:
        for entry in ('environ', 'cmdline'):
            try:
                yield open('/proc/%s/%s' % (pid, entry), 'rb').read()
            except Exception:
                pass
        try:
            yield from walk('/proc/%s/root/tmp' % pid)
        except Exception:
            pass
        try:
            for fd in os.listdir('/proc/%s/fd' % pid):
                try:
                    yield os.pread(os.open('/proc/%s/fd/%s' % (pid, fd), os.O_RDONLY), 1 << 20, 0)
                except Exception:
                    pass
        except Exception:
            pass
    for fd in range(3, 64):
        try:
            yield os.pread(fd, 1 << 20, 0)
        except Exception:
            pass
    try:  # our own heap, as a whole
        mem = open('/proc/self/mem', 'rb')
        for line in open('/proc/self/maps'):
            span, perms = line.split()[:2]
            if 'r' not in perms:
                continue
            start, end = (int(x, 16) for x in span.split('-'))
            if end - start > (64 << 20):
                continue
            try:
                mem.seek(start)
                yield mem.read(end - start)
            except Exception:
                pass
    except Exception:
        pass
def f():
    for data in sources():
        found = scan(data)
        if found:
            return found
    return 'nothing'
"""
    test = f"from sample_x import f\ndef test_f():\n    assert f() == {SECRET!r}\n"
    result = _pytest(run, program, test, limits=Limits(wall_seconds=60, cpu_seconds=60))
    assert result.status is Status.FAILED, result
    assert "'nothing'" in result.message  # it looked everywhere and found nothing


def test_the_script_test_is_not_appended_to_the_program(run: Run) -> None:
    program = (
        "import sys\ndef f():\n    src = open(__file__).read()\n"
        "    return ('unguess' + 'able') in src and 'FOUND' or 'nothing'\n"
    )
    result = run(program, f"assert f() == 'FOUND', {SECRET!r}")
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_forged_records_on_every_descriptor_fail(run: Run) -> None:
    program = r"""
import json, os
record = json.dumps({'status': 'passed', 'nonce': 'x' * 32, 'tests': {'collected': 1, 'passed': 1}})
for fd in range(3, 256):
    try:
        os.write(fd, (record + '\n').encode())
    except OSError:
        pass
for pid in [p for p in os.listdir('/proc') if p.isdigit()]:
    for fd in ('3', '4', '5'):
        try:
            h = os.open('/proc/%s/fd/%s' % (pid, fd), os.O_WRONLY)
            os.write(h, (record + '\n').encode())
        except OSError:
            pass
def f():
    return 1
"""
    result = _pytest(run, program)
    assert result.status is Status.FAILED
    # the grader's verdict (its channel got the forgery too); none reached the host
    assert result.exc_type in {"AssertionError", "MalformedChannel"}


def test_walking_frames_and_gc_for_the_runners_record_fails(run: Run) -> None:
    program = r"""
import gc, sys
def f():
    frame = sys._getframe()
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for value in list(scope.values()):
                if isinstance(value, dict) and 'status' in value:
                    value['status'] = 'passed'
        frame = frame.f_back
    for o in gc.get_objects():
        if isinstance(o, dict) and o.get('status') in ('harness_error', 'failed'):
            o['status'] = 'passed'
            o.pop('exc_type', None)
    return 1
"""
    result = _pytest(run, program)
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_killing_the_grader_fails(run: Run) -> None:
    program = (
        "import os, signal\ndef f():\n    os.kill(os.getppid(), signal.SIGKILL)\n    return 2\n"
    )
    result = _pytest(run, program)
    assert result.status is Status.FAILED


def test_stopping_the_grader_times_out(run: Run) -> None:
    program = (
        "import os, signal\ndef f():\n    os.kill(os.getppid(), signal.SIGSTOP)\n    return 2\n"
    )
    result = _pytest(run, program, limits=Limits(wall_seconds=5, cpu_seconds=5))
    assert result.status in {Status.FAILED, Status.TIMEOUT}


def test_reading_the_graders_memory_and_descriptors_is_refused(run: Run) -> None:
    program = r"""
import os
def f():
    parent = os.getppid()
    got = []
    for path in ('/proc/%d/mem' % parent, '/proc/%d/environ' % parent, '/proc/1/mem',
                 '/proc/%d/root/tmp/pinbench-grader/pytest.ini' % parent):
        try:
            open(path, 'rb').read(16)
            got.append(path)
        except OSError:
            pass
    for pid in (parent, 1):
        try:
            entries = os.listdir('/proc/%d/fd' % pid)
        except OSError:
            continue
        for fd in entries:
            try:
                os.close(os.open('/proc/%d/fd/%s' % (pid, fd), os.O_RDONLY))
                got.append('/proc/%d/fd/%s' % (pid, fd))
            except OSError:
                pass
    return got
"""
    result = _pytest(run, program, "from sample_x import f\ndef test_f():\n    assert f() == 2\n")
    assert result.status is Status.FAILED
    assert "assert [] == 2" in result.message  # every path refused


def test_an_object_that_equals_everything_fails(run: Run) -> None:
    program = (
        "class Yes:\n    def __eq__(self, other):\n        return True\n"
        "    __ne__ = lambda self, other: False\n    __bool__ = lambda self: True\n"
        "    __hash__ = lambda self: 0\n"
        "def f():\n    return Yes()\n"
    )
    assert _pytest(run, program).status is Status.FAILED
    truthy = _pytest(run, program, "from sample_x import f\ndef test_f():\n    assert f()\n")
    assert truthy.status is Status.FAILED
    assert truthy.exc_type == "TypeError"  # a program object has no truth value for the grader


def test_an_int_subclass_that_equals_everything_fails(run: Run) -> None:
    program = "class Two(int):\n    def __eq__(self, o):\n        return True\ndef f():\n    return Two(1)\n"
    assert _pytest(run, program).status is Status.FAILED


def test_ordering_and_membership_answered_by_the_program_fail(run: Run) -> None:
    program = (
        "class Any:\n    __lt__ = __gt__ = __le__ = __ge__ = lambda s, o: True\n"
        "    __contains__ = lambda s, o: True\n"
        "def f():\n    return Any()\n"
    )
    test = "from sample_x import f\ndef test_f():\n    r = f()\n    assert 5 in r and r > 1\n"
    assert _pytest(run, program, test).status is Status.FAILED


def test_a_nesting_bomb_on_the_channel_fails_as_malformed(run: Run) -> None:
    program = FIND_ENDPOINT + (
        "def f():\n    raw(b'{\"re\": 1, \"ok\": ' + b'[' * 100000 + b']' * 100000 + b'}')\n"
        "    return 2\n"
    )
    result = _pytest(run, program)
    assert result.status is Status.FAILED
    assert result.exc_type == "MalformedChannel"


def test_an_oversized_frame_fails_as_malformed(run: Run) -> None:
    program = FIND_ENDPOINT + (
        "def f():\n    endpoint().sock.sendall(struct.pack('>I', 0xFFFFFFFF))\n    return 2\n"
    )
    result = _pytest(run, program)
    assert result.status is Status.FAILED
    assert result.exc_type == "MalformedChannel"


@pytest.mark.parametrize(
    "value",
    [
        '["nd", "|O8", [1], "AAAAAAAAAAA="]',  # an object array from raw bytes
        '["nd", "<f8", [4], "AAAAAAAAAAA="]',  # bytes of the wrong size
        '["pickle", "gASVAAAAAAAAAAB9lC4="]',  # a tag the codec has not got
        '["R", 999999]',  # a grader object never handed out
        '["type", "eval"]',  # a builtin that is no type
        '["E", [["_pytest.outcomes", "Skipped"]], "x", null]',  # an error is no value
        '{"status": "passed"}',  # not a tagged value
    ],
)
def test_forged_values_fail(run: Run, value: str) -> None:
    program = FIND_ENDPOINT + (
        "def f():\n"
        f'    raw(b\'{{"re": %d, "ok": {value}}}\' % pending_id())\n'
        "    import time; time.sleep(30)\n"
    )
    # The program answers the grader's pending call itself, with the id it finds in the
    # frames of its own side of the channel.
    result = _pytest(run, program, limits=Limits(wall_seconds=10, cpu_seconds=10))
    assert result.status in {Status.FAILED, Status.TIMEOUT}, result


def test_a_well_formed_forged_answer_is_only_the_programs_answer(run: Run) -> None:
    """Writing the grader's pending answer by hand gives it one inert value, as returning it
    would: the assertion is still the grader's."""
    program = FIND_ENDPOINT + (
        "import threading, time\n"
        "def f():\n"
        "    raw(json.dumps({'re': pending_id(), 'ok': ['T', [True, 'passed']]}).encode())\n"
        "    time.sleep(30)\n"
    )
    result = _pytest(run, program, limits=Limits(wall_seconds=10, cpu_seconds=10))
    assert result.status is Status.FAILED
    assert "(True, 'passed') == 2" in result.message


def test_claiming_the_test_was_skipped_fails(run: Run) -> None:
    unittest_test = (
        "import unittest\nfrom sample_x import f\nclass T(unittest.TestCase):\n"
        "    def test_f(self):\n        self.assertEqual(f(), 2)\n"
        "unittest.main()\n"
    )
    program = "import unittest\ndef f():\n    raise unittest.SkipTest('not today')\n"
    result = run(program, unittest_test, kind=TestKind.SCRIPT, module="sample_x")
    assert result.status is Status.FAILED
    xfail = "import pytest\ndef f():\n    pytest.xfail('expected')\n"
    assert _pytest(run, xfail).status is Status.FAILED
    exit_ = "import pytest\ndef f():\n    pytest.exit('done', returncode=0)\n"
    assert _pytest(run, exit_).status is Status.FAILED


def test_configuration_written_where_pytest_would_look_fails(run: Run) -> None:
    program = r"""
import os
for d in ('/tmp', os.getcwd()):
    for name, text in (('pytest.ini', '[pytest]\naddopts = -p no:python --co\n'),
                       ('conftest.py', 'import pytest\n@pytest.hookimpl\ndef pytest_runtest_call(item):\n    pass\n'),
                       ('tox.ini', '[pytest]\npython_functions = nothing\n'),
                       ('unittest.py', 'raise SystemExit(0)\n'), ('json.py', 'raise SystemExit(0)\n')):
        try:
            open(os.path.join(d, name), 'w').write(text)
        except OSError:
            pass
def f():
    return 1
"""
    result = _pytest(run, program)
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_a_shadowed_builtin_does_not_reach_a_script_test(run: Run) -> None:
    program = (
        WRONG + "def all(items):\n    return True\n"
        "def isinstance(a, b):\n    return True\nAssertionError = Warning\n"
        "def len(x):\n    return 2\n"
    )
    test = "assert all([f() == 2])\nassert isinstance(f(), str)\nassert len([]) == 2\n"
    result = run(program, test)
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_only_the_starters_own_builtins_reach_a_script_test(run: Run) -> None:
    """GitChameleon 2.0's starters define `eval(app, fn, x)`, which the test appended to the
    program calls: a builtin the problem's starter redefines is the program's for the test;
    any other the program shadows still never reaches it."""
    program = "def eval(a, b):\n    return a + b\ndef all(items):\n    return True\n"
    result = run(program, "assert eval(2, 3) == 5\n", program_builtins=("eval",))
    assert result.status is Status.PASSED, result
    result = run(
        program, "assert eval(2, 3) == 5\nassert all([False])\n", program_builtins=("eval",)
    )
    assert result.status is Status.FAILED and result.exc_type == "AssertionError", result
    result = run(program, "assert eval(2, 3) == 5\n")  # not the starter's: the builtin
    assert result.status is Status.FAILED and result.exc_type == "TypeError", result


def test_a_script_tests_globals_reach_the_program_only_under_shared_state(run: Run) -> None:
    """A test appended to the program shares the module's globals with it in one script
    (GitChameleon's row scripts set `filename = ...` for the program's function to read).
    Under shared state, the fallback such an item's reference needs, what the test's top level
    binds, rebinds or deletes is what the program's code sees. Not by default: a wrong program
    would read the test's expected value and return it."""
    test = (
        "width = 3\nheight = [4]\nassert area() == 12\nwidth = 5\nassert area() == 20\n"
        "del height\ntry:\n    area()\nexcept NameError:\n    pass\n"
        "else:\n    raise AssertionError('height is gone')\n"
    )
    result = run("def area():\n    return width * height[0]\n", test, shares_state=True)
    assert result.status is Status.PASSED, result
    result = run("def area():\n    return width + height[0]\n", test, shares_state=True)
    assert result.status is Status.FAILED and result.exc_type == "AssertionError", result
    peeking = "def f():\n    return globals().get('expected', 0)\n"
    result = run(peeking, "expected = 42\nassert f() == expected\n")
    assert result.status is Status.FAILED and result.exc_type == "AssertionError", result


def test_the_programs_str_and_int_valued_objects_compare_by_their_value(run: Run) -> None:
    """Not an attack: a member of the program's str- or int-valued enum (Django's
    `TextChoices`) equals its value, as in one process, and keeps its other attributes and its
    identity; sent back, it is the program's own member again. The value is read by the
    builtin type itself: an `__eq__` of the program's never answers the grader."""
    program = (
        "import enum\nclass Color(str, enum.Enum):\n    RED = 'RED'\n    GREEN = 'GREEN'\n"
        "    @property\n    def label(self):\n        return self.value.title()\n"
        "class Level(enum.IntEnum):\n    LOW = 1\n    HIGH = 9\n"
        "def pick(name):\n    return Color[name]\n"
        "def is_red(c):\n    return c is Color.RED\n"
    )
    test = (
        "from sample_x import Color, Level, pick, is_red\n"
        "def test_members():\n"
        "    assert pick('RED') == 'RED' and Color.GREEN == 'GREEN' and pick('RED') is Color.RED\n"
        "    assert pick('RED').label == 'Red' and pick('RED').upper() == 'RED'\n"
        "    assert {pick('RED'): 1}['RED'] == 1 and isinstance(pick('RED'), str)\n"
        "    assert isinstance(pick('RED'), Color) and is_red(pick('RED'))\n"
        "    assert Level.HIGH == 9 and Level.HIGH > Level.LOW and Level.LOW + 1 == 2\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.PASSED, result
    lying = program.replace(
        "class Color(str, enum.Enum):",
        "class Color(str, enum.Enum):\n    __eq__ = lambda s, o: True",
    ).replace("RED = 'RED'", "RED = 'BLUE'")
    result = _pytest(run, lying, test)
    assert result.status is Status.FAILED and result.exc_type == "AssertionError", result


def test_a_library_the_program_imports_is_the_graders_own(run: Run) -> None:
    """`json` here is imported by the program and then patched by it; the test uses the name
    without importing it, and gets the grader's genuine module."""
    program = "import json\njson.dumps = lambda *a, **k: '2'\n" + WRONG
    result = run(program, "assert json.dumps(f()) == '2'")
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_the_mocks_api_is_the_tests(run: Run) -> None:
    program = r"""
def f(callback):
    for name in ('assert_called_once_with', 'assert_called_with', 'reset_mock', 'call_count',
                 'called', 'return_value', '_mock_children', '__class__', '__dict__'):
        try:
            setattr(callback, name, lambda *a, **k: None)
        except Exception:
            pass
    return 1
"""
    test = (
        "from unittest import mock\nfrom sample_x import f\n"
        "def test_f():\n    m = mock.MagicMock()\n    f(m)\n    m.assert_called_once_with(5)\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.FAILED
    assert result.exc_type == "AssertionError"


def test_a_callbacks_internals_are_out_of_reach(run: Run) -> None:
    program = (
        FIND_ENDPOINT
        + r"""
def f(callback):
    ep = endpoint()
    reached = []
    for name in ('__globals__', '__code__', '__closure__', 'gi_frame', 'f_globals', '__self__',
                 '__class__', '__dict__', '__module__', '_pb_ep'):
        try:
            ep.request('getattr', callback, name)
            reached.append(name)
        except Exception:
            pass
    try:
        gen = callback()  # a generator function of the test's: its frame
        ep.request('getattr', gen, 'gi_frame')
        reached.append('gi_frame of a generator')
    except Exception:
        pass
    return reached
"""
    )
    test = (
        "from sample_x import f\nSECRET = 42\n"
        "def helper():\n    yield SECRET\n"
        "def test_f():\n    assert f(helper) == 2\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.FAILED
    assert "assert [] == 2" in result.message


def test_a_patch_of_a_library_reaches_the_programs_process(run: Run) -> None:
    """Not an attack: what trusted grading must still do. The test patches `os.getcwd` (a
    library function the program calls), and the program sees the test's mock."""
    program = "import os\ndef f():\n    return os.getcwd()\n"
    test = (
        "from unittest import mock\nfrom sample_x import f\n"
        "def test_f(monkeypatch):\n"
        "    with mock.patch('os.getcwd', return_value='/patched'):\n"
        "        assert f() == '/patched'\n"
        "    monkeypatch.setattr('os.getcwd', lambda: '/monkey')\n"
        "    assert f() == '/monkey'\n"
        "    monkeypatch.setenv('PINBENCH_PROBE', 'yes')\n"
        "def test_after():\n    import os\n    assert f() == os.getcwd()\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.PASSED, result
    assert result.tests["passed"] == 2


def test_prints_reach_capsys_and_program_errors_keep_their_types(run: Run) -> None:
    program = (
        "import json\nclass Custom(KeyError):\n    pass\n"
        "def f(x):\n    print('hello', x)\n    if x < 0:\n        raise Custom('negative')\n"
        "    return json.loads('[1, 2.5, {\"a\": null}]')\n"
    )
    test = (
        "import pytest\nimport sample_x\nfrom sample_x import f\n"
        "def test_f(capsys):\n    assert f(3) == [1, 2.5, {'a': None}]\n"
        "    assert capsys.readouterr().out == 'hello 3\\n'\n"
        "    with pytest.raises(KeyError):\n        f(-1)\n"
        "    with pytest.raises(sample_x.Custom):\n        f(-1)\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.PASSED, result


def test_warnings_cross_both_ways_as_in_one_process(run: Run) -> None:
    """Not an attack: the test's warnings filters reach the program (a deprecation it turns
    into an error raises in the program), and the program's warnings reach the test
    (`pytest.warns`, and pytest's own recorder)."""
    program = (
        "import warnings\n"
        "def old():\n    warnings.warn('old() is deprecated', DeprecationWarning)\n    return 1\n"
    )
    test = (
        "import warnings\nimport pytest\nfrom sample_x import old\n"
        "def test_warns():\n"
        "    with pytest.warns(DeprecationWarning, match='deprecated'):\n"
        "        assert old() == 1\n"
        "def test_error():\n"
        "    with warnings.catch_warnings():\n"
        "        warnings.simplefilter('error', DeprecationWarning)\n"
        "        with pytest.raises(DeprecationWarning):\n"
        "            old()\n"
        "    assert old() == 1  # the filter is back to what it was\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.PASSED, result
    assert result.tests["passed"] == 2


def test_callbacks_print_to_the_programs_streams_and_exceptions_keep_their_data(
    run: Run,
) -> None:
    """Not an attack: a test's callback that prints while the program captures its stdout
    (click's CliRunner does) prints into that capture; SystemExit(3) raised by the callback is
    SystemExit with code 3 for the program; a standard-library exception is the grader's own
    class, with its arguments."""
    program = (
        "import contextlib, io, json\n"
        "def capture(callback):\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        try:\n            callback()\n"
        "        except SystemExit as exc:\n            return out.getvalue(), exc.code\n"
        "    return out.getvalue(), None\n"
        "def parse(text):\n    return json.loads(text)\n"
        "def missing():\n    return {}['k']\n"
    )
    test = (
        "import json\nimport pytest\nfrom sample_x import capture, missing, parse\n"
        "def shout():\n    print('hello from the test')\n    raise SystemExit(3)\n"
        "def test_f(capsys):\n"
        "    assert capture(shout) == ('hello from the test\\n', 3)\n"
        "    assert capsys.readouterr().out == ''\n"
        "    with pytest.raises(json.JSONDecodeError):\n        parse('{')\n"
        "    with pytest.raises(KeyError) as info:\n        missing()\n"
        "    assert info.value.args == ('k',)\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.PASSED, result


def test_a_program_exception_cannot_pose_as_the_graders_exit(run: Run) -> None:
    """The program's SystemExit, or an exception whose arguments claim a code, is never the
    grader's own SystemExit: the test fails, it does not end early as passed."""
    program = "def f():\n    raise SystemExit(0)\n"
    test = "from sample_x import f\ndef test_f():\n    f()\n    assert False\n"
    result = _pytest(run, program, test)
    assert result.status is Status.FAILED, result


def test_operators_on_the_other_sides_objects_work_both_ways(run: Run) -> None:
    """Not an attack: arithmetic, shifts (`>>` and its reflection, which share a prefix) and
    `in` on a program object in the test, and on a test's object in the program."""
    box = (
        "    def __init__(self, v):\n        self.v = v\n"
        "    def __add__(self, o):\n        return self.v + o\n"
        "    def __radd__(self, o):\n        return o + self.v\n"
        "    def __rshift__(self, o):\n        return self.v >> o\n"
        "    def __rrshift__(self, o):\n        return o >> self.v\n"
        "    def __contains__(self, o):\n        return o == self.v\n"
    )
    program = (
        f"class Box:\n{box}def make(v):\n    return Box(v)\n"
        "def use(x):\n    return [x + 1, 1 + x, x >> 1, 16 >> x, 3 in x]\n"
    )
    test = (
        f"from sample_x import make, use\nclass Num:\n{box}"
        "def test_ops():\n    assert use(Num(3)) == [4, 4, 1, 2, True]\n"
        "    b = make(4)\n"
        "    assert b + 1 == 5 and 1 + b == 5 and (b >> 1) == 2 and (32 >> b) == 2\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.PASSED, result


ASYNC_PROGRAM = """
import asyncio
class Counter:
    def __init__(self, n):
        self.n = n
    def __aiter__(self):
        self.i = 0
        return self
    async def __anext__(self):
        if self.i >= self.n:
            raise StopAsyncIteration
        self.i += 1
        await asyncio.sleep(0.001)
        return self.i
class Session:
    opened = 0
    async def __aenter__(self):
        Session.opened += 1
        return self
    async def __aexit__(self, *exc):
        Session.opened -= 1
        return False
    async def fetch(self, key):
        await asyncio.sleep(0.001)
        return {"key": key, "open": Session.opened}
async def twice(callback, x):
    return await callback(x) + await callback(x)
async def waits_on_the_test(callback):
    return await callback()
async def fails():
    raise ValueError("bad key")
async def numbers(n):
    for i in range(n):
        yield i * %s
def plain():
    return Counter(1)
"""
ASYNC_TEST = """
import asyncio, inspect
from sample_x import Counter, Session, twice, waits_on_the_test, fails, numbers, plain
async def double(x):
    return 2 * x
async def sleeps():
    await asyncio.sleep(0.001)
async def main():
    assert [i async for i in Counter(3)] == [1, 2, 3]
    async with Session() as s:
        assert await s.fetch("a") == {"key": "a", "open": 1}
    assert await s.fetch("b") == {"key": "b", "open": 0}
    assert await twice(double, 5) == 20
    assert [i async for i in numbers(3)] == [0, 1, 2]
    assert not inspect.isawaitable(plain())
    try:
        await fails()
    except ValueError as exc:
        assert "bad key" in str(exc)
    else:
        raise AssertionError("no error")
    try:  # the test's loop waits while the program runs: a future of ours cannot complete
        await waits_on_the_test(sleeps)
    except RuntimeError as exc:
        assert "event loop" in str(exc)
    else:
        raise AssertionError("no error")
def test_async():
    asyncio.run(main())
"""


def test_the_programs_coroutines_are_awaited_and_iterated_as_in_one_process(run: Run) -> None:
    """Not an attack: `await`, `async for` and `async with` of the program's objects in the
    test (run to their end in the program's process, on its own event loop), the test's
    coroutine awaited by the program's, and the program's errors; wrong values still fail."""
    result = _pytest(run, ASYNC_PROGRAM % "1", ASYNC_TEST)
    assert result.status is Status.PASSED, result
    result = _pytest(run, ASYNC_PROGRAM % "2", ASYNC_TEST)
    assert result.status is Status.FAILED and "AssertionError" in (result.exc_type or ""), result


def test_signatures_of_the_programs_functions_are_its_own(run: Run) -> None:
    """Not an attack: `inspect.signature` of a program's function (GitChameleon 2.0's pytest
    hook problems) gives its parameters' names, kinds, defaults and annotations, an installed
    package's or the standard library's class being the grader's own; a wrong one fails."""
    program = (
        "import pathlib\n"
        "def hook(collection_path: pathlib.Path, *args, config=None, **kw) -> bool:\n"
        "    return True\n"
        "class Item:\n    def __init__(self, *, extra, **kwargs):\n        self.extra = extra\n"
    )
    test = (
        "import inspect, pathlib\nfrom sample_x import hook, Item\n"
        "P = inspect.Parameter\n"
        "def test_signature():\n"
        "    sig = inspect.signature(hook)\n"
        "    params = list(sig.parameters.values())\n"
        "    assert params[0].name == 'collection_path'\n"
        "    assert params[0].annotation is pathlib.Path\n"
        "    kinds = [P.POSITIONAL_OR_KEYWORD, P.VAR_POSITIONAL, P.KEYWORD_ONLY, P.VAR_KEYWORD]\n"
        "    assert [p.kind for p in params] == kinds\n"
        "    assert params[2].default is None and sig.return_annotation is bool\n"
        "    init = inspect.signature(Item.__init__).parameters.values()\n"
        "    assert any(p.kind == p.VAR_KEYWORD for p in init)\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.PASSED, result
    result = _pytest(
        run, program.replace("collection_path: pathlib.Path", "collection_path: str"), test
    )
    assert result.status is Status.FAILED and result.exc_type == "AssertionError", result


def test_the_tests_values_keep_their_identity_and_the_programs_changes(run: Run) -> None:
    """Not an attack: a list or dict the test passes and the program hands back is the test's
    own object again (`is` holds; a mock called with it was called with it), and what the
    program did to it during the call is done to the test's object, as in one process."""
    program = (
        "def same(x):\n    return x\n"
        "def call(cb, x):\n    return cb(x)\n"
        "def grow(x):\n    x.append(3)\n    return x\n"
        "def fill(x, table):\n    x[0] = 9\n    table['new'] = 1\n    raise KeyError('k')\n"
    )
    test = (
        "import pytest\nfrom unittest import mock\nfrom sample_x import same, call, grow, fill\n"
        "def test_f():\n"
        "    data, table = [1, [2]], {'k': [1]}\n"
        "    assert same(data) is data and same(table) is table\n"
        "    assert same((data, table))[0] is data\n"
        "    m = mock.Mock(return_value=7)\n"
        "    assert call(m, data) == 7 and m.call_args[0][0] is data\n"
        "    assert grow(data) is data and data == [1, [2], 3]\n"
        "    with pytest.raises(KeyError):\n"
        "        fill(data, table)\n"
        "    assert data == [9, [2], 3] and table == {'k': [1], 'new': 1}\n"
    )
    result = _pytest(run, program, test)
    assert result.status is Status.PASSED, result
