"""Trusted grading: the test runs in one process, the program in another that cannot reach it.
Executed by the environment's interpreter (Python 3.6+); no pinbench imports.

The runner forks the program's process before it has read the test or the nonce (they come on
a descriptor only the grader reads afterwards), so neither is ever in the program's memory or
on a filesystem it can see: the grader writes the test into a mount namespace of its own. Both
run as the execution's uid, without capabilities, under the syscall filter (no ptrace); the
grader is not dumpable, so no process of that uid opens its memory, descriptors or root
through /proc: the program cannot read, write or trace its way into the
grader. The test's `import sample` gets a module whose attributes are the program's objects
(`_remote.Proxy`); what the program returns crosses as inert data; the assertions, the test
framework and the verdict are the grader's own. Patches the test applies to a library module
(`mock.patch("requests.get")`, `monkeypatch.setattr`), its environment variables and its
working directory are mirrored into the program's process; the program's prints reach the
grader's `sys.stdout`/`sys.stderr` (capsys sees them).
"""

import ast
import builtins
import contextlib
import importlib
import io
import os
import sys
import types
import warnings

import _deprecations
import _remote
import _values

_getcwd, _chdir = os.getcwd, os.chdir  # the real ones: a test may patch them
GRADERDIR = "/tmp/pinbench-grader"  # the test, in the grader's own mount namespace


# --------------------------------------------------------------------------- the program's side


class _Text(io.TextIOBase):
    """A text stream that hands what is written to `emit`, with a `buffer` for bytes (UTF-8),
    as sys.stdout has: click and others probe a stream by writing bytes to it."""

    encoding, errors = "utf-8", "replace"

    def __init__(self):
        self.buffer = _Bytes(self)

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not %s" % type(text).__name__)
        self.emit(text)
        return len(text)

    def isatty(self):
        return False


class _Bytes(io.RawIOBase):
    def __init__(self, text):
        import codecs

        self.text, self.decoder = text, codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self):
        return True

    def write(self, data):
        self.text.write(self.decoder.decode(bytes(data)))
        return len(data)


class _Forwarded(_Text):
    """The program's sys.stdout / sys.stderr: text kept until the next message to the grader."""

    def __init__(self, pending, stream, budget):
        _Text.__init__(self)
        self.pending, self.stream, self.budget = pending, stream, budget

    def emit(self, text):
        self.budget[0] -= len(text)
        if self.budget[0] < 0:  # as a real file under the file size limit would refuse it
            import errno

            raise OSError(errno.EFBIG, "File too large")
        self.pending.append((self.stream, text))


class _Echoed(_Text):
    """The grader's sys.stdout / sys.stderr while it serves the program (a callback of the
    test's that prints): to the program's streams, where it would go in one process."""

    def __init__(self, ep, stream):
        _Text.__init__(self)
        self.ep, self.stream = ep, stream

    def emit(self, text):
        self.ep._send({"op": "write", "id": 0, "args": [self.stream, text]})


class _GlobalsPolicy(object):
    """What of a side's own values crosses as a copy: not a library object that compares by
    identity and that a global of that side's modules holds (the program's `app = Flask(...)`,
    the test's `app2 = flask.Flask(...)`). That side's code reaches the one object through its
    global; what the other side's code does to it (its configuration, a context it enters)
    must be done to that object, as in one process. A value that compares by its content (a
    version, a point) is still a copy."""

    def __init__(self, code_dir, main):
        self.code_dir, self.main = code_dir.rstrip(os.sep) + os.sep, main
        self.modules, self.known = [], 0
        self.pushed = {}  # globals of the main module the other side bound: name -> value

    def main_module(self):
        return self.main

    def copies(self, obj):
        """And a value the other side itself bound to a global (`Grader._push_globals`) is a
        copy: it came from there, where it is a value like any other."""
        if type(obj).__eq__ is not object.__eq__:
            return True
        main = self.main_module()
        for module in self._own_modules(main):
            for name, value in list(module.__dict__.items()):
                if value is obj and not (module is main and self.pushed.get(name) is obj):
                    return False
        return True

    def _own_modules(self, main):
        """The main module and the modules imported from this side's files."""
        if len(sys.modules) != self.known:
            self.known = len(sys.modules)
            self.modules = []
            for module in list(sys.modules.values()):
                path = (
                    module.__dict__.get("__file__")
                    if isinstance(module, types.ModuleType)
                    else None
                )
                if isinstance(path, str) and path.startswith(self.code_dir):
                    self.modules.append(module)
        return ([main] if isinstance(main, types.ModuleType) else []) + self.modules


