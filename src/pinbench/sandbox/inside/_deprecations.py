"""Deprecation signals the pinned libraries raise while the program's code runs: Python's
`DeprecationWarning`, `PendingDeprecationWarning` and `FutureWarning`, and any warning class
with "Deprecation" in its class hierarchy's names (numpy's `VisibleDeprecationWarning` is a
`UserWarning`). Executed by the environment's interpreter (Python 3.6+); no pinbench imports.

`install()` runs before any library is imported (a warm server installs it before it
preloads). Signals are recorded *before* any filter applies, so a program's
`filterwarnings("ignore")` or `catch_warnings()` does not hide them, by two routes:

- warnings issued from Python reach the wrappers of `warnings.warn` and `warn_explicit` (a
  library's `from warnings import warn` binds the wrapper too);
- warnings issued from C (numpy's `ndarray.tostring()`, `PyErr_WarnEx`) never pass through
  Python's `warn`, and an "ignore" filter stops them before they are shown. CPython's C code
  walks `warnings.filters` for every warning, calling each entry's message pattern and
  category test; the recorder's own entry, kept first in the list, has a pattern that keeps
  the text and a category whose `__subclasscheck__` records the signal, and never matches, so
  the filters the program and the libraries set still decide what happens to the warning.
  Whatever changes the filters through `warnings` (`simplefilter`, `filterwarnings`,
  `resetwarnings`, `catch_warnings`) calls `_filters_mutated`, which puts the entry first again.
  `_showwarnmsg` (what C shows warnings through) is watched as well.

A warning counts when the program's code is on the stack and did not issue it itself: a
Python-level warning whose issuing frame is the program's is the program's own; one raised by
C code is the library's even when the C function was called from the program's line.
Library import-time warnings happen before watching starts (the pinned libraries are
imported first).

`tampered()` says whether anything the recorder reads changed since `watch()`: the warnings
entry points and filter list, this module's globals, its functions' code, defaults and
closures, the builtins and `sys` functions they use, its recording state. Such a sample is
never reported as a clean pass. The check runs in the program's process, so it is
tamper-evident, not unforgeable: a program that rewrites the check itself (or uses ctypes)
can hide its signals; every signal recorded before that has already left the process."""

import builtins
import re
import sys
import types
import warnings

CATEGORIES = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
MAX_FOUND = 50
MAX_MESSAGE = 300
_NAME = re.compile(
    r"[`'\"]?((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:\(\))?)[`'\"]? "
    r"(?:is|are|was|has been|have been) (?:deprecated|removed|renamed)"
)
_QUOTED = re.compile(r"[`'\"]((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:\(\))?)[`'\"]")

_OWN_FILE = (lambda: None).__code__.co_filename
_state = {
    "sources": None,  # {filename: last line of the program's code there, or 0 for all}
    "lines": {},  # {filename: the file's lines} (to name the program's call)
    "found": [],
    "keys": set(),
    "emit": None,
    "busy": False,
    "hooks": None,
    "text": None,  # the message the C filter walk is matching (see _Text)
    "print": None,  # the fingerprint taken at watch()
}


class _Text(object):
    """The recorder's filter entry's message pattern: matches every text, keeps it for the
    category test that CPython runs next on the same entry."""

    __slots__ = ()

    def match(self, text):
        _state["text"] = text
        return True


class _Observer(object):
    """The recorder's filter entry's category: records the warning being filtered, and is
    never a superclass of it (the entry never applies)."""

    __slots__ = ()

    __name__ = "PinbenchDeprecationRecorder"  # for code that lists the filters' categories

    def __subclasscheck__(self, category):
        text, _state["text"] = _state["text"], None
        if text is None:  # not CPython's filter walk (which matched our pattern just now)
            return False
        frame = sys._getframe(1)
        if frame is not None and frame.f_code.co_filename != _OWN_FILE:
            _note(text, category, frame, True)  # not through our `warn`: from C
        return False

    def __repr__(self):
        return "<pinbench deprecation recorder>"


_ENTRY = ("ignore", _Text(), _Observer(), None, 0)


class _Warnings(types.ModuleType):
    """The `warnings` module's class once installed: CPython's C code reads `warnings.filters`
    for every warning it issues, and the read puts the recorder's entry first again, so an
    entry put in front of it without `_filters_mutated` (`warnings.filters.insert(0, ...)`)
    cannot hide the next warning."""

    def __getattribute__(self, name):
        value = types.ModuleType.__getattribute__(self, name)
        if name == "filters" and type(value) is list and not (value and value[0] is _ENTRY):
            _first_in(value)
        return value


