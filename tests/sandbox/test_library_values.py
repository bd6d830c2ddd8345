"""Values of the pinned libraries' own types under trusted grading: they cross the channel as
copies rebuilt without running their class's code, so tests compare real library objects (a
`Version`, a networkx graph), while a forged or permissive object never becomes a pass.

The codec is exercised directly (both ends in this process, a fake library installed in a
`site-packages` directory), and end to end in the sandbox with real packaging, networkx and
the `mock` backport (whose `ANY` equals everything) on every execution path."""

from __future__ import annotations

import datetime
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import Environment, ensure
from pinbench.sandbox.execute import execute
from pinbench.sandbox.isolation import Isolation
from pinbench.sandbox.warm import WarmPools

INSIDE = Path(__file__).resolve().parents[2] / "src" / "pinbench" / "sandbox" / "inside"

FAKELIB = """
import datetime, enum

class Plain:
    def __init__(self, a, b):
        self.a, self.b = a, b
    def __eq__(self, other):
        return isinstance(other, Plain) and (self.a, self.b) == (other.a, other.b)
    def __hash__(self):
        return hash((self.a, self.b))

class Slotted:
    __slots__ = ("x", "__y")
    def __init__(self, x, y):
        self.x, self.__y = x, y
    def y(self):
        return self.__y

class Frozen:
    def __setattr__(self, name, value):
        raise AttributeError("frozen")
    def __init__(self, v):
        object.__setattr__(self, "v", v)

class Noisy:
    def __new__(cls, *args):
        raise RuntimeError("__new__ ran")
    def __init__(self):
        raise RuntimeError("__init__ ran")
    def __setstate__(self, state):
        raise RuntimeError("__setstate__ ran")

class Bag(dict):
    kind = "bag"

class Items(list):
    pass

class Name(str):
    pass

class Color(enum.Enum):
    RED = 1
    BLUE = 2

class Day(datetime.date):
    pass

class Anything:
    def __eq__(self, other):
        return True

class Never:  # says it differs from nothing: `assert not (x != y)` holds for any y
    def __ne__(self, other):
        return False

class Cells:  # compares elementwise, as an array does
    def __init__(self, items):
        self.items = items
    def __eq__(self, other):
        return [item == other for item in self.items]
    def __ne__(self, other):
        return [item != other for item in self.items]
    def __len__(self):
        return len(self.items)

class Truthy:  # a matcher whose answer is an object that is true
    def __eq__(self, other):
        return Cells([1])

def make_class(n):  # a class made at run time, as sympy's GF(n) makes its elements' class
    return type("Mod%d" % n, (Plain,), {})

class Lazy:  # as Django's settings: asking for anything, even `__class__`, sets it up
    def __getattribute__(self, name):
        raise RuntimeError("settings are not configured")

settings = Lazy()

class Node:
    def __init__(self):
        self.next = self

class Invalid(Exception):  # as Django's ValidationError: its state refers to itself
    def __init__(self, message):
        super().__init__(message)
        self.message, self.error_list = message, [self]

class Widget:
    def __init__(self):
        self.parts = [1, 2]

UNSET = object()  # sentinels: only their identity means anything

class _Missing:
    pass

MISSING = _Missing()
REGISTRY = Widget()  # a global with state: not a sentinel

class Session(Widget):  # a context manager: entering it is what it is for
    def __enter__(self):
        return self
    def __exit__(self, *info):
        return False

class Ratio:
    __slots__ = ("p", "q")

class Whole(Ratio):
    __slots__ = ("p",)

class Shadowed(Whole):
    __slots__ = ()
    p = 1
"""


# Modules of the fake library that reach native code through ctypes: directly, or through an
# object of a module that does (shapely 1.x's geometry modules hold `lgeos`).
NATIVE = {
    "lowlevel.py": "from ctypes import CDLL\n"
    "class Api:\n    def __init__(self):\n        self.lib = CDLL(None)\napi = Api()\n",
    "geoms.py": "from ctypes import c_void_p\n"
    "class Geom:\n    def __init__(self, address):\n        self._geom = address\n"
    # rebuilt from data as shapely 1.x's geometries are: (its class, (), its WKB)
    "class Point:\n    made = []\n"
    "    def __init__(self, *xy):\n        self._geom, self.xy = id(self), xy\n"
    "    def __reduce__(self):\n        return (Point, (), {'xy': list(self.xy)})\n"
    "    def __setstate__(self, state):\n"
    "        if set(state) != {'xy'}:\n            raise ValueError(state)\n"
    "        self._geom, self.xy = id(self), tuple(state['xy'])\n"
    "        Point.made.append(self)\n"
    "    def __eq__(self, other):\n"
    "        return isinstance(other, Point) and self.xy == other.xy\n"
    "class Elsewhere(Point):\n"  # its reduce names a function: never called
    "    def __reduce__(self):\n        return (make, (list(self.xy),))\n"
    "class Holder(Point):\n"  # its state holds an object: not plain data
    "    def __reduce__(self):\n        return (Holder, (), {'xy': [object()]})\n"
    "def make(xy):\n    raise RuntimeError('a reduce function ran')\n",
    "shapes.py": "from fakelib.lowlevel import api\n"
    "class Shape:\n    def __init__(self, address):\n        self._ptr = address\n",
}


@pytest.fixture(scope="module")
def codec(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any, ModuleType]]:
    """(_remote, _values, fakelib) with `fakelib` installed under a site-packages directory."""
    site = tmp_path_factory.mktemp("env") / "site-packages"
    (site / "fakelib").mkdir(parents=True)
    (site / "fakelib" / "__init__.py").write_text(FAKELIB)
    for name, text in NATIVE.items():
        (site / "fakelib" / name).write_text(text)
    sys.path[:0] = [str(site), str(INSIDE)]
    import _remote
    import _values
    import fakelib

    _values.set_libraries(["fakelib"])
    del _values._roots[:]  # found again, with the fake site-packages on the path
    _values._scanned.clear()  # and the sentinels, with fakelib loaded
    _values._globals.clear()
    _values._seen[0] = 0
    yield _remote, _values, fakelib
    _values.set_libraries([])
    sys.path.remove(str(site))
    sys.path.remove(str(INSIDE))
    sys.modules.pop("fakelib", None)


def _cross(codec: tuple[Any, Any, ModuleType], value: object) -> Any:
    """Encode on the program's side, decode in the grader (each with its own endpoint)."""
    _remote = codec[0]
    program = _remote.Endpoint(None, trusting=True)
    grader = _remote.Endpoint(None, trusting=False)
    return grader.decode(program.encode(value))


def test_plain_slotted_and_builtin_based_objects_cross_as_real_library_objects(codec) -> None:
    _, _, lib = codec
    plain = _cross(codec, lib.Plain(1, [2, "x"]))
    assert type(plain) is lib.Plain and plain == lib.Plain(1, [2, "x"])
    slotted = _cross(codec, lib.Slotted(3, (4, 5)))
    assert type(slotted) is lib.Slotted and slotted.x == 3 and slotted.y() == (4, 5)
    frozen = _cross(codec, lib.Frozen({"k": 1.5}))
    assert type(frozen) is lib.Frozen and frozen.v == {"k": 1.5}
    bag = lib.Bag(a=1)
    bag.note = "n"
    copied = _cross(codec, bag)
    assert type(copied) is lib.Bag and dict(copied) == {"a": 1} and copied.note == "n"
    assert _cross(codec, lib.Items([1, 2])) == [1, 2]
    name = _cross(codec, lib.Name("abc"))
    assert type(name) is lib.Name and name == "abc"
    assert _cross(codec, lib.Color.BLUE) is lib.Color.BLUE  # the member itself, not a copy
    one = lib.Shadowed()
    lib.Ratio.__dict__["q"].__set__(one, 5)
    copied = _cross(codec, one)
    assert type(copied) is lib.Shadowed and copied.p == 1 and copied.q == 5