class _ProgramPolicy(_GlobalsPolicy):
    def exportable(self, obj):
        return True

    def check(self, op, values):
        pass

    def encode_module(self, module):
        return None  # a module of the program's crosses as a handle: patches reach it

    def decode_module(self, rest):
        if len(rest) != 1 or not isinstance(rest[0], str):
            raise _remote.BadMessage("bad module")
        return importlib.import_module(rest[0])


def serve_program(sock, job, code_dir, watch=None):
    """The program's process: serve the grader until it closes the channel, then exit.
    `watch(emit)` starts recording deprecation signals, each sent to the grader as it comes;
    a replaced recorder is told before the next message (the program's code runs only while
    a request waits for its answer)."""
    main = types.ModuleType("__main__")
    main.__file__ = os.path.join(code_dir, "program.py")
    policy = _ProgramPolicy(code_dir, main)
    ep = _remote.Endpoint(sock, trusting=True, serve_policy=policy)
    pending = []
    send = ep._send
    told = [watch is None]

    def flush_then_send(payload):
        if not told[0] and _deprecations.tampered():
            told[0] = True
            send({"op": "deprecations_tampered", "id": 0, "args": []})
        if pending:
            chunks = list(pending)
            del pending[:]
            for stream, text in _merged(chunks):
                send({"op": "write", "id": 0, "args": [stream, text[-(1 << 20) :]]})
        send(payload)

    ep._send = flush_then_send
    budget = [int(job.get("limits", {}).get("file_size") or (64 << 20))]
    sys.stdout = _Forwarded(pending, 1, budget)
    sys.stderr = _Forwarded(pending, 2, budget)
    mirrored = {}

    def run_main(ep):
        code = compile(job["program"], main.__file__, "exec")
        sys.modules["__main__"] = main
        exec(code, main.__dict__)

    def main_name(ep, name):
        try:
            return main.__dict__[name]
        except KeyError:
            raise NameError(name)

    def main_names(ep):
        return [n for n in main.__dict__ if isinstance(n, str)]

    def main_globals(ep, assigned, deleted):
        """What the test's top level bound or deleted since the last request: the module's
        globals, as the program's code would see them with the test appended to it. A class
        or function of an installed package (what the test imported) is this process's own,
        imported by its name, as one process has one."""
        for name, named, value in assigned:
            if named:
                try:
                    module, qualname = value
                    value = importlib.import_module(module)
                    for part in qualname.split(".") if qualname else ():
                        value = getattr(value, part)
                except Exception:
                    continue
            main.__dict__[name] = policy.pushed[name] = value
        for name in deleted:
            main.__dict__.pop(name, None)
            policy.pushed.pop(name, None)

    def mirror_set(ep, module, path, attribute, value):
        target = importlib.import_module(module)
        for part in path:
            target = getattr(target, part)
        token = len(mirrored) + 1
        missing = object()
        mirrored[token] = (target, attribute, target.__dict__.get(attribute, missing), missing)
        setattr(target, attribute, value)
        return token

    def mirror_undo(ep, token):
        target, attribute, old, missing = mirrored.pop(token)
        if old is missing:
            try:
                delattr(target, attribute)
            except AttributeError:
                pass
        else:
            setattr(target, attribute, old)

    def environ(ep, values, cwd, filters=None):
        os.environ.clear()
        os.environ.update(values)
        try:
            if cwd and cwd != _getcwd():
                _chdir(cwd)
        except OSError:  # a directory the program may not enter: it stays where it is
            pass
        if filters is not None:
            set_warning_filters(filters)

    def forward_warning(message, category, filename, lineno, file=None, line=None):
        category = [getattr(category, "__module__", "builtins"), category.__qualname__]
        text = str(message)[:20000]
        args = [ep.encode(a) for a in (text, category, str(filename), int(lineno or 0))]
        flush_then_send({"op": "warn", "id": 0, "args": args})

    warnings.showwarning = forward_warning

    def echoed(ep, stream, text):  # what the test's code printed while serving a call
        if stream in (1, 2) and isinstance(text, str):
            target = sys.stdout if stream == 1 else sys.stderr
            target.write(text)
            target.flush()  # the test's code flushed it (click.echo does): so does this copy

    ep.handlers["write"] = echoed
    ep.notifications.add("write")
    if watch is not None:
        watch(lambda e: flush_then_send({"op": "deprecated", "id": 0, "args": [ep.encode(e)]}))

    ep.handlers.update(
        run_main=run_main, main_name=main_name, main_names=main_names, mirror_set=mirror_set,
        main_globals=main_globals,
        mirror_undo=mirror_undo, environ=environ,
        **{"import": lambda ep, name: importlib.import_module(name)}
    )  # fmt: skip
    try:
        ep.serve_forever()
    finally:
        if pending:
            try:
                flush_then_send({"op": "write", "id": 0, "args": [1, ""]})
            except Exception:
                pass


