"""Values of the pinned libraries' own types across the grader's channel (`_remote`).

An instance of a plain class of one of the environment's pinned libraries (packaging's
`Version`, a networkx graph, a sympy expression, a library's enum member) crosses as a copy of
its attributes, so that the test compares real library objects with the library's own code.
Executed by the environment's interpreter (Python 3.6+); no pinbench imports.

What the program's process sends is untrusted, so the receiving side rebuilds the object
without running any code of the class: the class is looked up by name only among the pinned
libraries' installed modules (never the program's, the harness's or the standard library's);
its layout must be what Python gives a class written in Python (no C fields an attribute copy
could leave unset); the instance is allocated by its builtin base, its `__dict__` filled and
its slots set through their member descriptors (no `__new__`, `__init__`, `__setstate__` or
`__setattr__` of the library runs). An object that claims to equal a fresh object of the
grader's own is refused, so no library's "equals anything" helper becomes an answer.

A class from a module that calls native code through ctypes or cffi may keep a native address
in a plain attribute (shapely 1.x keeps its GEOS geometry's pointer as an int): a copy would
make the other process dereference an address the sender chose, in a process whose memory
layout it knows (both are forks of one server). Such a value holding an int that could be an
address (in its attributes or the containers they hold) is never copied by attribute, either
way (lightgbm's `Booster` keeps its pointer in a ctypes object, a handle, and copies). If its
library rebuilds it from data instead (its own `__reduce__` answers the class itself,
plain arguments and a state, and it has its own `__setstate__`: shapely 1.x's geometry is
`(Point, (), its WKB)`), it crosses as those and is rebuilt by the class and `__setstate__`, as
unpickling would, but never by another callable a reduce might name (`pandas.read_pickle`
would run any code). Other such values cross as handles.
"""

import os
import sys

# The harness's own code and its test runner with the runner's dependencies (envs/python/tools.py)
HARNESS_MODULES = ("_runner", "_remote", "_trusted", "_server", "_values", "_pytest", "pytest",
                   "pluggy", "iniconfig", "exceptiongroup", "tomli", "py")  # fmt: skip
_HEAPTYPE = 1 << 9
_BASES = (object, dict, list, set, frozenset, tuple, int, float, str, bytes)
_BASE_NAMES = dict((b, b.__name__) for b in _BASES)
_FILLED = (dict, list, set)  # bases whose content is filled after allocation
_CONSTRUCTED = (frozenset, tuple, int, float, str, bytes)  # allocated with their content
_NATIVE = ("ctypes", "_ctypes", "_cffi_backend")  # modules whose objects reach native code
_libraries = set()
_layouts = {}
_natives = {}
_native_classes = {}
_rebuilders = {}
_roots = []


class NotCopyable(Exception):
    """This object crosses as a handle instead (not a library value, or part of a cycle)."""


def set_libraries(names):
    """The top-level modules of the environment's pinned libraries (from the job)."""
    _libraries.clear()
    _libraries.update(n for n in names or () if isinstance(n, str) and n not in HARNESS_MODULES)


def sentinel(obj):
    """Whether `obj` is a stateless object only its identity distinguishes: a bare `object()`,
    or an instance with no state of a class that compares by identity (a library's `_UNSET`,
    `MISSING`, `NOTHING`). A copy of one is another object, which no `is` check matches."""
    t = type(obj)  # by its type alone: a lazy object (Django's settings) stays untouched
    if t is object:
        return True
    if issubclass(t, type) or callable(obj) or t.__eq__ is not object.__eq__:
        return False
    if any(k.__dict__.get("__slots__") for k in t.__mro__):
        return False
    try:
        state = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return False  # a C type's instance: its state is not visible here
    # a Python class all the way to `object`: no state of C kept where this cannot see it
    return (
        type(state) is dict and not state and all(k.__flags__ & _HEAPTYPE for k in t.__mro__[:-1])
    )