def test_a_class_that_calls_native_code_through_ctypes_crosses_as_a_handle(codec) -> None:
    """Its plain attributes may be native addresses (shapely 1.x keeps its GEOS pointer as an
    int): a copy would make the receiver dereference an address the sender chose, in a process
    whose memory layout the sender knows (both are forks of one server). Seen as the program's
    process killed by SIGSEGV on GitChameleon 2.0's geopandas problems."""
    _remote, _, lib = codec
    from fakelib import geoms, shapes

    address = 0x7F3A5C001000
    for value in (geoms.Geom(address), shapes.Shape(address), [geoms.Geom([{"p": address}])]):
        got = _cross(codec, value)
        inner = got[0] if isinstance(got, list) else got
        assert type(inner) is _remote.Proxy
    assert type(_cross(codec, lib.Plain(address, 2))) is lib.Plain  # no ctypes: a copy
    # holding no int that could be an address (lightgbm's Booster keeps its pointer in a
    # ctypes object, itself a handle): a copy, so the test's isinstance holds
    for harmless in (None, 7, "name", [1, 2.5]):
        copied = _cross(codec, geoms.Geom(harmless))
        assert type(copied) is geoms.Geom and copied._geom == harmless
    forged = ["V", "fakelib.geoms", "Geom", "object", None, [["_geom", address]], []]
    nested = ["V", "fakelib.geoms", "Geom", "object", None, [["_geom", ["T", [address]]]], []]
    for message in (forged, nested):  # nor is one rebuilt from a forged description
        with pytest.raises(_remote.BadMessage):
            _forged(codec, message)


def test_a_native_class_its_library_rebuilds_from_data_crosses_so(codec) -> None:
    """shapely 1.x's geometries: their class and `__setstate__` rebuild them from their WKB,
    as unpickling would, and nothing but the class is ever called."""
    _remote, _, _ = codec
    from fakelib import geoms

    point = geoms.Point(1.5, 2)
    got = _cross(codec, {"p": point, "again": point})
    assert type(got["p"]) is geoms.Point and got["p"] == point and got["again"] is got["p"]
    assert got["p"]._geom != point._geom  # its own native object, not the sender's address
    assert geoms.Point.made[-1] is got["p"]
    for other in (geoms.Elsewhere(1, 2), geoms.Holder(1, 2)):
        assert type(_cross(codec, other)) is _remote.Proxy
    bad_state = ["RV", "fakelib.geoms", "Point", ["T", []], ["D", [["evil", 1]]]]
    not_rebuilt = ["RV", "fakelib.geoms", "Geom", ["T", []], ["D", [["xy", ["L", []]]]]]
    elsewhere = ["RV", "fakelib.geoms", "Elsewhere", ["T", []], ["D", [["xy", ["L", []]]]]]
    for message in (bad_state, not_rebuilt):
        with pytest.raises(_remote.BadMessage):
            _forged(codec, message)
    got = _forged(codec, elsewhere)  # the class itself rebuilds it: `make` is never named
    assert type(got) is geoms.Elsewhere and got.xy == ()


def test_what_a_value_shares_stays_shared(codec) -> None:
    """A networkx DiGraph's `_succ` is its `_adj`: copies that came apart would make the
    library see a graph that changes while it iterates."""
    _, _, lib = codec
    inner = {"k": [1, 2]}
    graph = lib.Plain(inner, inner)
    graph.alias = inner["k"]
    got = _cross(codec, {"g": graph, "again": graph, "list": inner["k"]})
    copied = got["g"]
    assert copied.a is copied.b and copied.alias is copied.a["k"] is got["list"]
    assert got["again"] is copied


def test_a_value_that_falls_back_to_a_handle_leaves_no_numbers_behind(codec) -> None:
    """A library value found nested too deep halfway crosses as a handle; the lists its parts
    had registered before must not shift the numbers of what follows (the receiver never saw
    them)."""
    _, _, lib = codec
    deep: list[Any] = []
    for _ in range(150):
        deep = [deep]
    node = lib.Plain([1, 2], deep)  # `a` is encoded (and numbered) before `b` is found deep
    later = [3]
    got = _cross(codec, [node, later, later])
    assert type(got[0]) is codec[0].Proxy and got[1] == [3] and got[2] is got[1]


def test_cycles_cross_as_cycles(codec) -> None:
    """sympy's reference frames and points refer to each other: a value is numbered before
    its parts, which may refer back to it, and arrives with the same shape."""
    _, _, lib = codec
    node = _cross(codec, lib.Node())
    assert type(node) is lib.Node and node.next is node
    one, two = lib.Plain(1, None), lib.Plain(2, None)
    one.b, two.b = two, {"back": one}
    got = _cross(codec, [one, two])
    assert got[0].b is got[1] and got[1].b["back"] is got[0] and (got[0].a, got[1].a) == (1, 2)
    bag = lib.Bag()
    bag["self"] = bag  # a dict-based value holding itself
    copied = _cross(codec, bag)
    assert type(copied) is lib.Bag and copied["self"] is copied


def test_a_large_cyclic_graph_has_its_cycles_broken_by_handles(codec, monkeypatch) -> None:
    """A plotly 4 figure refers back to itself through ~275 000 parts, a matplotlib figure
    holds its renderer and callbacks: past the bound, or holding a handle, each value whose
    parts close a cycle is a handle, and the rest stays a copy (the test's `isinstance`): two
    axes of one figure, lent one by one, reach one figure in the grader's process."""
    _remote, _, lib = codec
    monkeypatch.setattr(_remote, "MAX_CYCLIC_PARTS", 50)
    small, large = lib.Node(), lib.Node()
    small.items, large.items = list(range(10)), list(range(100))
    assert type(_cross(codec, small)) is lib.Node
    assert type(_cross(codec, large)) is _remote.Proxy  # it closes its own cycle
    figure = lib.Plain(list(range(100)), None)
    figure.b = lib.Plain(figure, "layout")  # the layout's parent is the figure
    later = [1]
    got = _cross(codec, [figure, later, later])
    assert type(got[0]) is lib.Plain and got[0].a == list(range(100))
    assert type(got[0].b) is _remote.Proxy and got[2] is got[1] == [1]  # numbers in step
    acyclic = lib.Plain(list(range(100)), None)  # as large, but no cycle: a copy as ever
    assert type(_cross(codec, acyclic)) is lib.Plain
    monkeypatch.undo()
    live = lib.Plain(1, None)  # small, but holding a handle (a callback): a live object
    live.b, live.callback = lib.Plain(live, "layout"), lambda: None
    got = _cross(codec, live)
    assert type(got) is lib.Plain and type(got.b) is _remote.Proxy
    assert type(got.callback) is _remote.Proxy


def test_a_matcher_referred_to_from_within_itself_is_malformed(codec) -> None:
    """An object that says it equals anything is replaced by a refused value; one its own
    parts refer to cannot be replaced where they hold it, so the message is malformed."""
    _remote, _, lib = codec
    loop = lib.Anything()
    loop.me = loop
    with pytest.raises(_remote.BadMessage):
        _cross(codec, loop)
    alone = lib.Anything()
    alone.other = lib.Plain(1, 2)
    assert type(_cross(codec, [alone, alone])[1]) is _remote.RefusedValue


def test_shared_parts_of_a_refused_value_keep_their_numbers(codec) -> None:
    _remote = codec[0]
    program = _remote.Endpoint(None, trusting=True)
    part = [1, 2]
    foreign = ["V", "collections", "OrderedDict", "object", None, [["x", ["L", [1, 2]]]], []]
    message = ["L", [foreign, ["@", 1], ["@", 0]]]  # the value is numbered before its parts
    got = _remote_grader(codec).decode(message)
    assert type(got[0]) is _remote.RefusedValue and got[1] == part and got[2] is got[0]
    lent = ["K", 1, ["L", [["L", [1, 2]], ["@", 0]]]]  # the outer list keeps a token
    assert program.encode([part, part]) == lent


@pytest.mark.parametrize("message", [["@", 0], ["L", [["@", 0]]], ["L", [["L", []], ["@", 1]]]])
def test_a_reference_to_nothing_decoded_yet_is_malformed(codec, message) -> None:
    with pytest.raises(codec[0].BadMessage):
        _forged(codec, message)


def test_no_code_of_the_class_runs_while_it_is_rebuilt(codec) -> None:
    _, _, lib = codec
    noisy = object.__new__(lib.Noisy)
    noisy.__dict__["field"] = 7
    copied = _cross(codec, noisy)
    assert type(copied) is lib.Noisy and copied.field == 7


def test_objects_with_c_fields_and_foreign_classes_stay_handles(codec) -> None:
    _remote, _values, lib = codec
    assert _values.layout(lib.Day) is None  # fields of C: an attribute copy would be empty
    assert type(_cross(codec, lib.Day(2020, 1, 2))) is _remote.Proxy

    class Local:  # the program's own class: never copied
        pass

    assert type(_cross(codec, Local())) is _remote.Proxy
    # a library's class made at run time: the receiver could not find it by its name
    assert type(_cross(codec, lib.make_class(5)(1, 2))) is _remote.Proxy