def warning_filters():
    """The warnings filters as data: (action, message, category, module, lineno); a message or
    module is None, a regular expression as [pattern, flags], or a plain text that must match
    exactly (Python's own default filters); the category as [module, qualname]. The deprecation
    recorder's entry (its category is no class) is each process's own, never sent."""
    return [
        [action, _matcher(message), [category.__module__, category.__qualname__],
         _matcher(module), lineno]
        for action, message, category, module, lineno in warnings.filters
        if isinstance(category, type)
    ]  # fmt: skip


def _matcher(value):
    return [value.pattern, value.flags] if hasattr(value, "pattern") else value


def set_warning_filters(filters):
    """The program's side: the test's filters, their categories as this process has them."""
    import re

    def matcher(value):
        return re.compile(value[0], value[1]) if isinstance(value, list) else value

    made = []
    for action, message, category, module, lineno in filters:
        try:
            klass = importlib.import_module(category[0])
            for part in category[1].split("."):
                klass = getattr(klass, part)
            if isinstance(klass, type) and issubclass(klass, Warning):
                made.append((action, matcher(message), klass, matcher(module), lineno))
        except Exception:  # a category this process cannot name: that filter only
            continue
    warnings.filters[:] = made
    mutated = getattr(warnings, "_filters_mutated", None)
    if mutated is not None:
        mutated()


def _merged(chunks):
    out = []
    for stream, text in chunks:
        if out and out[-1][0] == stream:
            out[-1] = (stream, out[-1][1] + text)
        else:
            out.append((stream, text))
    return out


# --------------------------------------------------------------------------- the grader's side


class _GraderPolicy(_GlobalsPolicy):
    """What the program may do with the grader's objects it was handed (a mock, a callback, a
    file the test opened): call them and use their public attributes. Never a private or
    special attribute (`__globals__`, `_mock_children`), never an introspection object (a
    frame, a traceback, code), never the harness's or the test framework's own objects, never
    replace a method, and never a mock's own API (`assert_called_with`, `call_count`).

    The test's library values reach the program as copies; with `keeps` (state shared, the
    item's reference needs it), those its globals hold that compare by identity stay the
    test's (`_GlobalsPolicy`): the program then works on the test's own app, as in one process
    (a request context it enters of the test's Flask app is entered where the test's view
    runs), at the cost of a round trip per use (a networkx graph the program walks)."""

    def __init__(self, keeps=False):
        _GlobalsPolicy.__init__(self, GRADERDIR, None)
        self.keeps = keeps
        self.refused_types = (types.FrameType, types.TracebackType, types.CodeType)
        cell = getattr(types, "CellType", None)
        if cell is not None:
            self.refused_types += (cell,)

    def main_module(self):
        return sys.modules.get("__main__")  # a script test's namespace, once it runs

    def copies(self, obj):
        return not self.keeps or _GlobalsPolicy.copies(self, obj)

    def exportable(self, obj):
        if isinstance(obj, self.refused_types):
            return False
        for candidate in (obj, type(obj)):
            module = getattr(candidate, "__module__", None)
            if isinstance(module, str) and module.split(".", 1)[0] in _values.HARNESS_MODULES:
                return False
        return True

    def check(self, op, values):
        if op in ("getattr", "setattr", "delattr"):
            target, name = values[0], values[1]
            if not isinstance(name, str):
                raise _remote.Refused("the grader keeps its objects' private attributes")
            if name.startswith("_"):
                raise _remote.Refused(
                    "the grader keeps its objects' private attributes (%s of a %s object)"
                    % (name[:60], type(target).__name__[:60])
                )
            if name[:2] in ("f_", "gi", "cr", "ag", "tb", "co") and "_" in name[:4]:
                raise _remote.Refused("the grader keeps its objects' internals")
            if _is_mock(target) and hasattr(type(target), name):
                raise _remote.Refused("a mock's own attributes are the test's")
            if op != "getattr":
                current = getattr(target, name, None)
                if isinstance(current, (types.FunctionType, types.MethodType,
                                        types.BuiltinFunctionType)):  # fmt: skip
                    raise _remote.Refused("the program may not replace the test's methods")
                if op == "setattr" and isinstance(values[2], _remote.Proxy) and callable(current):
                    raise _remote.Refused("the program may not replace the test's callables")
        elif op in ("write",):
            pass

    def encode_module(self, module):
        return ["M", module.__name__]

    def decode_module(self, rest):
        raise _remote.BadMessage("a module from the program's side crosses as a handle")