_globals = {}  # id(sentinel) -> (module, name, sentinel) of installed packages' modules
_scanned = set()  # the modules looked at for them
_seen = [0]  # how many modules were loaded when they were last looked at


def named_global(obj):
    """(module, name) of a sentinel that a module of an installed package (not the harness's
    or its test runner's) holds as a global, or None. Modules are looked at once each, when
    the number loaded has changed since (a dictionary lookup per value otherwise)."""
    found = _globals.get(id(obj))
    if found is not None and found[2] is obj:
        return found[0], found[1]
    if len(sys.modules) == _seen[0]:
        return None
    _seen[0] = len(sys.modules)
    for name, module in list(sys.modules.items()):
        if name in _scanned:
            continue
        _scanned.add(name)
        if name.split(".", 1)[0] in HARNESS_MODULES or not installed_module(module):
            continue
        for key, value in list(module.__dict__.items()):
            try:
                if type(key) is str and not key.startswith("__") and sentinel(value):
                    _globals.setdefault(id(value), (name, key, value))
            except Exception:  # a class whose layout cannot be told: not one
                pass
    found = _globals.get(id(obj))
    return (found[0], found[1]) if found is not None and found[2] is obj else None


def global_named(module, name):
    """The sentinel `module.name` of an installed package's module loaded here, or None
    (never imported for the asking)."""
    if not (isinstance(module, str) and isinstance(name, str)):
        return None
    loaded = sys.modules.get(module)
    if module.split(".", 1)[0] in HARNESS_MODULES or not installed_module(loaded):
        return None
    value = loaded.__dict__.get(name)
    return value if value is not None and sentinel(value) else None


def copyable_type(klass):
    """True when instances of `klass` may cross as copies: a class of a pinned library."""
    module = getattr(klass, "__module__", None)
    return isinstance(module, str) and module.split(".", 1)[0] in _libraries


def stateful(klass):
    """A context manager: entering one is what it is for, and that is done to the process
    that has it (a Flask request context the test enters for the program's view functions, a
    test client, a session). Its values cross as handles, unless this codec has its own form
    for them (a Pillow image)."""
    found = _managers.get(klass)
    if found is None:
        mro = getattr(klass, "__mro__", ())
        found = _managers[klass] = any("__enter__" in k.__dict__ for k in mro[:-1])
    return found


_managers = {}  # class -> whether it is a context manager


def layout(klass):
    """(builtin base, slot descriptors) of a class whose instances are plain Python objects,
    or None: a class with fields of C (an extension type, a subclass of one), an exception, a
    metaclass. Checked against a class Python makes with as many slots: same sizes."""
    found = _layouts.get(klass, False)
    if found is not False:
        return found
    found = _layout(klass)
    _layouts[klass] = found
    return found


def _layout(klass):
    if not isinstance(klass, type) or issubclass(klass, (BaseException, type)):
        return None
    if not _named(klass):
        return None
    base, slots = None, []
    for k in klass.__mro__:
        if k.__flags__ & _HEAPTYPE:
            declared = k.__dict__.get("__slots__", ())
            if isinstance(declared, str):
                declared = (declared,)
            for name in declared:
                if not isinstance(name, str):
                    return None
                if name in ("__dict__", "__weakref__"):
                    continue
                if name.startswith("__") and not name.endswith("__"):
                    name = "_%s%s" % (k.__name__.lstrip("_"), name)
                member = k.__dict__.get(name)  # its own: a class attribute may shadow it
                if type(member).__name__ != "member_descriptor":
                    return None
                slots.append(member)
        elif k in _BASE_NAMES:
            base = base or k
        else:
            return None
    extra = ["__dict__"] if klass.__dictoffset__ else []
    extra += ["__weakref__"] if klass.__weakrefoffset__ else []
    try:
        probe_slots = ["s%d" % i for i in range(len(slots))] + extra
        probe = type("probe", (base,), {"__slots__": tuple(probe_slots)})
    except TypeError:  # slots a builtin base does not allow: not a class of Python's
        return None
    if (probe.__basicsize__, probe.__itemsize__) != (klass.__basicsize__, klass.__itemsize__):
        return None
    return base, tuple(slots)