def test_an_object_that_equals_anything_is_refused(codec) -> None:
    _remote, _, lib = codec
    got = _cross(codec, lib.Anything())
    assert type(got) is _remote.RefusedValue
    assert got != 2
    assert (got == 2) is False
    for matcher in (lib.Never(), lib.Truthy(), lib.Cells([object()])):
        assert type(_cross(codec, matcher)) is _remote.RefusedValue


def test_an_empty_elementwise_comparison_is_no_claim_to_equal_anything(codec) -> None:
    """An empty geopandas GeometryArray answers `!=` with an empty array, which is false: it is
    no matcher (an empty numpy array answers the same) and crosses as itself."""
    _, _, lib = codec
    got = _cross(codec, lib.Cells([]))
    assert type(got) is lib.Cells and got.items == []


def _forged(codec: tuple[Any, Any, ModuleType], message: list[Any]) -> Any:
    return _remote_grader(codec).decode(message)


def _remote_grader(codec: tuple[Any, Any, ModuleType]) -> Any:
    return codec[0].Endpoint(None, trusting=False)


@pytest.mark.parametrize(
    "module, qualname",
    [
        ("collections", "OrderedDict"),  # the standard library
        ("_pytest.python_api", "ApproxScalar"),  # the harness's test runner
        ("unittest.mock", "_ANY"),
        ("fakelib", "Plain.__init__"),  # not a class
        ("fakelib", "os"),
        ("fakelib.nothere", "X"),  # a module the library does not have
        ("fakelib", "__class__"),
        ("fake lib", "Plain"),
    ],
)
def test_a_value_naming_a_class_of_no_pinned_library_is_refused(codec, module, qualname) -> None:
    got = _forged(codec, ["V", module, qualname, "object", None, [], []])
    assert type(got) is codec[0].RefusedValue


@pytest.mark.parametrize(
    "message",
    [
        ["V", "fakelib", "Plain", "dict", None, [], []],  # the wrong base
        ["V", "fakelib", "Slotted", "object", None, [], [[2, 1]]],  # no third slot
        ["V", "fakelib", "Slotted", "object", None, [], [["x", 1]]],  # slots by index
        ["V", "fakelib", "Slotted", "object", None, [["x", 1]], []],  # it has no __dict__
        ["V", "fakelib", "Name", "str", 5, [], []],  # content of the wrong type
        ["V", "fakelib", "Plain", "object", None, [[1, 2]], []],
        ["V", "fakelib", "Plain", "object", None, "bad", []],
    ],
)
def test_a_value_that_does_not_fit_its_class_is_malformed(codec, message) -> None:
    with pytest.raises(codec[0].BadMessage):
        _forged(codec, message)


def test_an_enum_member_that_does_not_exist_is_refused(codec) -> None:
    _remote = codec[0]
    assert type(_forged(codec, ["EN", "fakelib", "Color", "GREEN"])) is _remote.RefusedValue
    assert type(_forged(codec, ["EN", "fakelib", "Plain", "a"])) is _remote.RefusedValue


def test_a_module_outside_site_packages_is_not_a_library(codec, tmp_path: Path) -> None:
    """A module of the library's name loaded from elsewhere (the program's writable work
    directory) is not the installed library: the grader rebuilds nothing of it."""
    _remote, _values, _ = codec
    (tmp_path / "fakelib_shadow.py").write_text("class Plain:\n    pass\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import fakelib_shadow  # noqa: F401

        _values.set_libraries(["fakelib", "fakelib_shadow"])
        got = _forged(codec, ["V", "fakelib_shadow", "Plain", "object", None, [], []])
        assert type(got) is _remote.RefusedValue
    finally:
        _values.set_libraries(["fakelib"])
        sys.path.remove(str(tmp_path))
        sys.modules.pop("fakelib_shadow", None)


def test_layouts_match_python_classes_only(codec) -> None:
    _, _values, lib = codec
    assert _values.layout(lib.Plain) == (object, ())
    base, members = _values.layout(lib.Slotted)
    assert base is object and [m.__name__ for m in members] == ["x", "_Slotted__y"]
    assert _values.layout(lib.Bag) == (dict, ())
    shadowed = _values.layout(lib.Shadowed)  # a class attribute over an inherited slot
    assert shadowed is not None and [m.__name__ for m in shadowed[1]] == ["p", "p", "q"]
    assert _values.layout(datetime.date) is None
    assert _values.layout(ValueError) is None
    assert _values.layout(type) is None


# --------------------------------------------------------------------------- in the sandbox

PINS = ("pytest==8.3.4", "packaging==24.1", "networkx==3.3", "mock==5.1.0")


@pytest.fixture(scope="module")
def lib_env() -> Environment:
    return ensure(EnvSpec(version="3.11", pins=PINS))


LibRun = Callable[[str, str], Execution]


@pytest.fixture
def lib_run(lib_env: Environment, isolation: Isolation, pools: WarmPools | None) -> LibRun:
    def run(program: str, test: str) -> Execution:
        spec = TestSpec(kind=TestKind.PYTEST, code=textwrap.dedent(test), module="sample_x")
        return _execute_in(lib_env, textwrap.dedent(program), spec, isolation, pools)

    return run


def _execute_in(
    env: Environment, program: str, spec: TestSpec, isolation: Isolation, pools: WarmPools | None
) -> Execution:
    """One trusted execution in `env`, its pinned libraries preloaded and crossing as values."""
    preload = (("pytest",) if spec.kind is TestKind.PYTEST else ()) + env.preload()
    return execute(
        env.python,
        program,
        spec,
        Limits(wall_seconds=60, cpu_seconds=60),
        isolation,
        warm=pools,
        preload=preload,
        libraries=env.preload(),
    )


def _right_and_wrong(
    env: Environment, programs: dict[str, str], test: str, isolation: Isolation, pools: Any
) -> dict[str, Execution]:
    spec = TestSpec(kind=TestKind.PYTEST, code=test, module="sample_x")
    return {
        name: _execute_in(env, textwrap.dedent(source), spec, isolation, pools)
        for name, source in programs.items()
    }


pytestmark = pytest.mark.integration


def test_library_values_compare_with_the_librarys_own_code(lib_run: LibRun) -> None:
    program = """
        import networkx as nx
        from packaging.version import Version
        def version():
            return Version("2.0.post1")
        def graph(n):
            return nx.path_graph(n)
        def path(g):
            return nx.shortest_path(g, 0, 3)
    """
    test = """
        import networkx as nx
        from packaging.version import Version
        from sample_x import graph, path, version
        def test_values():
            assert version() == Version("2.0.post1") and version() > Version("2.0")
            assert str(version()) == "2.0.post1"
            g = graph(4)
            assert isinstance(g, nx.Graph) and nx.is_isomorphic(g, nx.path_graph(4))
            assert sorted(g.edges()) == [(0, 1), (1, 2), (2, 3)]
            assert path(nx.path_graph(5)) == [0, 1, 2, 3]  # a graph of the test's, copied
    """
    result = lib_run(program, test)
    assert result.status is Status.PASSED, result.message


def test_a_wrong_library_value_fails(lib_run: LibRun) -> None:
    program = "from packaging.version import Version\ndef f():\n    return Version('2.1')\n"
    test = "from packaging.version import Version\nfrom sample_x import f\n"
    test += "def test_f():\n    assert f() == Version('2.0')\n"
    result = lib_run(program, test)
    assert result.status is Status.FAILED and "2.1" in (result.message or "")


@pytest.mark.parametrize(
    "program",
    [
        "import mock\ndef f():\n    return mock.ANY\n",  # a pinned library's matcher
        "from unittest import mock\ndef f():\n    return mock.ANY\n",
        # the program's own class, named as the library's
        "class V:\n    __module__ = 'packaging.version'\n    __qualname__ = 'Version'\n"
        "    def __eq__(self, o):\n        return True\ndef f():\n    return V()\n",
        # a real library object whose state the program chose
        "from packaging.version import Version\ndef f():\n    v = Version('9')\n"
        "    v.__dict__['_key'] = type('K', (), {'__eq__': lambda s, o: True})()\n    return v\n",
    ],
    ids=["mock-backport-ANY", "stdlib-ANY", "spoofed-class", "forged-state"],
)
def test_values_that_would_equal_the_expected_one_by_cheating_fail(
    lib_run: LibRun, program: str
) -> None:
    test = "from packaging.version import Version\nfrom sample_x import f\n"
    test += "def test_f():\n    assert f() == Version('2.0')\n    assert Version('2.0') == f()\n"
    result = lib_run(program, test)
    assert result.status is Status.FAILED, result.message


def test_a_library_exceptions_attributes_never_reach_its_descriptors(codec) -> None:
    """An exception's attributes from the program's process go into its `__dict__`: a name
    such as `__class__` is only a key there, never the exception's class."""
    _remote = codec[0]
    state = ["L", [["L", ["__class__", ["type", "int"]]], ["L", ["detail", "d"]]]]
    message = ["E", [["builtins", "ValueError"]], "bad", None, ["bad"], state]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codec[1], "copyable_type", lambda klass: True)
        exc = _remote_grader(codec).decode(message)
    assert type(exc) is ValueError and exc.args == ("bad",)
    assert exc.__dict__ == {"__class__": int, "detail": "d"}


