# Runs INSIDE the sandbox, under the environment's own interpreter (Python 3.6+): keep it
# importable there (no walrus, no dataclasses, no newer typing). pinbench prepends lines
# binding ROOTS (the library's top-level modules), MODULE_SECONDS and MARKER.
import importlib
import inspect
import io
import json
import pkgutil
import signal
import sys
import warnings

MAX_MODULES = 600
SKIP_PARTS = ("tests", "test", "conftest", "setup", "__main__", "_version")


class _Deadline(Exception):
    pass


def _alarm(signum, frame):
    raise _Deadline()


def _public(name):
    return not name.startswith("_")


def _deprecated(obj):
    if getattr(obj, "__deprecated__", None):
        return True
    doc = inspect.getdoc(obj) or ""
    head = doc[:2000].lower()
    return ".. deprecated::" in head or "is deprecated" in head or "deprecated since" in head


def _params(obj):
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = []
    for p in signature.parameters.values():
        default = None if p.default is inspect.Parameter.empty else repr(p.default)[:80]
        params.append([p.name, p.kind.name, default])
    return params


def _record(api, name, obj, kind):
    api[name] = {
        "kind": kind,
        "params": _params(obj) if kind in ("function", "class", "method") else None,
        "deprecated": _deprecated(obj),
        "doc": (inspect.getdoc(obj) or "").strip().split("\n")[0][:160],
    }


def _walk(module, modname, api):
    for attr in sorted(dir(module)):
        if not _public(attr):
            continue
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                obj = getattr(module, attr)
        except Exception:
            continue
        name = modname + "." + attr
        if inspect.ismodule(obj):
            continue
        if inspect.isclass(obj):
            _record(api, name, obj, "class")
            if any(issubclass(w.category, DeprecationWarning) for w in caught):
                api[name]["deprecated"] = True
            for member in sorted(vars(obj)):
                if _public(member):
                    value = vars(obj)[member]
                    if inspect.isfunction(value) or inspect.ismethoddescriptor(value):
                        _record(api, name + "." + member, getattr(obj, member, value), "method")
        elif callable(obj):
            _record(api, name, obj, "function")
        else:
            api[name] = {"kind": "attribute", "params": None, "deprecated": False, "doc": ""}
        if any(issubclass(w.category, DeprecationWarning) for w in caught):
            api[name]["deprecated"] = True


def _modules(root):
    yield root
    try:
        package = importlib.import_module(root)
    except Exception:
        return
    path = getattr(package, "__path__", None)
    if not path:
        return
    for info in pkgutil.walk_packages(path, root + ".", onerror=lambda name: None):
        parts = info.name.split(".")
        if all(_public(p) for p in parts) and not any(p in SKIP_PARTS for p in parts):
            yield info.name


def main():
    # Some modules print when imported (numpy.distutils does); keep stdout for the result,
    # after a marker, since C code may still write to the file descriptor directly.
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()
    signal.signal(signal.SIGALRM, _alarm)
    api, failed, seen = {}, {}, 0
    for root in ROOTS:
        for modname in _modules(root):
            if seen >= MAX_MODULES:
                break
            seen += 1
            signal.alarm(MODULE_SECONDS)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    module = importlib.import_module(modname)
                    _walk(module, modname, api)
            except _Deadline:
                failed[modname] = "deadline"
            except BaseException as exc:
                failed[modname] = type(exc).__name__ + ": " + str(exc)[:200]
            finally:
                signal.alarm(0)
    sys.stdout = real_stdout
    sys.stdout.write("\n" + MARKER + json.dumps({"api": api, "failed": failed, "modules": seen}))
    sys.stdout.flush()


main()