def _named(klass):
    """Whether the receiver finds `klass` by its name: not a class made at run time (sympy's
    GF(5) elements are of a class its factory makes), which would arrive as a refused value
    where a handle serves."""
    module = getattr(klass, "__module__", None)
    return library_class(module, getattr(klass, "__qualname__", None), True) is klass


def calls_native_code(module_name, depth=1):
    """True when the module binds ctypes or cffi: the modules, their classes and functions, a
    loaded native library, a function pointer; or (`depth`) an object of a class whose own
    module does (shapely 1.x's `lgeos`, whose attributes are GEOS's functions)."""
    found = _natives.get((module_name, depth))
    if found is None:
        try:
            found = _binds_native(module_name, depth)
        except Exception:  # a module we cannot read this way: its classes copy as before
            found = False
        _natives[module_name, depth] = found
    return found


def _binds_native(module_name, depth):
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    if module is None:
        return False
    try:
        names = dict(object.__getattribute__(module, "__dict__"))
    except (AttributeError, TypeError):
        return False
    for value in names.values():
        # Only through type(value) and type's own lookups: a lazy object (Django's settings)
        # would run its setup if asked for its `__class__` or any attribute.
        kind = type(value)
        if kind.__name__ == "module":
            origin = getattr(value, "__name__", None)
        elif issubclass(kind, type):
            origin = type.__getattribute__(value, "__module__")
        elif kind.__name__ in _FUNCTION_TYPES:
            origin = getattr(value, "__module__", None)
        else:
            origin = kind.__module__
            if depth and origin not in _NATIVE and origin != module_name:
                if calls_native_code(origin, depth - 1):
                    return True
                continue
        if isinstance(origin, str) and origin.split(".", 1)[0] in _NATIVE:
            return True
    return False


_FUNCTION_TYPES = ("function", "builtin_function_or_method")


def state(obj):
    """(base, content, attributes, slots) of a library value, each still to be encoded (slots
    as (index in the layout, value)); raises NotCopyable for one that crosses as a handle."""
    klass = type(obj)
    shape = layout(klass)
    if shape is None:
        raise NotCopyable()
    base, slots = shape
    attributes = []
    if klass.__dictoffset__:
        try:
            own = object.__getattribute__(obj, "__dict__")
        except AttributeError:
            own = {}
        if type(own) is not dict or not all(type(k) is str for k in own):
            raise NotCopyable()
        attributes = list(own.items())
    values = []
    for index, member in enumerate(slots):
        try:
            values.append((index, member.__get__(obj, klass)))
        except AttributeError:  # an unset slot stays unset
            pass
    if native(klass) and _holds_address([v for _, v in attributes] + [v for _, v in values]):
        raise NotCopyable()
    return _BASE_NAMES[base], _content(obj, base), attributes, values


def native(klass):
    """Whether a class of `klass`'s MRO comes from a module that calls native code through
    ctypes or cffi: its plain attributes may hold native addresses."""
    found = _native_classes.get(klass)
    if found is None:
        found = _native_classes[klass] = any(
            k.__flags__ & _HEAPTYPE and calls_native_code(k.__module__) for k in klass.__mro__
        )
    return found


_LOWEST, _HIGHEST = 1 << 12, 1 << 57  # where a process's native addresses lie (x86-64, arm64)


def _holds_address(values, depth=0):
    """Whether an int that could be a native address is among `values`, or in the lists,
    tuples, sets and dicts they hold (a few levels down)."""
    for value in values:
        t = type(value)
        if t is int and _LOWEST <= value < _HIGHEST:
            return True
        if depth < 4 and t in (list, tuple, set, frozenset):
            if _holds_address(value, depth + 1):
                return True
        if depth < 4 and t is dict:
            if _holds_address(list(value.keys()) + list(value.values()), depth + 1):
                return True
    return False