def test_an_exception_whose_state_refers_to_itself_crosses_whole(codec) -> None:
    """Django's ValidationError keeps `error_list = [self]`: its state crossed as nothing (the
    encoding of it never ended), and `str()` of the grader's copy failed for want of it."""
    _, _, lib = codec
    got = _cross(codec, {"errors": [lib.Invalid("bad color")]})["errors"][0]
    assert type(got) is lib.Invalid and got.args == ("bad color",)
    assert got.message == "bad color" and got.error_list[0] is got
    with pytest.raises(codec[0].BadMessage):  # a reference to no exception being decoded
        _remote_grader(codec).decode(["L", [["Eo", 0]]])


class Tag(str):  # a program's own class (not a pinned library's): its objects are handles
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class Level(int):
    pass


def test_a_program_objects_builtin_value_crosses_with_it(codec) -> None:
    """An object of a program's subclass of str, int, float or bytes (a str-valued enum's
    member) reaches the grader as that builtin type's value with the object's other
    attributes a handle's: it equals what its value equals, never what its own `__eq__`
    says; the same object is the same value; malformed forms are refused."""
    _remote = codec[0]
    program = _remote.Endpoint(None, trusting=True)
    grader = _remote.Endpoint(None, trusting=False)
    tag = Tag("red")
    got = grader.decode(program.encode([tag, Level(7), tag]))
    assert isinstance(got[0], str) and got[0] == "red" and got[0] != "blue"
    assert got[0] is got[2] and {got[0]: 1}["red"] == 1 and got[0].upper() == "RED"
    assert isinstance(got[1], int) and got[1] == 7 and got[1] + 1 == 8
    assert type(grader.decode(program.encode(True))) is bool  # bool is no subclass's value
    handle = program.encode_handle(tag)
    for bad in (
        ["BH", "list", [], handle],
        ["BH", ["str"], "x", handle],
        ["BH", "int", "7", handle],
        ["BH", "float", 7, handle],
        ["BH", "bytes", 7, handle],
        ["BH", "str", "x", ["R", 1]],
    ):
        with pytest.raises(_remote.BadMessage):
            grader.decode(bad)


def test_numpy_scalar_types_and_dtypes_cross_as_numpys_own(codec) -> None:
    """`np.float32` and `dtype('int32')` (an instance of `numpy.dtype[int32]` since numpy 1.20)
    are values: a test comparing a program's dtype or scalar type with its own gets numpy's
    objects, not handles that equal nothing."""
    import numpy as np

    values = [np.float32, np.complex128, np.integer, np.bool_, np.str_, np.dtype("int32")]
    values += [np.dtype("M8[ns]"), {"kind": np.dtype(np.float64)}]
    crossed = _cross(codec, values)
    assert crossed == values
    assert all(a is b for a, b in zip(crossed[:5], values[:5], strict=True))


@pytest.mark.parametrize(
    "message",
    [["nptype", "ndarray"], ["nptype", "__class__"], ["nptype", "float_info"], ["nptype", 3]],
)
def test_only_numpys_scalar_types_are_named(codec, message) -> None:
    with pytest.raises(codec[0].BadMessage):
        _forged(codec, message)


def test_a_class_named_like_a_builtin_is_not_the_builtin(codec) -> None:
    """Builtin classes cross by name; another module's class of the same name (numpy 2's
    `np.bool`, a program's own `str`) is not that builtin."""
    import numpy as np

    own = type("str", (), {"__module__": "builtins"})
    assert _cross(codec, [bool, np.bool_]) == [bool, np.bool_]
    assert _cross(codec, own) is not str


def test_an_installed_packages_or_the_standard_librarys_class_is_the_receivers_own(
    codec,
) -> None:
    """A class handle the program sends for an installed package's or the standard library's
    class is the grader's own class of that name (one class, as in one process: a parameter
    annotated `pathlib.Path`, `pytest.raises(error404)`); never a builtin by a name, the test
    runner's or unittest's, nor the program's own class."""
    import pathlib
    import unittest

    _remote, _, lib = codec
    program = _remote.Endpoint(None, trusting=True)
    grader = _remote.Endpoint(None, trusting=False)
    own = type("Local", (), {})
    got = grader.decode(program.encode_handle(pathlib.Path))
    assert got is pathlib.Path
    assert grader.decode(program.encode_handle(lib.Plain)) is lib.Plain
    for refused in (unittest.TestCase, unittest.SkipTest, own):  # a proxy or a stand-in
        assert grader.decode(program.encode_handle(refused)) is not refused
    forged = program.encode_handle(own)
    forged[2]["own"] = ["builtins", "str"]
    assert grader.decode(forged) is not str


def _wire(sender: Any, receiver: Any, value: object) -> Any:
    """`value` from one endpoint to the other, through JSON as on the channel."""
    import json

    return receiver.decode(json.loads(json.dumps(sender.encode(value))))


def test_a_copy_handed_back_unchanged_is_the_original(codec) -> None:
    """What the grader lends comes back as its own object while unchanged (a mock asserting
    it was called with the test's array compares the array with itself); a changed copy, or
    one the lender no longer keeps, comes back as a copy."""
    import numpy as np

    _remote = codec[0]
    grader, program = _remote_grader(codec), _remote.Endpoint(None, trusting=True)
    arr, rows, table = np.arange(3.0), [1, [2]], {"k": {1, 2}}
    got = _wire(grader, program, (arr, rows, table, arr))
    assert got[0] is got[3] and got[0] is not arr
    back = _wire(program, grader, list(got))
    assert back[0] is arr and back[1] is rows and back[2] is table and back[3] is arr
    got[1][1].append(3)
    changed = _wire(program, grader, got[1])
    assert changed == [1, [2, 3]] and changed is not rows and rows == [1, [2]]
    for _ in range(_remote.LENT):  # the grader keeps only the last LENT it lent
        _wire(grader, program, [0])
    assert _wire(program, grader, got[2]) == table and _wire(program, grader, got[2]) is not table


@pytest.mark.parametrize(
    "message",
    [
        ["O", 1],
        ["O", 1, ["T", []]],
        ["O", "1", ["L", []]],
        ["K", 1, ["H", 1, {}]],
        ["K", 1],
        ["K", 1, [["L"], []]],
        ["O", 1, [[], 1]],
    ],
)
def test_malformed_lent_and_returned_values_are_refused(codec, message) -> None:
    with pytest.raises(codec[0].BadMessage):
        _forged(codec, message)


def test_a_token_of_nothing_lent_is_only_a_copy(codec) -> None:
    """The program names a token the grader never gave it: it gets its own copy, no object of
    the grader's."""
    assert _forged(codec, ["O", 12345, ["L", [1, 2]]]) == [1, 2]


