"""Deprecation signals the pinned libraries raise while the program's code runs: Python's
`DeprecationWarning`, `PendingDeprecationWarning` and `FutureWarning`. Executed by the
environment's interpreter (Python 3.6+); no pinbench imports.

`install()` wraps the warnings machinery's entry points (`warnings.warn`, `warn_explicit` and
`_showwarnmsg`, which warnings raised from C reach) before any library is imported (a warm
server installs it before it preloads), so a library's `from warnings import warn` binds the
wrapper too. A signal is recorded *before* any filter applies: a program's
`filterwarnings("ignore")` or `catch_warnings()` does not hide it. A warning counts when the
program's code is on the stack and did not issue it itself; library import-time warnings
happen before watching starts (the pinned libraries are imported first).

`tampered()` says whether the program replaced an entry point, the module, or this module's
state: such a sample is never reported as a clean pass."""

import re
import sys
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
}


def install():
    """Wrap the entry points (once per process; a warm server's children inherit them)."""
    if _state["hooks"] is not None:
        return
    real_warn, real_explicit = warnings.warn, warnings.warn_explicit
    real_show = getattr(warnings, "_showwarnmsg", None)

    def warn(message, category=None, stacklevel=1, source=None, **kwargs):
        _note(message, category, sys._getframe(1))
        return real_warn(message, category, stacklevel + 1, source, **kwargs)

    def warn_explicit(message, category, *args, **kwargs):
        _note(message, category, sys._getframe(1))
        return real_explicit(message, category, *args, **kwargs)

    hooks = {"warn": warn, "warn_explicit": warn_explicit}
    if real_show is not None:  # 3.6+: what warnings raised from C are shown through

        def _showwarnmsg(msg):
            _note(msg.message, msg.category, sys._getframe(1))
            return real_show(msg)

        hooks["_showwarnmsg"] = _showwarnmsg
    for name, hook in hooks.items():
        setattr(warnings, name, hook)
    _state["hooks"] = (warnings, dict(hooks), _state)


def watch(sources, lines=None, emit=None):
    """From now on, record the signals raised under the program's code: `sources` maps a
    code file name to the last line of the program in it (0: the whole file)."""
    _state.update(sources=dict(sources), lines=dict(lines or {}), emit=emit)
    _state["found"] = []
    _state["keys"] = set()


def watching():
    return _state["sources"] is not None


def found():
    return list(_state["found"])


def tampered():
    """Whether the program replaced what records the signals (a sample that did is never a
    clean pass: its signals may have been hidden)."""
    hooks = _state["hooks"]
    if hooks is None:
        return False
    module, wrappers, state = hooks
    if sys.modules.get("warnings") is not module or state is not _state:
        return True
    return any(getattr(module, name, None) is not hook for name, hook in wrappers.items())


def _note(message, category, frame):
    if _state["sources"] is None or _state["busy"]:
        return
    _state["busy"] = True
    try:
        if category is None:
            category = type(message) if isinstance(message, Warning) else UserWarning
        if not (isinstance(category, type) and issubclass(category, CATEGORIES)):
            return
        line = _program_line(frame)
        if line is None:
            return
        text = str(message)[:MAX_MESSAGE]
        key = (category.__name__, text, line[0], line[1])
        if key in _state["keys"] or len(_state["found"]) >= MAX_FOUND:
            return
        _state["keys"].add(key)
        entry = {
            "category": category.__name__,
            "message": text,
            "api": api_named(text),
            "line": line[1],
            "code": line[2],
        }
        _state["found"].append(entry)
        if _state["emit"] is not None:
            _state["emit"](entry)
    except Exception:  # a message whose text cannot be taken: the program's run goes on
        pass
    finally:
        _state["busy"] = False


def _program_line(frame):
    """(file, line, code) of the innermost frame of the program's code above the warning's
    issuer, unless the program issued it itself; None when the program is not on the stack."""
    sources = _state["sources"]
    first = True
    while frame is not None and frame.f_code.co_filename == _OWN_FILE:
        frame = frame.f_back  # a hook's frame (warn calls _showwarnmsg through the C code)
    while frame is not None:
        code = frame.f_code
        last = sources.get(code.co_filename)
        if last is not None and (not last or frame.f_lineno <= last):
            if first:
                return None  # the program's own warning, not the library's
            lines = _state["lines"].get(code.co_filename) or ()
            number = frame.f_lineno
            text = lines[number - 1].strip()[:200] if 0 < number <= len(lines) else ""
            return code.co_filename, number, text
        first = False
        frame = frame.f_back
    return None


def api_named(message):
    """The API a deprecation message names (`'DataFrame.append' is deprecated` ->
    DataFrame.append), or None."""
    match = _NAME.search(message) or _QUOTED.search(message)
    return match.group(1)[:120] if match else None