def reduced(obj):
    """(arguments, state) with which `obj`'s class rebuilds it (`rebuilds_itself`); raises
    NotCopyable when it does not say so (its reduce names another callable, no state)."""
    klass = type(obj)
    if not rebuilds_itself(klass):
        raise NotCopyable()
    try:
        found = obj.__reduce_ex__(2)
    except Exception:
        raise NotCopyable()
    if not (type(found) is tuple and 2 <= len(found) <= 3 and found[0] is klass):
        raise NotCopyable()
    if len(found) < 3 or found[2] is None or not inert((found[1], found[2])):
        raise NotCopyable()
    return found[1], found[2]


_INERT = (type(None), bool, int, float, complex, str, bytes)


def inert(value, depth=0):
    """Builtin data only (no object that could cross as a handle), at most 16 deep."""
    t = type(value)
    if t in _INERT:
        return True
    if depth > 16:
        return False
    if t is tuple or t is list:
        return all(inert(v, depth + 1) for v in value)
    if t is dict:
        return all(inert(k, depth + 1) and inert(v, depth + 1) for k, v in value.items())
    return False


def rebuilds_itself(klass):
    """True for a class of a pinned library whose instances are not plain (`layout`) or may
    hold native addresses (`native`), and whose library rebuilds them from data: a class of
    its MRO defines `__reduce__` (or `__reduce_ex__`), one `__setstate__`, both its own."""
    found = _rebuilders.get(klass)
    if found is None:
        found = _rebuilders[klass] = _rebuilds_itself(klass)
    return found


def _rebuilds_itself(klass):
    if not isinstance(klass, type) or issubclass(klass, BaseException):
        return False
    if layout(klass) is not None and not native(klass):
        return False
    if not _named(klass):
        return False
    reduces = sets = False
    for k in klass.__mro__:
        own = k.__dict__
        if not reduces and ("__reduce__" in own or "__reduce_ex__" in own):
            if not copyable_type(k):
                return False
            reduces = True
        if not sets and "__setstate__" in own:
            if not copyable_type(k):
                return False
            sets = True
    return reduces and sets


def rebuild_reduced(klass, arguments, state):
    """An instance of `klass` made by the class from `arguments`, then given `state` by its
    `__setstate__`: what unpickling its reduce does. ValueError when the class does not
    rebuild itself so, or refuses this data."""
    if not rebuilds_itself(klass):
        raise ValueError("not a class its library rebuilds from data")
    if type(arguments) is not tuple or not inert((arguments, state)):
        raise ValueError("arguments or state that are not plain data")
    try:
        obj = klass(*arguments)
        klass.__setstate__(obj, state)
    except Exception as exc:
        raise ValueError("%s refused it: %s" % (klass.__name__, type(exc).__name__))
    return obj


def _content(obj, base):
    """What a builtin base holds, as a plain builtin, read by the base's own methods."""
    if base is object:
        return None
    if base is dict:
        return dict(dict.items(obj))
    if base in (list, set, frozenset):
        return base(base.__iter__(obj))
    return base.__getnewargs__(obj)[0]  # int, float, str, bytes, tuple


def library_class(module, qualname, may_import):
    """The class `module.qualname` of a pinned library, found among installed modules only;
    None for anything else. `may_import`: the program's side may import it (the grader looks
    only at modules already loaded, or loads the pinned library's own submodule)."""
    if not (isinstance(module, str) and isinstance(qualname, str)):
        return None
    parts = module.split(".")
    if not all(p.isidentifier() for p in parts) or parts[0] not in _libraries:
        return None
    if not may_import and not installed_module(sys.modules.get(parts[0])):
        return None  # the grader imports no top-level module by a name the program chose
    loaded = sys.modules.get(module)
    if loaded is None:
        try:
            __import__(module)
        except Exception:
            return None
        loaded = sys.modules.get(module)
    if not may_import and not installed_module(loaded):
        return None
    klass = loaded
    for part in qualname.split("."):
        if not part.isidentifier():
            return None
        klass = getattr(klass, part, None)
    if not isinstance(klass, type) or klass.__module__ != module or klass.__qualname__ != qualname:
        return None
    return None if stateful(klass) else klass  # never a copy of a context manager