def test_what_a_call_did_to_its_arguments_is_done_to_the_lenders_values(codec) -> None:
    """Call by copy-restore: the program appends to the test's list, fills its array, and
    raises; the test's own objects show it, and a value handed back is the test's own."""
    import socket
    import threading

    import numpy as np

    _remote = codec[0]
    ours, theirs = socket.socketpair()
    grader, program = _remote.Endpoint(ours, trusting=False), _remote.Endpoint(theirs, True)
    program.handlers["grow"] = lambda ep, x: x.append(3)
    program.handlers["fill"] = lambda ep, x: (x.fill(7), x)[1]
    program.handlers["boom"] = lambda ep, x: (x.update(k=2), 1 / 0)
    program.handlers["edit"] = lambda ep, p, s: (setattr(p, "b", 9), setattr(s, "x", 8), s)[-1]
    program.handlers["tie"] = lambda ep, p: setattr(p, "a", lambda: p)
    program.handlers["loop"] = lambda ep, p: setattr(p, "a", p)
    threading.Thread(target=program.serve_forever, daemon=True).start()
    data, arr, table = [1, 2], np.zeros(3), {"k": 1}
    assert grader.request("grow", data) is None and data == [1, 2, 3]
    assert grader.request("fill", arr) is arr and arr.tolist() == [7.0, 7.0, 7.0]
    with pytest.raises(ZeroDivisionError):
        grader.request("boom", table)
    assert table == {"k": 2}
    lib = codec[2]
    plain, slotted = lib.Plain(1, 2), lib.Slotted(1, 2)
    assert grader.request("edit", plain, slotted) is slotted  # a library value, slots and all
    assert (plain.a, plain.b, slotted.x, slotted.y()) == (1, 9, 8, 2)
    # a state that holds an object staying over there (networkx caches views of the copy
    # itself) would tie the test's object to the other process: it stays as it was
    grader.request("tie", plain)
    assert (plain.a, plain.b) == (1, 9)
    # a cache that now points back at its owner (sympy's GF(5) after `to_int`, a plotly
    # trace's parent): restored, it points at the test's object, not at the copy
    assert grader.request("loop", plain) is None and plain.a is plain and plain.b == 9
    holder = lib.Plain([], {})
    program.handlers["nest"] = lambda ep, p: (p.a.append(p), p.b.update(me=p))
    grader.request("nest", holder)
    assert holder.a == [holder] and holder.a[0] is holder and holder.b["me"] is holder
    ours.close()


def test_a_part_of_an_argument_handed_back_is_the_lenders_part(codec) -> None:
    """`f(req) is req.context` (falcon's request context, set and returned): the answer names
    the part of the test's value, changed or not, and the test gets its own object."""
    import socket
    import threading

    _remote, lib = codec[0], codec[2]
    ours, theirs = socket.socketpair()
    grader, program = _remote.Endpoint(ours, trusting=False), _remote.Endpoint(theirs, True)
    program.handlers["context"] = lambda ep, r: (r.b.update(role="admin"), r.b)[1]
    program.handlers["first"] = lambda ep, d: d["items"][0]
    program.handlers["fresh"] = lambda ep, d: list(d["items"][0])
    threading.Thread(target=program.serve_forever, daemon=True).start()
    request = lib.Plain(1, {"user": "jane"})
    context = grader.request("context", request)
    assert context is request.b and context == {"user": "jane", "role": "admin"}
    table = {"items": [[1, 2], [3]]}
    assert grader.request("first", table) is table["items"][0]  # unchanged: its own
    fresh = grader.request("fresh", table)
    assert fresh == [1, 2] and fresh is not table["items"][0]  # an equal new list is new
    ours.close()


def test_a_part_of_the_tests_value_the_program_returns_is_the_tests(lib_run: LibRun) -> None:
    """End to end, every path: the program sets a request's context and returns it (falcon's
    `custom_set_context`, GitChameleon 2.0): the test's `assertIs` holds, a new object
    that only looks like it does not pass."""
    test = """
        from sample_x import set_context
        def test_context():
            request = {"context": {"user": "jane"}, "path": "/"}
            context = set_context(request, "admin")
            assert context is request["context"]
            assert context == {"user": "jane", "role": "admin"}
    """
    right = "def set_context(request, role):\n    request['context']['role'] = role\n"
    right += "    return request['context']\n"
    wrong = "def set_context(request, role):\n    request['context']['role'] = role\n"
    wrong += "    return dict(request['context'])\n"
    assert lib_run(right, test).status is Status.PASSED
    failed = lib_run(wrong, test)
    assert failed.status is Status.FAILED and " is " in failed.message, failed.message


@pytest.mark.parametrize(
    "message", [["P", 1, 99, ["L", [1, 2]]], ["P", 1, 0, ["L", [7]]], ["P", 77, 0, ["L", [1, 2]]]]
)
def test_a_part_named_wrongly_is_only_a_copy(codec, message: list[Any]) -> None:
    """A part the program names by a number that is not one, or with a value that is not
    what the test's own part is, or of a value never lent, decodes as a copy of that value."""
    grader = _remote_grader(codec)
    lent = [[1, 2], [3]]
    assert grader.encode(lent)[:2] == ["K", 1]  # lent: token 1
    assert grader.decode(["P", 1, 0, ["L", [1, 2]]]) is lent[0]  # named rightly: its own
    got = grader.decode(message)
    assert got == message[3][1] and all(got is not part for part in lent)


@pytest.mark.parametrize("message", [["P", 1, 0], ["P", "1", 0, ["L", []]], ["P", 1, 0, ["T", []]]])
def test_malformed_parts_are_refused(codec, message: list[Any]) -> None:
    with pytest.raises(codec[0].BadMessage):
        _forged(codec, message)


@pytest.mark.parametrize(
    "changes",
    [[[1, ["T", []]]], [["1", ["L", []]]], [[1]], "x", [[1, ["H", 1, {}]]], [[1, [["L"], 1]]]],
)
def test_malformed_changes_are_refused(codec, changes) -> None:
    with pytest.raises(codec[0].BadMessage):
        _remote_grader(codec)._take_changes(changes)


def test_changes_to_values_never_lent_change_nothing(codec) -> None:
    grader = _remote_grader(codec)
    grader._take_changes([[777, ["L", [1]]]])
    assert not grader.lent.items


def test_in_memory_files_cross_with_their_content_and_position(codec) -> None:
    import io

    raw, text = io.BytesIO(b"test data"), io.StringIO("héllo")
    raw.seek(4)
    text.seek(2)
    got = _cross(codec, [raw, text])
    assert type(got[0]) is io.BytesIO and got[0].getvalue() == b"test data"
    assert got[0].read() == b" data" and type(got[1]) is io.StringIO and got[1].read() == "llo"
    closed = io.BytesIO(b"x")
    closed.close()
    assert type(_cross(codec, closed)) is codec[0].Proxy  # a closed one stays where it is


@pytest.mark.parametrize(
    "message", [["bio", "***", 0], ["bio", "eA==", -1], ["sio", 5, 0], ["sio", "x"]]
)
def test_malformed_memory_files_are_refused(codec, message) -> None:
    with pytest.raises(codec[0].BadMessage):
        _forged(codec, message)


def test_only_so_many_bytes_of_lent_values_are_kept(codec, monkeypatch) -> None:
    """Each side keeps the values it lent, and the copies it borrowed, only up to KEPT_BYTES
    of the messages that carried them: a large value handed back is a copy, not a growing
    memory cost (a test calling the program a thousand times with large arrays)."""
    import socket
    import threading

    _remote = codec[0]
    monkeypatch.setattr(_remote, "KEPT_BYTES", 4000)
    ours, theirs = socket.socketpair()
    grader, program = _remote.Endpoint(ours, trusting=False), _remote.Endpoint(theirs, True)
    program.handlers["same"] = lambda ep, x: x
    threading.Thread(target=program.serve_forever, daemon=True).start()
    small, large = [1, 2], list(range(2000))
    assert grader.request("same", small) is small
    back = grader.request("same", large)
    assert back == large and back is not large
    assert grader.lent.total <= 4000 and program.borrowed.total <= 4000
    ours.close()


@pytest.fixture(scope="module")
def shapely_env() -> Environment:
    return ensure(EnvSpec(version="3.10", pins=("pytest==8.3.4", "shapely==1.8.5.post1")))


