"""Deprecation capture: a pinned library's deprecation signals under the program's code are
recorded, on the cold and warm paths, under trusted and in-process grading, whatever filters
the program sets; the program's own warnings and the test's are not; replacing the warnings
machinery is flagged; a malformed report never reads as clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Deprecations, Execution, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import ensure
from pinbench.sandbox.execute import execute
from pinbench.sandbox.grade import CAPTURE_VARIABLE, MODE_VARIABLE, _deprecations_of
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools

# numpy 1.20 deprecated the `np.float` alias (a module __getattr__ warns, then returns float)
PROGRAM = """import warnings
import numpy as np
warnings.filterwarnings("ignore")  # as much model code does: the signal is recorded anyway

def mean_as_float(values):
    return np.float(np.asarray(values).mean())
"""
SCRIPT = TestSpec(kind=TestKind.SCRIPT, code="assert mean_as_float([1, 3]) == 2.0")
PYTEST = TestSpec(
    kind=TestKind.PYTEST,
    module="solution",
    code="from solution import mean_as_float\n\n"
    "def test_mean():\n    assert mean_as_float([1, 3]) == 2.0\n",
)


@pytest.fixture(scope="module")
def numpy_python() -> Path:
    return ensure(EnvSpec(version="3.9", pins=("numpy==1.21.6",), extras=("pytest",))).python


@pytest.fixture(scope="module")
def pools() -> WarmPools:
    return WarmPools(detect(), per_env=1)


def _run(python: Path, program: str, test: TestSpec, pools: WarmPools | None = None) -> Execution:
    preload = ("numpy",) if pools is not None else ()
    return execute(python, program, test, warm=pools, preload=preload, libraries=("numpy",))


@pytest.mark.parametrize("grading", ["trusted", "in-process"])
@pytest.mark.parametrize("test", [SCRIPT, PYTEST], ids=["script", "pytest"])
@pytest.mark.parametrize("path", ["cold", "warm"])
def test_a_deprecated_alias_is_recorded_with_the_program_line_and_the_api(
    numpy_python: Path,
    pools: WarmPools,
    monkeypatch: pytest.MonkeyPatch,
    grading: str,
    test: TestSpec,
    path: str,
) -> None:
    monkeypatch.setenv(MODE_VARIABLE, grading)
    result = _run(numpy_python, PROGRAM, test, pools if path == "warm" else None)
    assert result.status is Status.PASSED and result.path == path, result
    assert result.deprecations is not None and not result.deprecations.tampered
    (found,) = result.deprecations.found
    assert found.category == "DeprecationWarning" and found.api == "np.float"
    assert found.line == 6 and found.code == "return np.float(np.asarray(values).mean())"
    assert not result.deprecations.clean


# numpy 1.21 raises these from C: no Python `warnings.warn` call is involved, and the program's
# "ignore" filter stops them before they are shown
C_PROGRAM = """import warnings
import numpy as np
warnings.filterwarnings("ignore")

def as_bytes(values):
    return np.asarray(values, dtype=np.int8).tostring()

def rows(a, b):
    return len(np.array([a, b]))

def draw():  # numpy.random is Cython: its `warnings.warn` has no Python frame of its own
    return np.random.RandomState(0).random_integers(1, 5)

def categories():  # reading the filters is no warning
    return [issubclass(DeprecationWarning, f[2]) for f in warnings.filters]