def installed_module(module):
    """True for a module loaded from the environment's site-packages (read-only to programs)."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return False
    if not _roots:
        for entry in sys.path:
            tail = os.path.basename(entry.rstrip(os.sep)) if isinstance(entry, str) else ""
            if tail in ("site-packages", "dist-packages"):
                _roots.append(os.path.realpath(entry) + os.sep)
    real = os.path.realpath(path)
    return any(real.startswith(root) for root in _roots)


def preallocated(base_name):
    """Whether a value of this builtin base is allocated before its parts are decoded (so
    they may refer back to it); a tuple, str, int... is made with its content."""
    return base_name in ("object", "dict", "list", "set")


def allocate(klass, base_name):
    """An empty instance of `klass`, to be filled (`fill`); ValueError when `klass` is no
    plain class of that base."""
    shape = layout(klass)
    if shape is None or _BASE_NAMES[shape[0]] != base_name or shape[0] in _CONSTRUCTED:
        raise ValueError("not a plain class of the library")
    return shape[0].__new__(klass)


def rebuild(klass, base_name, content, attributes, slots):
    """An instance of `klass` with these attributes, made without running the class's code;
    ValueError when the description does not fit the class."""
    shape = layout(klass)
    if shape is None or _BASE_NAMES[shape[0]] != base_name:
        raise ValueError("not a plain class of the library")
    if shape[0] not in _CONSTRUCTED:
        obj = allocate(klass, base_name)
        fill(obj, klass, content, attributes, slots)
        return obj
    if type(content) is not shape[0]:
        raise ValueError("content of the wrong type")
    obj = shape[0].__new__(klass, content)
    fill(obj, klass, None, attributes, slots)
    return obj


def fill(obj, klass, content, attributes, slots):
    """Give an instance made by `allocate` (or with its content) its content, attributes and
    slots, through its builtin base's and its slots' own methods only."""
    base, members = layout(klass)
    if native(klass) and _holds_address([v for _, v in attributes] + [v for _, v in slots]):
        raise ValueError("an address for native code")
    if base not in _CONSTRUCTED:
        if base is dict:
            dict.update(obj, content)
        elif base is list:
            list.extend(obj, content)
        elif base is set:
            set.update(obj, content)
    if attributes:
        if not klass.__dictoffset__ or not all(type(k) is str for k, _ in attributes):
            raise ValueError("attributes the class does not have")
        object.__getattribute__(obj, "__dict__").update(attributes)
    for index, value in slots:
        if type(index) is not int or not 0 <= index < len(members):
            raise ValueError("a slot the class does not have")
        members[index].__set__(obj, value)
    return obj


class _Fresh(object):
    __slots__ = ()


def equals_anything(obj):
    """True when `obj` says it equals an object it cannot know (a matcher, `ANY`). An empty
    array-like's elementwise answers (nothing to compare: an empty geopandas GeometryArray,
    as an empty numpy array) are no such claim."""
    try:
        return _truth(obj == _Fresh()) is True or _truth(obj != _Fresh()) is False
    except Exception:
        return False


def _truth(answer):
    """bool(answer), or None for an elementwise comparison of nothing."""
    if type(answer) is not bool:
        try:
            if len(answer) == 0:
                return None
        except Exception:
            pass
    return bool(answer)


def enum_member(klass, name):
    """The member `name` of a library enum class, or None."""
    enum = sys.modules.get("enum")
    if enum is None or not issubclass(klass, enum.Enum) or not isinstance(name, str):
        return None
    members = klass.__dict__.get("_member_map_")
    return members.get(name) if isinstance(members, dict) else None