def test_native_geometries_cross_rebuilt_from_their_wkb(
    shapely_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """shapely 1.x keeps each geometry's GEOS pointer as an int attribute. Copied by attribute,
    the test's polygon reached the program as an address of the grader's, and the program's
    process died of SIGSEGV (GitChameleon 2.0's geopandas problems); now both directions
    rebuild geometries from their WKB, and a wrong geometry still fails."""
    test = textwrap.dedent(
        """
        from shapely.geometry import Point, Polygon
        from sample_x import centre, square
        def test_geometry():
            got = centre(Polygon([(0, 0), (0, 2), (2, 2), (2, 0)]))  # the test's, lent
            assert isinstance(got, Point) and got.equals(Point(1, 1))
            assert square().area == 4.0 and square().equals(square())
        """
    )
    program = """
        from shapely.geometry import Polygon
        def centre(polygon):
            return polygon.centroid
        def square():
            return Polygon([(0, 0), (0, 2), (2, 2), (2, 0)])
    """
    wrong = program.replace("polygon.centroid", "polygon.exterior.interpolate(0)")
    programs = {"right": program, "wrong": wrong}
    outcomes = _right_and_wrong(shapely_env, programs, test, isolation, pools)
    assert outcomes["right"].status is Status.PASSED, outcomes["right"].message
    assert outcomes["wrong"].status is Status.FAILED, outcomes["wrong"].message
    assert "AssertionError" in (outcomes["wrong"].exc_type or "") + outcomes["wrong"].message


def test_pillow_images_cross_as_pillow_makes_them(codec) -> None:
    """An image crosses as its mode, size, pixels, palette, format and plain info, made by
    `Image.frombytes`: copied by attribute, its pixel store stayed a handle and
    `np.array(image)` was empty (GitChameleon 2.0's Pillow problems)."""
    import numpy as np
    from PIL import Image

    rgb = Image.fromarray(np.arange(27, dtype=np.uint8).reshape(3, 3, 3))
    rgb.info["dpi"] = (72, 72)
    rgb.info["opaque"] = object()  # not plain data: left behind
    got = _cross(codec, rgb)
    assert isinstance(got, Image.Image) and got.mode == "RGB" and got.size == (3, 3)
    assert np.array_equal(np.array(got), np.array(rgb)) and got.info == {"dpi": (72, 72)}
    paletted = rgb.convert("P")
    again = _cross(codec, paletted)
    assert again.getpalette() == paletted.getpalette()
    assert again.mode == "P" and np.array_equal(np.array(again), np.array(paletted))


@pytest.mark.parametrize(
    "rest",
    [
        ["RGB", [3, 3], "AAAA", None, None, ["D", []]],  # fewer pixels than its size
        ["XYZ", [1, 1], "AAAA", None, None, ["D", []]],  # no such mode
        ["RGB", [1, -1], "", None, None, ["D", []]],
        ["P", [1, 1], "AA==", [300], None, ["D", []]],  # a palette entry past a byte
        ["RGB", [1, 1], "AAAA", None, 7, ["D", []]],
        ["RGB", [1, 1], "AAAA", None, None, ["L", []]],  # info that is no dict
    ],
)
def test_malformed_images_are_refused(codec, rest) -> None:
    with pytest.raises(codec[0].BadMessage):
        _forged(codec, ["pil", *rest])


@pytest.fixture(scope="module")
def pillow_env() -> Environment:
    return ensure(EnvSpec(version="3.11", pins=("pytest==8.3.4", "pillow==10.4.0")))


def test_pillow_images_cross_with_their_pixels(
    pillow_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    test = textwrap.dedent(
        """
        from PIL import Image
        from sample_x import invert, made, same
        def test_images():
            image = Image.new("RGB", (4, 2), (10, 20, 30))
            got = invert(image)  # the test's image lent, the program's returned
            assert isinstance(got, Image.Image) and got.size == (4, 2)
            assert got.getpixel((3, 1)) == (245, 235, 225)
            # made in the program's process alone, then read by Pillow's C code here
            assert made((4, 2)).tobytes()[-3:] == bytes((245, 235, 225))
            assert same(image) is image  # handed back unchanged: the test's own
        """
    )
    program = """
        from PIL import Image, ImageOps
        def invert(image):
            return ImageOps.invert(image)
        def made(size):
            return Image.new("RGB", size, (245, 235, 225))
        def same(image):
            return image
    """
    wrong = program.replace("ImageOps.invert(image)", "image.copy()")
    programs = {"right": program, "wrong": wrong}
    outcomes = _right_and_wrong(pillow_env, programs, test, isolation, pools)
    assert outcomes["right"].status is Status.PASSED, outcomes["right"].message
    assert outcomes["wrong"].status is Status.FAILED, outcomes["wrong"].message
    assert "(10, 20, 30)" in outcomes["wrong"].message


def test_a_handle_is_an_instance_of_the_library_class_its_object_has(codec) -> None:
    """`isinstance(proxy, K)` holds where the object over there is a K (a matplotlib Axes,
    a plotly trace), for a class the program could subclass itself: an instance of its own
    subclass would pass the same check in one process. Its comparisons and truth stay the
    grader's."""
    _remote, _, lib = codec
    from fakelib import geoms

    geom = geoms.Geom(0x7F3A5C001000)  # a native address: it stays over there
    got = _cross(codec, geom)
    assert type(got) is _remote.Proxy
    assert isinstance(got, geoms.Geom) and issubclass(got.__class__, geoms.Geom)
    assert not isinstance(got, lib.Plain) and not isinstance(got, (dict, int))
    assert got != geom and got == got
    with pytest.raises(TypeError, match="no truth value"):
        bool(got)


@pytest.mark.parametrize(
    "entry",
    [
        ["builtins", "dict"],
        ["builtins", "bool"],  # final: no program could make one
        ["collections", "OrderedDict"],  # the standard library
        ["_pytest.python_api", "ApproxScalar"],  # the test runner steers the verdict
        ["_remote", "Proxy"],
        ["fakelib", "Bag"],  # a dict's value is data: a real one crosses as one
        ["fakelib", "Name"],
        ["fakelib", "Plain.__init__"],  # not a class
        ["fakelib", "Day"],
        ["fakelib_not_loaded", "Widget"],
        ["fakelib", "Widget.__init__"],
        [3, "Widget"],
        ["fakelib", ["Widget"]],
        "fakelib.Widget",
    ],
)
def test_a_handle_claims_no_class_a_program_could_not_make(codec, entry: Any) -> None:
    """The claim comes from the program's process: a class it names is granted only when it
    is loaded here, installed as a package, subclassable, without a builtin base, and not of
    the harness, the test runner or a codec's library; never imported for the asking."""
    _remote, _, lib = codec
    got = _forged(codec, ["H", 7, {"kind": "object", "mro": [entry, ["builtins", "object"]]}])
    assert type(got) is _remote.Proxy and got.__class__ is _remote.Proxy
    assert not isinstance(got, (dict, bool, lib.Bag, lib.Name, lib.Day, lib.Widget))
    assert "fakelib_not_loaded" not in sys.modules


def test_a_forged_claim_of_a_subclassable_library_class_grants_only_isinstance(codec) -> None:
    _remote, _, lib = codec
    message = ["H", 8, {"kind": "object", "mro": [["nowhere", "X"], ["fakelib", "Widget"]]}]
    got = _forged(codec, message)
    assert (
        isinstance(got, lib.Widget) and got.__class__ is lib.Widget and type(got) is not lib.Widget
    )
    with pytest.raises(TypeError):
        bool(got)
    assert got != lib.Widget()
    with pytest.raises(TypeError):
        _ = got < 1


def test_a_librarys_sentinels_cross_as_the_receivers_own(codec) -> None:
    """`x is _UNSET` in a library's code (falcon's media, numpy's `_NoValue`): a library's
    stateless global that only its identity distinguishes crosses by its name, and the
    receiver takes its own; a fresh `object()` of the program's is not one of them."""
    _remote, _, lib = codec
    assert _cross(codec, lib.UNSET) is lib.UNSET and _cross(codec, lib.MISSING) is lib.MISSING
    holder = _cross(codec, lib.Plain(lib.UNSET, [lib.MISSING]))
    assert type(holder) is lib.Plain and holder.a is lib.UNSET and holder.b[0] is lib.MISSING
    assert type(_cross(codec, object())) is _remote.Proxy
    registry = _cross(codec, lib.REGISTRY)  # state of its own: a copy, as any value
    assert type(registry) is lib.Widget and registry is not lib.REGISTRY


@pytest.mark.parametrize(
    "named",
    [["fakelib", "Plain"], ["fakelib", "REGISTRY"], ["fakelib", "nothing"], ["os", "sep"],
     ["fakelib_not_loaded", "UNSET"], [1, "UNSET"]],
)  # fmt: skip
def test_a_global_named_wrongly_is_what_came_with_it(codec, named: list[Any]) -> None:
    """Only a pinned library's sentinel, loaded here, is taken by its name; anything else the
    program names decodes as the handle it sent with it, and nothing is imported."""
    _remote = codec[0]
    handle = ["H", 5, {"kind": "object", "type": ["builtins", "object"]}]
    got = _forged(codec, ["G", *named, handle])
    assert type(got) is _remote.Proxy and "fakelib_not_loaded" not in sys.modules


@pytest.mark.parametrize(
    "message", [["G", "fakelib", "UNSET"], ["G", "fakelib", "UNSET", ["L", []]], ["G", "fakelib"]]
)
def test_malformed_globals_are_refused(codec, message: list[Any]) -> None:
    with pytest.raises(codec[0].BadMessage):
        _forged(codec, message)


def test_a_context_manager_of_a_library_stays_where_it_is_entered(codec) -> None:
    """Entering a Flask request context, a client or a session is done to the process that
    has it: a copy entered in the grader would leave the program's code outside it."""
    _remote, _, lib = codec
    got = _cross(codec, lib.Session())
    assert type(got) is _remote.Proxy and isinstance(got, lib.Session)
    assert type(_cross(codec, lib.Widget())) is lib.Widget  # its base, no context manager
    forged = ["V", "fakelib", "Session", "object", None, [["parts", ["L", [1]]]], []]
    assert type(_forged(codec, forged)) is _remote.RefusedValue


def test_the_programs_own_objects_stay_in_its_process(codec, tmp_path: Path) -> None:
    """A library object a global of the program's module holds (`app = Flask(...)`) is the
    one the program's functions reach: the test gets that one (a handle), not a copy whose
    configuration the program would never see. One that compares by content, or that no
    global holds, is still a copy."""
    _remote, _, lib = codec
    sys.path.insert(0, str(INSIDE))
    import _trusted

    main = ModuleType("__main__")
    main.__file__ = str(tmp_path / "program.py")
    (tmp_path / "helper_mod.py").write_text("")
    sys.path.insert(0, str(tmp_path))
    try:
        import helper_mod

        app, plain, other = lib.Widget(), lib.Plain(1, 2), lib.Widget()
        main.app, main.plain, helper_mod.kept = app, plain, other
        program = _remote.Endpoint(
            None, trusting=True, serve_policy=_trusted._ProgramPolicy(str(tmp_path), main)
        )
        grader = _remote.Endpoint(None, trusting=False)
        for value in (app, other):  # a global of `__main__`, of a module of the program's
            got = grader.decode(program.encode(value))
            assert type(got) is _remote.Proxy and isinstance(got, lib.Widget)
        assert type(grader.decode(program.encode(plain))) is lib.Plain
        assert type(grader.decode(program.encode(lib.Widget()))) is lib.Widget
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(INSIDE))
        sys.modules.pop("helper_mod", None)


def test_a_handle_is_an_instance_of_its_class_in_the_grader(
    pillow_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """A Pillow drawing context holds Pillow's C object: it stays in the program's process,
    and the test's `isinstance` of it holds (GitChameleon 2.0's Axes and plotly traces)."""
    test = textwrap.dedent(
        """
        from PIL import Image, ImageDraw
        from sample_x import drawer
        def test_drawer():
            d = drawer(Image.new("RGB", (4, 2)))
            assert isinstance(d, ImageDraw.ImageDraw)
            assert d.mode == "RGB"
        """
    )
    program = """
        from PIL import ImageDraw
        def drawer(image):
            return ImageDraw.Draw(image)
    """
    subclass = """
        from PIL import ImageDraw
        class Mine(ImageDraw.ImageDraw):
            pass
        def drawer(image):
            return Mine(image)
    """
    wrong = program.replace("ImageDraw.Draw(image)", "type('ImageDraw', (), {'mode': 'RGB'})()")
    programs = {"right": program, "subclass": subclass, "wrong": wrong}
    outcomes = _right_and_wrong(pillow_env, programs, test, isolation, pools)
    assert outcomes["right"].status is Status.PASSED, outcomes["right"].message
    assert outcomes["subclass"].status is Status.PASSED, outcomes["subclass"].message
    assert outcomes["wrong"].status is Status.FAILED, outcomes["wrong"].message
    assert "isinstance" in outcomes["wrong"].message


@pytest.fixture(scope="module")
def flask_env() -> Environment:
    return ensure(EnvSpec(version="3.11", pins=("pytest==8.3.4", "flask==3.0.0")))


def test_a_flask_app_is_the_programs_own(
    flask_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """The test enters a request context of the program's app and calls its view there, as
    GitChameleon 2.0's Flask problems do: the app and the context stay in the program's
    process, where its view runs inside that context; the test's client reaches its routes."""
    test = textwrap.dedent(
        """
        import json
        import flask
        from sample_x import app, data
        def test_view():
            assert isinstance(app, flask.Flask)
            with app.test_request_context():
                response = data([3, 1, 3])
                assert json.loads(response.get_data(as_text=True)) == {"numbers": [1, 3]}
            client = app.test_client()
            assert client.get("/hello").get_data(as_text=True) == "hello"
        """
    )
    program = """
        import flask
        app = flask.Flask(__name__)
        @app.route("/hello")
        def hello():
            return "hello"
        def data(values):
            return flask.jsonify({"numbers": sorted(set(values))})
    """
    wrong = program.replace("sorted(set(values))", "list(values)")
    programs = {"right": program, "wrong": wrong}
    outcomes = _right_and_wrong(flask_env, programs, test, isolation, pools)
    assert outcomes["right"].status is Status.PASSED, outcomes["right"].message
    assert outcomes["wrong"].status is Status.FAILED, outcomes["wrong"].message
    assert "[3, 1, 3]" in outcomes["wrong"].message


def test_a_library_exception_class_the_program_names_is_the_graders_own(
    flask_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """The program's `error404 = werkzeug.exceptions.NotFound` (GitChameleon 2.0's Flask
    problems) is the grader's own NotFound, which the program's raised NotFound crosses as, so
    `pytest.raises(error404)` catches it; a wrong exception still fails."""
    test = textwrap.dedent(
        """
        import pytest
        from sample_x import error404, guard
        def test_guard():
            with pytest.raises(error404):
                guard("../outside")
            assert guard("inside") == "inside"
        """
    )
    program = """
        import werkzeug.exceptions
        error404 = werkzeug.exceptions.NotFound
        def guard(path):
            if path.startswith(".."):
                raise werkzeug.exceptions.NotFound()
            return path
    """
    wrong = program.replace("raise werkzeug.exceptions.NotFound()", "raise ValueError(path)")
    programs = {"right": program, "wrong": wrong}
    outcomes = _right_and_wrong(flask_env, programs, test, isolation, pools)
    assert outcomes["right"].status is Status.PASSED, outcomes["right"].message
    assert outcomes["wrong"].status is Status.FAILED, outcomes["wrong"].message
    assert "ValueError" in (outcomes["wrong"].exc_type or "") + outcomes["wrong"].message


def test_with_state_shared_the_tests_own_app_stays_the_tests(
    flask_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """GitChameleon 2.0's Flask tests make an app of their own and hand it to the program's
    helper, which enters a request context of it and calls the test's view there. By default
    the program gets a copy of the app, and the view, run in the grader, finds no context;
    with state shared (the fallback such an item's reference needs) the app, a global of the
    test's, stays in the grader, where the view runs inside that context."""
    test = textwrap.dedent(
        """
        import json
        import flask
        from sample_x import evaluate
        app2 = flask.Flask("test2")
        @app2.route("/data2")
        def data2(values):
            return flask.jsonify({"numbers": sorted(values)})
        def test_view():
            assert json.loads(evaluate(app2, data2, {3, 1, 2})) == {"numbers": [1, 2, 3]}
        """
    )
    program = textwrap.dedent(
        """
        def evaluate(app, view, values):
            with app.test_request_context():
                return view(values).get_data(as_text=True)
        """
    )
    spec = TestSpec(kind=TestKind.PYTEST, code=test, module="sample_x")
    copied = _execute_in(flask_env, program, spec, isolation, pools)
    assert copied.status is Status.FAILED and "context" in copied.message, copied.message
    shared = spec.sharing_state()
    kept = _execute_in(flask_env, program, shared, isolation, pools)
    assert kept.status is Status.PASSED, kept.message
    wrong = program.replace("view(values)", "view([9])")
    assert _execute_in(flask_env, wrong, shared, isolation, pools).status is Status.FAILED


@pytest.fixture(scope="module")
def geo_env() -> Environment:
    pins = (
        "pytest==8.3.4",
        "geopandas==0.13.0",
        "shapely==2.0.1",
        "pandas==2.0.1",
        "numpy==1.24.4",
    )
    return ensure(EnvSpec(version="3.10", pins=pins))


def test_geopandas_frames_and_series_cross_as_geopandas_makes_them(
    geo_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """A GeoDataFrame or GeoSeries crosses as its pandas frame or series, its active geometry
    column and its CRS, each geometry as WKB (shapely 2's geometries pickle through a module
    function, never taken from the sender): GitChameleon 2.0's spatial joins and buffers."""
    test = textwrap.dedent(
        """
        import geopandas as gpd
        from shapely.geometry import Point, Polygon
        from sample_x import join, series
        def test_geo():
            points = gpd.GeoDataFrame(
                {"id": [1, 2]}, geometry=[Point(1, 1), Point(9, 9)], crs="EPSG:4326"
            )
            square = Polygon([(0, 0), (0, 2), (2, 2), (2, 0)])
            polygons = gpd.GeoDataFrame({"name": ["a"]}, geometry=[square], crs="EPSG:4326")
            got = join(points, polygons)
            assert isinstance(got, gpd.GeoDataFrame) and got.crs == "EPSG:4326"
            assert list(got["id"]) == [1] and got.geometry.iloc[0].equals(Point(1, 1))
            shapes = series()
            assert isinstance(shapes, gpd.GeoSeries) and shapes.crs == "EPSG:3857"
            assert shapes.area.tolist() == [4.0] and len(points) == 2
        """
    )
    program = """
        import geopandas as gpd
        from shapely.geometry import Polygon
        def join(points, polygons):
            return gpd.sjoin(points, polygons, predicate="within")
        def series():
            return gpd.GeoSeries([Polygon([(0, 0), (0, 2), (2, 2), (2, 0)])], crs="EPSG:3857")
    """
    wrong = program.replace('predicate="within"', 'predicate="contains"')
    programs = {"right": program, "wrong": wrong}
    outcomes = _right_and_wrong(geo_env, programs, test, isolation, pools)
    assert outcomes["right"].status is Status.PASSED, outcomes["right"].message
    assert outcomes["wrong"].status is Status.FAILED, outcomes["wrong"].message
    assert "AssertionError" in (outcomes["wrong"].exc_type or "") + outcomes["wrong"].message


@pytest.fixture(scope="module")
def pyplot_env() -> Environment:
    return ensure(EnvSpec(version="3.11", pins=("pytest==8.3.4", "matplotlib==3.8.0")))


def test_pyplot_is_the_programs_state_for_the_test(
    pyplot_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """pyplot's figures and current axes are its process's: shared (an item whose reference
    needs it), the test's `plt.gca()` finds the axes the program drew on, and its
    `plt.close("all")` closes the program's figures, as GitChameleon 2.0's seaborn and
    matplotlib problems expect."""
    test = textwrap.dedent(
        """
        import matplotlib.pyplot as plt
        from matplotlib.axes import Axes
        from sample_x import draw
        def test_draw():
            draw([1, 2, 3])
            ax = plt.gca()
            assert isinstance(ax, Axes) and ax.get_title() == "values"
            assert list(ax.lines[0].get_ydata()) == [1, 2, 3]
            plt.close("all")
            assert plt.get_fignums() == []
            draw([4])
            assert len(plt.gca().lines) == 1  # a new figure: the old one was closed
        """
    )
    program = """
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        def draw(values):
            plt.plot(values)
            plt.title("values")
    """
    wrong = program.replace('plt.title("values")', 'plt.title("other")')
    spec = TestSpec(kind=TestKind.PYTEST, code=test, module="sample_x")
    outcomes = {
        name: _execute_in(
            pyplot_env, textwrap.dedent(source), spec.sharing_state(), isolation, pools
        )
        for name, source in {"right": program, "wrong": wrong}.items()
    }
    assert outcomes["right"].status is Status.PASSED, outcomes["right"].message
    assert outcomes["wrong"].status is Status.FAILED, outcomes["wrong"].message
    assert "other" in outcomes["wrong"].message
    # not shared (an item whose reference does not need it): the test's pyplot is its own
    alone = _execute_in(pyplot_env, textwrap.dedent(program), spec, isolation, pools)
    assert alone.status is Status.FAILED and "'' == 'values'" in alone.message, alone.message


def test_a_live_figures_axes_cross_without_exploring_it_again_and_again(
    pyplot_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """Axes of one figure, each lent, linked by the program (the builtin matplotlib-3.8-02).
    The cyclic copy of an axes was tried in full, and every value within it that was itself
    cyclic tried twice, and so on down: 4 million parts for one axes, ~50 s for the test.
    Now a cyclic copy stops as soon as it is too large: well within a 20 s limit."""
    test = "fig, (a, b, c) = plt.subplots(1, 3)\nlink_x(a, b)\na.set_xlim(2, 5)\n"
    test += "assert tuple(b.get_xlim()) == (2.0, 5.0)\nb.set_xlim(-1, 1)\n"
    test += "assert tuple(a.get_xlim()) == (-1.0, 1.0)\nassert tuple(c.get_xlim()) == (0.0, 1.0)\n"
    program = "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n\n\n"
    program += "def link_x(ax_a, ax_b):\n    ax_b.sharex(ax_a)\n    return ax_b\n"
    spec = TestSpec(kind=TestKind.SCRIPT, code=test)
    limits = Limits(wall_seconds=20, cpu_seconds=20)
    preload = pyplot_env.preload()
    done = execute(pyplot_env.python, program, spec, limits, isolation, warm=pools,
                   preload=preload, libraries=preload)  # fmt: skip
    assert done.status is Status.PASSED, done.message
    unlinked = program.replace("ax_b.sharex(ax_a)", "pass")
    failed = execute(pyplot_env.python, unlinked, spec, limits, isolation, warm=pools,
                     preload=preload, libraries=preload)  # fmt: skip
    assert failed.status is Status.FAILED, failed.message


@pytest.fixture(scope="module")
def pandas_env() -> Environment:
    return ensure(EnvSpec(version="3.9", pins=("pandas==1.3.5",)))


def test_library_sentinels_are_the_graders_own(
    pandas_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """numpy's `_NoValue` and pandas' `no_default` returned by the program are the grader's
    own, so the test's `is` holds (and numpy's and pandas' own checks of them, in the grader);
    a fresh `object()` is not one of them."""
    test = "import numpy as np\nfrom pandas._libs.lib import no_default\n"
    test += "value, marker = defaults()\nassert value is np._NoValue and marker is no_default\n"
    program = "import numpy as np\nfrom pandas._libs import lib\n\n\ndef defaults():\n"
    program += "    return np._NoValue, lib.no_default\n"
    spec = TestSpec(kind=TestKind.SCRIPT, code=test)
    right = _execute_in(pandas_env, program, spec, isolation, pools)
    assert right.status is Status.PASSED, right.message
    wrong = program.replace("lib.no_default", "object()")
    assert _execute_in(pandas_env, wrong, spec, isolation, pools).status is Status.FAILED


def test_categorical_dtypes_keep_their_categories_and_order(
    pandas_env: Environment, isolation: Isolation, pools: WarmPools | None
) -> None:
    """A categorical's dtype crossed as its name, "category": the categories no value uses
    were lost, so the program's groupby of the test's frame had fewer groups (GitChameleon
    2.0's gc2-57) and a returned ordered categorical came back unordered. A date range's
    index lost its freq, which `assert_series_equal` compares."""
    program = textwrap.dedent(
        """
        import pandas as pd
        def sizes(frame):
            return frame.groupby("c").size()
        def ranks():
            return pd.Series(pd.Categorical(["lo"], categories=["lo", "hi"], ordered=True))
        def labels():
            return pd.CategoricalIndex(["b"], categories=["a", "b", "c"])
        def daily():
            return pd.Series([1, 2], index=pd.date_range("2020-01-01", periods=2, freq="D"))
        """
    )
    test = textwrap.dedent(
        """
        import pandas as pd
        frame = pd.DataFrame({"c": pd.Categorical(["a", "a"], categories=["a", "b"])})
        assert sizes(frame).to_dict() == {"a": 2, "b": 0}
        got = ranks()
        assert list(got.cat.categories) == ["lo", "hi"] and got.cat.ordered
        assert list(labels().categories) == ["a", "b", "c"]
        expected = pd.Series([1, 2], index=pd.date_range("2020-01-01", periods=2, freq="D"))
        pd.testing.assert_series_equal(daily(), expected)  # the index's freq compared too
        assert daily().index.freqstr == "D"
        """
    )
    result = _execute_in(
        pandas_env, program, TestSpec(kind=TestKind.SCRIPT, code=test), isolation, pools
    )
    assert result.status is Status.PASSED, result.message