def install():
    """Wrap the entry points and put the recorder's filter entry first (once per process; a
    warm server's children inherit them)."""
    if _state["hooks"] is not None:
        return
    real_warn, real_explicit = warnings.warn, warnings.warn_explicit
    real_show = getattr(warnings, "_showwarnmsg", None)
    real_mutated = warnings._filters_mutated

    def warn(message, category=None, stacklevel=1, source=None, **kwargs):
        _note(message, category, sys._getframe(1), False)
        return real_warn(message, category, stacklevel + 1, source, **kwargs)

    def warn_explicit(message, category, *args, **kwargs):
        _note(message, category, sys._getframe(1), False)
        return real_explicit(message, category, *args, **kwargs)

    def _filters_mutated():
        result = real_mutated()
        _first()
        return result

    hooks = {"warn": warn, "warn_explicit": warn_explicit, "_filters_mutated": _filters_mutated}
    if real_show is not None:  # 3.6+: what warnings raised from C are shown through

        def _showwarnmsg(msg):
            caller = sys._getframe(1)
            from_c = caller is None or caller.f_code.co_filename != _OWN_FILE
            _note(msg.message, msg.category, caller, from_c)
            return real_show(msg)

        hooks["_showwarnmsg"] = _showwarnmsg
    for name, hook in hooks.items():
        setattr(warnings, name, hook)
    warnings.__class__ = _Warnings
    _state["hooks"] = (warnings, dict(hooks), _state)
    _first()
    real_mutated()
    _take_checks()


def _first():
    """Put the recorder's entry first in the filter list `warnings` has now."""
    filters = getattr(warnings, "filters", None)
    if type(filters) is list:
        _first_in(filters)


def _first_in(filters):
    if filters and filters[0] is _ENTRY:
        return
    for i in range(len(filters) - 1, -1, -1):
        if filters[i] is _ENTRY:
            del filters[i]
    filters.insert(0, _ENTRY)


def watch(sources, lines=None, emit=None):
    """From now on, record the signals raised under the program's code: `sources` maps a
    code file name to the last line of the program in it (0: the whole file)."""
    _state.update(sources=dict(sources), lines=dict(lines or {}), emit=emit)
    _state["found"] = []
    _state["keys"] = set()
    _first()
    _state["print"] = _dynamic()


def watching():
    return _state["sources"] is not None


def found():
    return list(_state["found"])


def tampered():
    """Whether the program changed what records the signals (a sample that did is never a
    clean pass: its signals may have been hidden)."""
    return _state["busy"] or _broken()


def _broken():
    hooks = _state["hooks"]
    if hooks is None:
        return False
    module, wrappers, state = hooks
    if sys.modules.get("warnings") is not module or state is not _state:
        return True
    if type(module) is not _Warnings:
        return True
    space = types.ModuleType.__getattribute__(module, "__dict__")
    if any(space.get(name) is not hook for name, hook in wrappers.items()):
        return True
    if _state["print"] is None:
        return False
    filters = getattr(module, "filters", None)  # as C reads it: the entry put first again
    if type(filters) is not list or not filters or filters[0] is not _ENTRY:
        return True
    return _changed() or _dynamic() != _state["print"]


_MISSING = object()
_KEYED = []  # (mapping, key, the object found there at install)
_ATTRS = []  # (object, attribute, the object found there at install)


def _changed():
    missing = _MISSING
    return any(where.get(key, missing) is not was for where, key, was in _KEYED) or any(
        getattr(where, name, missing) is not was for where, name, was in _ATTRS
    )


def _take_checks():
    """What the recorder reads, as installed: this module's globals; its functions' and
    classes' code, defaults, closures and attributes; the builtins and the `sys` and `warnings`
    attributes their code names (`warnings.filters` apart: catch_warnings() rightly replaces
    the list while it lasts, and the entry's place in it is checked on its own)."""
    own = globals()
    checks = [
        (own, k, v) for k, v in own.items() if k not in ("__warningregistry__", "__builtins__")
    ]
    functions = [v for v in own.values() if isinstance(v, types.FunctionType)]
    functions += list(_state["hooks"][1].values())
    for cls in (_Text, _Observer, _Warnings):
        space = vars(cls)
        checks += [(space, k, v) for k, v in space.items()]
        functions += [v for v in space.values() if isinstance(v, types.FunctionType)]
    names = set()
    while functions:
        fn = functions.pop()
        for attr in ("__code__", "__defaults__", "__kwdefaults__"):
            checks.append((fn, attr, getattr(fn, attr)))
        for cell in fn.__closure__ or ():
            checks.append((cell, "cell_contents", cell.cell_contents))
            if (
                isinstance(cell.cell_contents, types.FunctionType)
                and cell.cell_contents.__code__.co_filename == _OWN_FILE
            ):
                functions.append(cell.cell_contents)
        names.update(_names(fn.__code__))
    table = vars(builtins)
    names = sorted(n for n in names if not n.startswith("__"))  # dunders: fresh bound methods
    checks += [(table, n, table[n]) for n in names if n in table and n not in own]
    space = vars(sys)
    checks += [(space, n, space[n]) for n in names if n in space]
    space = types.ModuleType.__getattribute__(warnings, "__dict__")
    checks += [(space, n, space[n]) for n in names if n != "filters" and n in space]
    checks += [(_ENTRY[1], "__class__", _Text), (_ENTRY[2], "__class__", _Observer)]
    mappings = (dict, types.MappingProxyType)
    _KEYED[:] = [c for c in checks if type(c[0]) in mappings]
    _ATTRS[:] = [c for c in checks if type(c[0]) not in mappings]