"""
C_SCRIPT = TestSpec(
    kind=TestKind.SCRIPT,
    code="assert as_bytes([1, 2]) == b'\\x01\\x02'\nassert rows([1], [1, 2]) == 2\n"
    "assert 1 <= draw() <= 5\nassert True in categories()",
)


@pytest.mark.parametrize("grading", ["trusted", "in-process"])
@pytest.mark.parametrize("path", ["cold", "warm"])
def test_signals_raised_from_compiled_code_are_recorded_under_an_ignore_filter(
    numpy_python: Path, pools: WarmPools, monkeypatch: pytest.MonkeyPatch, grading: str, path: str
) -> None:
    monkeypatch.setenv(MODE_VARIABLE, grading)
    result = _run(numpy_python, C_PROGRAM, C_SCRIPT, pools if path == "warm" else None)
    assert result.status is Status.PASSED and result.path == path, result
    assert result.deprecations is not None and not result.deprecations.tampered
    found = {(f.category, f.line, f.api) for f in result.deprecations.found}
    assert found == {
        ("DeprecationWarning", 6, "tostring()"),
        ("VisibleDeprecationWarning", 9, None),  # a UserWarning named for deprecation
        ("DeprecationWarning", 12, None),  # "This function is deprecated": no API named
    }, result.deprecations


@pytest.mark.parametrize(
    "insert",
    [
        "warnings.filters.insert(0, ('ignore', None, Warning, None, 0))",
        "warnings.filters = [('ignore', None, Warning, None, 0)]",
        "warnings.filters[:] = []\nwarnings.simplefilter('ignore')",
    ],
    ids=["insert", "replace", "clear"],
)
def test_filters_set_around_the_warnings_functions_hide_nothing(
    numpy_python: Path, insert: str
) -> None:
    program = C_PROGRAM.replace('warnings.filterwarnings("ignore")', insert)
    result = _run(numpy_python, program, C_SCRIPT)
    assert result.status is Status.PASSED, result
    assert result.deprecations is not None and not result.deprecations.tampered
    line = program.split("\n").index("    return np.asarray(values, dtype=np.int8).tostring()") + 1
    assert line in {f.line for f in result.deprecations.found}, result.deprecations


def test_clean_code_and_the_tests_own_deprecations_record_nothing(
    numpy_python: Path, pools: WarmPools
) -> None:
    clean = PROGRAM.replace("np.float(", "float(")
    test = TestSpec(
        kind=TestKind.SCRIPT,
        code="import numpy as np\nassert np.float(mean_as_float([1, 3])) == 2.0",  # the test's
    )
    for warm in (None, pools):
        result = _run(numpy_python, clean, test, warm)
        assert result.status is Status.PASSED, result
        assert result.deprecations == Deprecations(), result.deprecations


@pytest.mark.parametrize(
    "call",
    [
        "warnings.warn('mean_as_float is deprecated', DeprecationWarning)",
        "warnings.warn(\n        'mean_as_float is deprecated',\n"
        "        DeprecationWarning,\n    )",
        "warnings.warn_explicit('old', DeprecationWarning, 'm.py', 1)",
    ],
    ids=["one-line", "multi-line", "explicit"],
)
def test_the_programs_own_warnings_are_not_the_librarys(numpy_python: Path, call: str) -> None:
    program = (
        f"import warnings\n\ndef mean_as_float(values):\n    {call}\n"
        "    return sum(values) / len(values)\n"
    )
    result = _run(numpy_python, program, SCRIPT)
    assert result.status is Status.PASSED and result.deprecations == Deprecations()


@pytest.mark.parametrize(
    "hide",
    [
        "warnings.warn = lambda *a, **k: None",
        "warnings._showwarnmsg = lambda msg: None",
        "import sys, types; sys.modules['warnings'] = types.ModuleType('warnings')",
        # what the recorder reads, in place: its functions, state, and what they call
        "import _deprecations; _deprecations._note = lambda *a: None",
        "import _deprecations; _deprecations._entry.__code__ = (lambda *a: None).__code__",
        "import _deprecations; _deprecations._state['busy'] = True",
        "import _deprecations; _deprecations._state['found'].extend([{}] * 60)",
        "import _deprecations; _deprecations._state['sources'].clear()",
        "import sys; sys._getframe = lambda *a: None",
        "import builtins; builtins.issubclass = lambda *a: False",
        "import gc\nfor o in gc.get_objects():\n"
        "    if isinstance(o, dict) and 'busy' in o and 'keys' in o: o['sources'] = {}",
        "import types; warnings.__class__ = types.ModuleType",
    ],
    ids=[
        "warn", "showwarnmsg", "module", "note", "code", "busy", "full", "sources",
        "getframe", "builtin", "gc", "class",
    ],
)  # fmt: skip
@pytest.mark.parametrize("grading", ["trusted", "in-process"])
def test_a_program_that_replaces_the_warnings_machinery_is_flagged(
    numpy_python: Path, monkeypatch: pytest.MonkeyPatch, hide: str, grading: str
) -> None:
    monkeypatch.setenv(MODE_VARIABLE, grading)
    program = PROGRAM.replace('warnings.filterwarnings("ignore")', hide)
    result = _run(numpy_python, program, SCRIPT)
    # in-process grading also sees a replaced builtin: the sample fails as tampering there
    assert result.status is Status.PASSED or result.exc_type == "HarnessTampering", result
    assert result.deprecations is not None and result.deprecations.tampered
    assert not result.deprecations.clean


def test_capture_can_be_switched_off(numpy_python: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CAPTURE_VARIABLE, "off")
    result = _run(numpy_python, PROGRAM, SCRIPT)
    assert result.status is Status.PASSED and result.deprecations is None


@pytest.mark.parametrize(
    "record",
    [
        {"deprecations": {"found": "x", "tampered": False}},
        {"deprecations": {"found": [{"category": 1}], "tampered": False}},
        {"deprecations": {"found": [], "tampered": "no"}},
        {"deprecations": []},
    ],
)
def test_a_malformed_report_counts_as_tampered(record: dict[str, object]) -> None:
    parsed = _deprecations_of(record)
    assert parsed is not None and parsed.tampered and not parsed.clean


def test_overlong_text_is_cut_not_refused() -> None:
    entry = {"category": "FutureWarning", "message": "m" * 5000, "api": None, "line": 3}
    parsed = _deprecations_of({"deprecations": {"found": [entry] * 80, "tampered": False}})
    assert parsed is not None and not parsed.tampered
    assert len(parsed.found) == 50 and len(parsed.found[0].message) == 300