def _is_mock(obj):
    mock = sys.modules.get("unittest.mock")
    return mock is not None and isinstance(obj, mock.NonCallableMock)


# Modules whose purpose is a process's global state that a test and the program share in one
# process (the test closes, finds and inspects the figures the program drew with pyplot).
STATE_MODULES = ("matplotlib.pyplot",)


class RemoteModule(types.ModuleType):
    """The program's module as the test imports it: its attributes are the program's."""

    def __init__(self, name, proxy):
        types.ModuleType.__init__(self, name)
        self.__dict__["__pinbench_proxy__"] = proxy

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["__pinbench_proxy__"], name)

    def __setattr__(self, name, value):
        if name.startswith("__") and name.endswith("__"):
            self.__dict__[name] = value
        else:
            setattr(self.__dict__["__pinbench_proxy__"], name, value)

    def __delattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            del self.__dict__[name]
        else:
            delattr(self.__dict__["__pinbench_proxy__"], name)

    def __dir__(self):
        return dir(self.__dict__["__pinbench_proxy__"])


class Grader(object):
    """The grader's end of the channel, with what the program's process must mirror."""

    def __init__(self, sock, program_pid, shares_state=False):
        policy = _GraderPolicy(keeps=shares_state)
        self.ep = _remote.Endpoint(sock, trusting=False, serve_policy=policy)
        self.shares_globals = shares_state  # a script test's globals reach the program
        self.program_pid = program_pid
        self.program_status = None  # its wait status, once it ended: the grader's own evidence
        self.broken = None
        self.synced = (dict(os.environ), _getcwd(), warning_filters())  # as both were forked
        self.syncing = False
        self.assigned = {}  # a script test's module-level names bound since the last request
        self.deleted = set()
        self.ep.on_call = self._sync
        self.deprecations = []
        self.deprecations_tampered = False
        self.ep.handlers.update(write=self._write, warn=self._warn, deprecated=self._deprecated)
        self.ep.handlers["deprecations_tampered"] = self._tampered
        self.ep.notifications.update(("write", "warn", "deprecated", "deprecations_tampered"))
        self.ep.around_serve = self._echoing
        self._wrap_request()

    def _wrap_request(self):
        request = self.ep.request

        def checked(op, *args):
            if self.broken is not None:
                raise _remote.BadMessage(self.broken)
            try:
                return request(op, *args)
            except _remote.BadMessage as exc:
                self.broken = str(exc) or "malformed message"
                raise
            except _remote.ProcessEnded:
                status = self.program_ended(wait=2.0)
                if status is None:
                    raise
                if os.WIFSIGNALED(status):
                    how = "killed by signal %d" % os.WTERMSIG(status)
                else:
                    how = "exit status %d" % os.WEXITSTATUS(status)
                raise _remote.ProcessEnded(
                    "the program's process ended (%s) before the test completed" % how
                )

        self.ep.request = checked

    def program_ended(self, wait=0.0):
        """How the program's process ended (our child: the kernel tells us), waiting up to
        `wait` seconds; None while it runs."""
        import time

        deadline = time.time() + wait
        while self.program_status is None:
            try:
                pid, status = os.waitpid(self.program_pid, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                self.program_status = status
                break
            if time.time() >= deadline:
                break
            time.sleep(0.005)
        return self.program_status

    def _write(self, ep, stream, text):
        if stream in (1, 2) and isinstance(text, str):
            target = sys.stdout if stream == 1 else sys.stderr
            try:
                target.write(text)
            except Exception:
                pass

    def _sync(self, ep):
        """Before each request: the test's environment variables, working directory and
        warnings filters, and what a script test's top level bound, where the program's process
        would see them in one process."""
        if self.syncing:
            return
        now = (dict(os.environ), _getcwd(), warning_filters())
        if now != self.synced:
            self.syncing = True
            try:
                self.synced = now
                ep.request("environ", now[0], now[1], now[2])
            finally:
                self.syncing = False
        if self.assigned or self.deleted:
            self.syncing = True
            try:
                self._push_globals(ep)
            finally:
                self.syncing = False

    def _push_globals(self, ep):
        """Under shared state (the fallback an item's reference needs), a test appended to the
        program shares the module's globals with it, as one script does (GitChameleon's row
        scripts set `filename = ...` for the program's function to read): its top-level
        bindings become the program's module globals before the program's code next runs. Not
        by default: the program could then read the test's expected values. A value that
        cannot cross is left out."""
        assigned = [_pushed(name, value) for name, value in self.assigned.items()]
        deleted = sorted(self.deleted)
        self.assigned, self.deleted = {}, set()
        try:
            ep.request("main_globals", assigned, deleted)
        except (_remote.ProcessEnded, _remote.BadMessage):
            raise
        except Exception:  # one value does not encode: the others, one by one
            for pair in assigned:
                try:
                    ep.request("main_globals", [pair], [])
                except (_remote.ProcessEnded, _remote.BadMessage):
                    raise
                except Exception:
                    pass
            if deleted:
                ep.request("main_globals", [], deleted)

    def script_global(self, name, value, bound=True):
        """A script test's top level bound (or deleted) `name`: pushed before the next request
        under shared state."""
        if not self.shares_globals or (name.startswith("__") and name.endswith("__")):
            return
        if bound:
            self.assigned[name] = value
            self.deleted.discard(name)
        else:
            self.assigned.pop(name, None)
            self.deleted.add(name)

    @contextlib.contextmanager
    def _echoing(self):
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Echoed(self.ep, 1), _Echoed(self.ep, 2)
        try:
            yield
        finally:
            sys.stdout, sys.stderr = saved

    def _warn(self, ep, message, category, filename, lineno):
        """A warning the program's code issued: issued again here, where the test's filters,
        `pytest.warns` and recorders see it, as in one process."""
        klass = _remote._resolve(category)
        if not (isinstance(klass, type) and issubclass(klass, Warning)):
            klass = UserWarning
        if not (isinstance(message, str) and isinstance(filename, str) and type(lineno) is int):
            raise _remote.BadMessage("bad warning")
        try:
            warnings.warn_explicit(message[:20000], klass, filename[:500], lineno)
        except Exception:  # a filter that makes it an error here: the program's run goes on
            pass

    def _deprecated(self, ep, entry):
        """A deprecation signal the program's process recorded (`_deprecations`): data of a
        fixed shape, or the channel is broken."""
        fields = {"category": str, "message": str, "api": (str, type(None)), "line": int}
        fields["code"] = str
        if not (isinstance(entry, dict) and set(entry) == set(fields)):
            raise _remote.BadMessage("bad deprecation record")
        for name, kind in fields.items():
            if not isinstance(entry[name], kind) or isinstance(entry[name], bool):
                raise _remote.BadMessage("bad deprecation record")
        if len(self.deprecations) < 50:
            cut = {k: v[:300] if isinstance(v, str) else v for k, v in entry.items()}
            self.deprecations.append(cut)

    def _tampered(self, ep):
        self.deprecations_tampered = True

    def deprecations_found(self):
        """What the program's process recorded, and whether it replaced the recording."""
        return {"found": list(self.deprecations), "tampered": self.deprecations_tampered}

    def remote_module(self, name):
        module = RemoteModule(name, self.ep.request("import", name))
        sys.modules[name] = module
        return module

    def share_state_modules(self):
        """The modules that are a process's global state (`STATE_MODULES`: pyplot's figures
        and current axes) are the program's for the test, as in one process: the figure the
        program drew on is the one the test's `plt.gca()` finds, and the test's
        `plt.close("all")` closes it. One loaded here already (preloaded with the pinned
        library) is replaced now; one imported later is the program's as it is imported."""
        grader = self

        class Finder(object):
            def find_spec(self, name, path=None, target=None):
                if name not in STATE_MODULES:
                    return None
                import importlib.util

                return importlib.util.spec_from_loader(name, self)

            def create_module(self, spec):
                return grader._state_module(spec.name)

            def exec_module(self, module):
                pass

        for name in STATE_MODULES:
            if name in sys.modules:
                self._state_module(name)
        sys.meta_path.insert(0, Finder())

    def _state_module(self, name):
        module = self.remote_module(name)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:  # `import matplotlib.pyplot as plt` reads the package's
            setattr(sys.modules[parent], child, module)
        return module

    # --- patches of library modules, mirrored

    def install_mirrors(self, with_pytest):
        """Patches the test makes to a library module or class (not the program's module,
        whose attributes already live in the program's process) are made there as well."""
        grader = self
        mock = importlib.import_module("unittest.mock")
        patch_class = mock._patch
        enter, exit_ = patch_class.__enter__, patch_class.__exit__

        def mirrored_enter(patch):
            result = enter(patch)
            patch._pinbench_token = grader.mirror(patch.target, patch.attribute)
            return result

        def mirrored_exit(patch, *info):
            token = getattr(patch, "_pinbench_token", None)
            patch._pinbench_token = None
            try:
                return exit_(patch, *info)
            finally:
                grader.unmirror(token)

        patch_class.__enter__, patch_class.__exit__ = mirrored_enter, mirrored_exit
        if with_pytest:  # the fixture a pytest test patches with
            self._mirror_monkeypatch(importlib.import_module("_pytest.monkeypatch").MonkeyPatch)

    def _mirror_monkeypatch(self, klass):
        grader = self
        setattr_, undo = klass.setattr, klass.undo

        def mirrored_setattr(mp, *args, **kwargs):
            before = len(mp._setattr)
            result = setattr_(mp, *args, **kwargs)
            if len(mp._setattr) > before:
                target, name = mp._setattr[-1][0], mp._setattr[-1][1]
                token = grader.mirror(target, name)
                if token is not None:
                    mp.__dict__.setdefault("_pinbench_tokens", []).append(token)
            return result

        def mirrored_undo(mp):
            try:
                return undo(mp)
            finally:
                for token in reversed(mp.__dict__.pop("_pinbench_tokens", [])):
                    grader.unmirror(token)

        klass.setattr, klass.undo = mirrored_setattr, mirrored_undo

    def mirror(self, target, attribute):
        if isinstance(target, (RemoteModule, _remote.Proxy)) or not isinstance(attribute, str):
            return None  # the program's own object: the patch went there already
        if isinstance(target, types.ModuleType):
            module, path = target.__name__, []
        elif isinstance(target, type) and isinstance(getattr(target, "__module__", None), str):
            module, path = target.__module__, target.__qualname__.split(".")
            if "<locals>" in path:
                return None
        else:
            return None
        if module.split(".", 1)[0] in _values.HARNESS_MODULES or module == "__main__":
            return None
        try:
            return self.ep.request(
                "mirror_set", module, path, attribute, getattr(target, attribute)
            )
        except _remote.ProcessEnded:
            raise
        except Exception:
            return None  # the program's process has no such module: nothing there to patch

    def unmirror(self, token):
        if token is not None and self.broken is None:
            try:
                self.ep.request("mirror_undo", token)
            except Exception:
                pass


def _pushed(name, value):
    """(name, by name?, value) of a script test's global as it is pushed: a module (the test's
    `import matplotlib.pyplot as plt`, the program's own module for a shared one), or a class
    or function of an installed package (`from django... import ValidationError`), by its
    module and name, for the program's process to take its own."""
    if isinstance(value, types.ModuleType) and isinstance(value.__name__, str):
        return name, True, [value.__name__, None]
    module = getattr(value, "__module__", None) if callable(value) else None
    qualname = getattr(value, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
        found = sys.modules.get(module)
        for part in qualname.split(".") if _values.installed_module(found) else ():
            found = getattr(found, part, None)
        if found is value:
            return name, True, [module, qualname]
    return name, False, value


class ScriptNames(object):
    """Module-level names of a test that ran appended to the program: the test's own, then
    what the program imported (the grader imports it itself: the test's helpers are never the
    program's), then the program's other globals, fetched when used. A builtin is never taken
    from the program (a global that shadows `all` or `AssertionError` does not reach the test)
    but for those the problem's own starter redefines (`program_builtins`: its `eval`), which
    the test was written to call."""

    def __init__(self, namespace, grader, imported, own, program_builtins=()):
        self.namespace, self.grader, self.imported = namespace, grader, imported
        self.own = set(own)
        self.program_builtins = frozenset(program_builtins)

    def __getitem__(self, name):
        if name in self.own:
            return self.namespace[name]
        if name in self.imported:
            return self.imported[name]
        if _grader_builtin(name, self.program_builtins):
            raise KeyError(name)
        try:
            return self.grader.ep.request("main_name", name)
        except NameError:
            raise KeyError(name)

    def __setitem__(self, name, value):
        self.own.add(name)
        self.namespace[name] = value
        self.grader.script_global(name, value)

    def __delitem__(self, name):
        self.own.discard(name)
        del self.namespace[name]
        self.grader.script_global(name, None, bound=False)

    def __contains__(self, name):
        try:
            self[name]
            return True
        except KeyError:
            return False


def _grader_builtin(name, program_builtins):
    """Whether a test's module-level `name` is never the program's: a dunder, or a builtin the
    problem's starter does not redefine."""
    if name.startswith("__") and name.endswith("__"):
        return True
    return hasattr(builtins, name) and name not in program_builtins


def program_imports(source):
    """The names the program's top level binds by importing an installed module, resolved in
    the grader (never from the program's directories, which are not on its path)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    bound = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                try:
                    module = importlib.import_module(alias.name)
                except Exception:
                    continue
                if alias.asname:
                    bound[alias.asname] = module
                else:
                    top = alias.name.split(".", 1)[0]
                    bound[top] = sys.modules.get(top, module)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            try:
                module = importlib.import_module(node.module)
            except Exception:
                continue
            for alias in node.names:
                if alias.name == "*":
                    continue
                value = getattr(module, alias.name, None)
                if value is None:
                    try:
                        value = importlib.import_module(node.module + "." + alias.name)
                    except Exception:
                        continue
                bound[alias.asname or alias.name] = value
    return dict((k, v) for k, v in bound.items() if not hasattr(builtins, k))


def script_namespace(grader, job, main, code_dir):
    """The test's names when it runs appended to the program, as (globals, module-level
    mapping): the globals hold the program's names as of the end of its top level (functions
    and classes as the program's objects) under the grader's own imports and the test's names;
    module-level code reads the program's names afresh (`ScriptNames`)."""
    imported = program_imports(job["program"])
    namespace = main.__dict__
    namespace.update(__name__="__main__", __builtins__=builtins)
    namespace["__file__"] = os.path.join(code_dir, "program.py")
    own = set(namespace)
    program_builtins = [n for n in job.get("program_builtins") or () if isinstance(n, str)]
    for name in grader.ep.request("main_names"):
        if not isinstance(name, str) or name in imported:
            continue
        if _grader_builtin(name, program_builtins):
            continue
        try:
            namespace[name] = grader.ep.request("main_name", name)
        except _remote.ProcessEnded:
            raise
        except Exception:
            continue
    namespace.update(imported)
    return namespace, ScriptNames(namespace, grader, imported, own, program_builtins)


def write_private(files, directory):
    """The test's files, in the grader's directory only."""
    for name, text in files.items():
        path = os.path.join(directory, name)
        parent = os.path.dirname(path)
        if not os.path.isdir(parent):
            os.makedirs(parent, 0o700)
        with open(path, "w") as fh:
            fh.write(text)
