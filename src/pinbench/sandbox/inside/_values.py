"""Values of the pinned libraries' own types across the grader's channel (`_remote`).

An instance of a plain class of one of the environment's pinned libraries (packaging's
`Version`, a networkx graph, a sympy expression, a library's enum member) crosses as a copy of
its attributes, so that the test compares real library objects with the library's own code.
Executed by the environment's interpreter (Python 3.6+); no pinbench imports.

What the program's process sends is untrusted, so the receiving side rebuilds the object
without running any code of the class: the class is looked up by name only among the pinned
libraries' installed modules (never the program's, the harness's or the standard library's);
its layout must be what Python gives a class written in Python (no C fields an attribute copy
could leave unset); the instance is allocated by its builtin base, its `__dict__` filled and its
slots set through their member descriptors (no `__new__`, `__init__`, `__setstate__` or
`__setattr__` of the library runs); and an object that claims to equal a fresh object of the
grader's own is refused, so no library's "equals anything" helper becomes an answer.
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
_libraries = set()
_layouts = {}
_roots = []


class NotCopyable(Exception):
    """This object crosses as a handle instead (not a library value, or part of a cycle)."""


def set_libraries(names):
    """The top-level modules of the environment's pinned libraries (from the job)."""
    _libraries.clear()
    _libraries.update(n for n in names or () if isinstance(n, str) and n not in HARNESS_MODULES)


def copyable_type(klass):
    """True when instances of `klass` cross as copies: a class of a pinned library."""
    module = getattr(klass, "__module__", None)
    return isinstance(module, str) and module.split(".", 1)[0] in _libraries


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
    return _BASE_NAMES[base], _content(obj, base), attributes, values


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
    if not may_import and not _installed(sys.modules.get(parts[0])):
        return None  # the grader imports no top-level module by a name the program chose
    loaded = sys.modules.get(module)
    if loaded is None:
        try:
            __import__(module)
        except Exception:
            return None
        loaded = sys.modules.get(module)
    if not may_import and not _installed(loaded):
        return None
    klass = loaded
    for part in qualname.split("."):
        if not part.isidentifier():
            return None
        klass = getattr(klass, part, None)
    if not isinstance(klass, type) or klass.__module__ != module or klass.__qualname__ != qualname:
        return None
    return klass


def _installed(module):
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


def rebuild(klass, base_name, content, attributes, slots):
    """An instance of `klass` with these attributes, made without running the class's code;
    ValueError when the description does not fit the class."""
    shape = layout(klass)
    if shape is None or _BASE_NAMES[shape[0]] != base_name:
        raise ValueError("not a plain class of the library")
    base, members = shape
    if base in _CONSTRUCTED:
        if type(content) is not base:
            raise ValueError("content of the wrong type")
        obj = base.__new__(klass, content)
    else:
        obj = base.__new__(klass)
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
    """True when `obj` says it equals an object it cannot know (a matcher, `ANY`)."""
    try:
        return bool(obj == _Fresh()) or not bool(obj != _Fresh())
    except Exception:
        return False


def enum_member(klass, name):
    """The member `name` of a library enum class, or None."""
    enum = sys.modules.get("enum")
    if enum is None or not issubclass(klass, enum.Enum) or not isinstance(name, str):
        return None
    members = klass.__dict__.get("_member_map_")
    return members.get(name) if isinstance(members, dict) else None