def _dynamic():
    """The recording state's objects and sizes."""
    parts = [(k, id(v)) for k, v in sorted(_state.items()) if k not in ("busy", "text", "print")]
    parts += [len(_state["found"]), len(_state["keys"]), tuple(sorted(_state["sources"] or ()))]
    return tuple(parts)


def _names(code):
    """Every global and attribute name a code object (and the code nested in it) uses."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.update(_names(const))
    return names


def _deprecation(category):
    """A class of deprecation signal: Python's three, or a class named for deprecation."""
    if not isinstance(category, type) or not issubclass(category, Warning):
        return False
    if issubclass(category, CATEGORIES):
        return True
    return any("Deprecation" in getattr(c, "__name__", "") for c in category.__mro__)


def _note(message, category, frame, from_c):
    entry = _entry(message, category, frame, from_c)
    if entry is not None and _state["emit"] is not None:
        _state["emit"](entry)  # not busy any more: sending checks for tampering


def _entry(message, category, frame, from_c):
    """Record the signal, if it is one under the program's code; the entry, or None."""
    if _state["sources"] is None or _state["busy"]:
        return None
    _state["busy"] = True
    try:
        if category is None:
            category = type(message) if isinstance(message, Warning) else UserWarning
        if not _deprecation(category):
            return None
        line = _program_line(frame, from_c)
        if line is None:
            return None
        text = str(message)[:MAX_MESSAGE]
        key = (category.__name__, text, line[0], line[1])
        if key in _state["keys"] or len(_state["found"]) >= MAX_FOUND:
            return None
        intact = _state["print"] is not None and not _broken()
        _state["keys"].add(key)
        entry = {
            "category": category.__name__,
            "message": text,
            "api": api_named(text),
            "line": line[1],
            "code": line[2],
        }
        _state["found"].append(entry)
        if _state["print"] is not None:  # the state grew: no tampering, unless there was some
            _state["print"] = _dynamic() if intact else ("tampered",)
        return entry
    except Exception:  # a message whose text cannot be taken: the program's run goes on
        return None
    finally:
        _state["busy"] = False


_WARN_CALL = re.compile(r"\bwarn(?:_explicit)?\s*\(")


def _names_warn(lines, number):
    """Whether the program's line calls `warn`; before 3.8 a call's line is that of its last
    argument, so the few lines above it are read too."""
    first = number - 1 if sys.version_info >= (3, 8) else max(number - 6, 0)
    return any(_WARN_CALL.search(line) for line in lines[first:number])


def _program_line(frame, from_c):
    """(file, line, code) of the innermost frame of the program's code above the warning's
    issuer, unless the program issued it itself; None when the program is not on the stack.
    A Python-level warning whose first frame is the program's is the program's own when that
    line names `warn` (a compiled library's function, Cython's, has no frame: its `warn` seems
    to come from the program's line that called it); C code is never the program's."""
    sources = _state["sources"]
    first = not from_c
    while frame is not None and frame.f_code.co_filename == _OWN_FILE:
        frame = frame.f_back  # a hook's frame (warn calls _showwarnmsg through the C code)
    while frame is not None:
        code = frame.f_code
        last = sources.get(code.co_filename)
        if last is not None and (not last or frame.f_lineno <= last):
            lines = _state["lines"].get(code.co_filename) or ()
            number = frame.f_lineno
            text = lines[number - 1].strip() if 0 < number <= len(lines) else ""
            if first and (not lines or _names_warn(lines, number)):
                return None  # the program's own warning, not the library's
            return code.co_filename, number, text[:200]
        first = False
        frame = frame.f_back
    return None


def api_named(message):
    """The API a deprecation message names (`'DataFrame.append' is deprecated` ->
    DataFrame.append, `tostring() is deprecated` -> tostring()), or None. An unquoted single
    word ("This function is deprecated") names no API."""
    for match in _NAME.finditer(message):
        name, before = match.group(1), message[max(match.start(1) - 1, 0) : match.start(1)]
        if before in "`'\"" and before or any(c in name for c in "._("):
            return name[:120]
    match = _QUOTED.search(message)
    return match.group(1)[:120] if match else None
