"""Objects of one process used from another, over one stream socket: the channel between the
trusted grader and the program under test (`_trusted`). Executed by the environment's
interpreter (Python 3.6+) in both processes; no pinbench imports, no syntax newer than 3.6.

Values cross as inert data: a strict, tagged JSON codec that can build builtins, a few
standard-library value types, numpy arrays and scalars, pandas frames, series, indexes and
timestamps (a categorical's categories, a range's freq), torch tensors, Pillow images, and
copies of the pinned libraries' own plain objects and enum members (`_values`: rebuilt without
running any code of their class, cycles included up to MAX_CYCLIC_PARTS), and nothing else: no
pickle, no constructor of a class named by the sender ever runs, but for the class itself of a
native value its library rebuilds from data (`_values.reduced`). A copy keeps a token: handed
back unchanged, it is the lender's own object again (["K"]/["O"], `Endpoint._lend`). Anything
else stays where it lives and crosses as a *handle*; the other side holds a proxy whose
operations are requests to the owner. The grader's proxies of program
objects compare by identity only and have no truth value: the program never answers a
comparison the grader makes. Every message from the program's process is untrusted: bounded in
size and depth, decoded strictly; anything else raises `BadMessage`, which fails the sample.
"""

import base64
import builtins
import collections
import json
import os
import socket
import struct
import sys
import threading
import types

import _values

MAX_FRAME = 256 << 20
LENT = 64  # values each side keeps to take back as its own (`Endpoint._lend`)
KEPT_BYTES = 64 << 20  # and the messages that carried them, at most
MAX_DEPTH = 100
MAX_NODES = 4 << 20
# A value that refers back to itself crosses as a copy up to this many parts (sympy's reference
# frames: ~9 000); in a larger one (a plotly 4 figure: ~275 000 with its template), as in one
# holding a handle, each value whose parts close a cycle is a handle (`Endpoint._encode_value`).
MAX_CYCLIC_PARTS = 16 << 10
MAX_PART_PARTS = 4096  # a lent value whose parts an answer may name: so many parts at most
_HEADER = struct.Struct(">I")
# Bound once: a program that patches json (or os) in its process does not break its channel.
_dumps, _loads = json.dumps, json.loads


class _TooLarge(Exception):
    """The cyclic copy being tried has more than MAX_CYCLIC_PARTS parts: it is given up."""


class BadMessage(Exception):
    """Something the other process sent is not a message this codec builds: forged, malformed,
    oversized or nested too deep."""


class ProcessEnded(Exception):
    """The other process closed the channel (it ended, or it was killed)."""


class Refused(Exception):
    """An operation the other side does not serve (an attribute it keeps to itself)."""


class RemoteException(Exception):
    """Base of the stand-ins for exception classes that exist only in the program's process."""


def _send_frame(sock, data):
    sock.sendall(_HEADER.pack(len(data)) + data)


def _recv_exact(sock, size):
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ProcessEnded("the program's process ended before the test completed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _recv_frame(sock):
    """(the message, its size in bytes)."""
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    if size > MAX_FRAME:
        raise BadMessage("a message of %d bytes (at most %d)" % (size, MAX_FRAME))
    data = _recv_exact(sock, size)
    try:
        message = _loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise BadMessage("not a message: %s" % (type(exc).__name__,))
    if not isinstance(message, dict):
        raise BadMessage("a message is an object")
    return message, size


# --------------------------------------------------------------------------- codec helpers


def _module(name):
    """A module this process has already loaded (never one the other side makes it import)."""
    return sys.modules.get(name)


_CODEC_MODULES = ("numpy", "pandas", "torch", "PIL.Image", "geopandas", "shapely.wkb")


def _decoding_module(name):
    """A module whose values this codec builds: loaded already, or imported now when the
    environment has it (a cold grader has not imported the pinned libraries a warm server
    preloaded). Only these, never one the other side names."""
    module = sys.modules.get(name)
    if module is None and name in _CODEC_MODULES:
        try:
            import importlib

            module = importlib.import_module(name)
        except Exception:
            return None
    return module


def _is_exact(obj, module, names):
    mod = _module(module)
    if mod is None:
        return False
    for name in names:
        klass = mod
        for part in name.split("."):
            klass = getattr(klass, part, None)
        if klass is not None and type(obj) is klass:
            return True
    return False


def _b64(data):
    return base64.b64encode(data).decode("ascii")


def _unb64(text):
    if not isinstance(text, str):
        raise BadMessage("bytes are base64 text")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise BadMessage("bad base64")


def _want(cond, what):
    if not cond:
        raise BadMessage(what)


_SIMPLE_DTYPE = None


def _simple_dtype(np, text):
    """A numpy dtype from its `.str` form, only a plain one (no objects, no fields)."""
    global _SIMPLE_DTYPE
    if _SIMPLE_DTYPE is None:
        import re

        _SIMPLE_DTYPE = re.compile(r"^[<>|=]?[biufcmMSUV]\d{1,4}(\[[0-9]*[a-zA-Z]{1,3}\])?$")
    _want(isinstance(text, str) and _SIMPLE_DTYPE.match(text), "bad dtype")
    try:
        dtype = np.dtype(text)
    except TypeError:
        raise BadMessage("bad dtype %r" % (text,))
    _want(not dtype.hasobject and dtype.fields is None, "bad dtype %r" % (text,))
    return dtype


def _shape(value):
    _want(isinstance(value, list) and len(value) <= 32, "bad shape")
    for n in value:
        _want(type(n) is int and n >= 0, "bad shape")
    return tuple(value)


def _size(shape):
    size = 1
    for n in shape:
        size *= n
    return size


_TORCH_DTYPES = (
    "float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
    "bool", "complex64", "complex128",
)  # fmt: skip
_PLAIN = (type(None), bool, int, float, str)
_BUILTIN_TYPES = (
    "int", "float", "str", "bytes", "bool", "list", "tuple", "dict", "set", "frozenset",
    "complex", "bytearray", "object", "type", "range", "slice",
)  # fmt: skip
# The classes themselves: another module's class named `str` is not one (it is a handle).
_BUILTIN_CLASSES = frozenset(getattr(builtins, name) for name in _BUILTIN_TYPES)


class Endpoint(object):
    """One side of the channel: the objects it exports (by handle id), the proxies of the other
    side's objects, and the request loop. `trusting` is False in the grader: what arrives is
    decoded strictly, and the program may only do what `serve_policy` lets it."""

    def __init__(self, sock, trusting, serve_policy=None):
        self.sock = sock
        self.trusting = trusting
        self.policy = serve_policy
        self.exported = {}  # id -> object
        self.export_ids = {}  # id(object) -> handle id
        self.proxies = {}  # remote handle id -> proxy (one proxy per remote object)
        self.with_data = {}  # id(proxy) -> (proxy, value) of values with their data
        self.exceptions_open = []  # exceptions whose state is being encoded, outermost first
        self.exceptions_decoding = []  # and decoded
        self.stand_ins = {}  # remote class id -> local exception class
        self.next_id = 1
        self.next_request = 1
        self.lock = threading.RLock()
        self.nodes = 0
        self.on_call = None  # a hook before each request this side makes (environ sync)
        self.around_serve = None  # a context for serving the other side (the grader's output)
        self.handlers = {}
        self.notifications = set()
        self.copying = set()  # ids of values made with their content being copied
        self.pending = {}  # values being decoded whose parts may refer back to them: referred?
        self.open = {}  # the same while encoding
        self.acyclic = 0  # encoding a large cyclic graph: a reference back ends a copy
        self.handles_out = 0  # handles encoded so far (a graph holding one is a live object)
        self.parts = 0  # parts encoded so far (what a cyclic value's copy costs)
        self.budget = float("inf")  # the parts an encoding may reach (`_as_lent`)
        self.cyclic_limit = float("inf")  # the parts a cyclic copy being tried may reach
        self.sent = ({}, [])  # this value's shared parts: id -> index, and the objects
        self.got = []  # the shared parts of the value being decoded, by index
        self.lent = _Kept()  # values this side sent as copies: token -> value (what "O" names)
        self.unsized = []  # their tokens until the message that carries them is sent
        self.next_token = 1
        self.borrowed = _Kept()  # copies of the other side's: id(copy) -> (copy, token, encoding)
        self.parts_of = {}  # while answering: id(part) -> (token, index, part) of those copies
        self.frame_bytes = 0  # the size of the message being decoded
        self.checking = None  # the copy being encoded as it is now (not as a reference)
        self.lending = False  # encoding the parts of a lent value, or to compare: no tokens
        self.receiving = None  # while decoding a request's arguments: the copies they lent us
        self.handles_decoded = 0  # how many handles decoding has met (a change that has one)

    # ------------------------------------------------------------------ encoding

    def export(self, obj):
        key = id(obj)
        hid = self.export_ids.get(key)
        if hid is None or self.exported.get(hid) is not obj:
            hid = self.next_id
            self.next_id += 1
            self.exported[hid] = obj
            self.export_ids[key] = hid
        return hid

    def encode(self, obj, depth=0):
        """`obj` as a tagged value. Within one value, a list, dict, set or library value met a
        second time crosses as a reference to the first (["@", n], n counting them in the
        order their encoding completes), so what the sender shares stays shared (a networkx
        DiGraph's `_succ` is its `_adj`)."""
        if depth == 0:
            saved, self.sent = self.sent, ({}, [])
            try:
                return self._encode(obj, 0)
            finally:
                self.sent = saved
        return self._encode(obj, depth)

    def _lend(self, obj, depth):
        """A list, dict, set, array, frame or library value crosses as a copy with a token
        (["K", token, value]); the outermost one only, its parts encoded afresh (its shared
        references are its own), then it counts as a shared part of the enclosing value. When
        the other side hands the copy back unchanged, it names the token (["O", token, value])
        and this side gets its own object again, as one process would: a mock called with the
        test's array is called with that array, `f(resp) is resp` holds. What a call did to
        the copies of its arguments comes back with its answer and is done to the originals
        (`_changes`)."""
        shared = self._shared(obj)
        if shared is not None:
            return shared
        saved, self.sent, self.lending = self.sent, ({}, []), True
        try:
            inner = self._encode(obj, depth)
        finally:
            self.sent, self.lending = saved, False
        if inner[0] not in _LENT_TAGS:
            return inner
        token = self.next_token
        self.next_token += 1
        self.lent.put(token, obj, 0)
        self.unsized.append(token)
        return self._done(obj, ["K", token, inner])

    def _then_and_now(self, copy, depth):
        """(token, encoding as lent, encoding now: no tokens, its parts as they are, those
        parts in the order they are numbered) of a copy the other side lent us; None when it
        is not one, or no longer encodes."""
        entry = self.borrowed.get(id(copy))
        if entry is None or entry[0] is not copy:
            return None
        encoded = self._as_lent(copy, depth)
        return None if encoded is None else (entry[1], entry[2]) + encoded

    def _as_lent(self, obj, depth, limit=None):
        """(`obj` encoded as a value is lent, without tokens, its numbered parts in order);
        None when it does not encode, or takes more than `limit` parts. Both sides number a
        value's parts alike this way."""
        saved = self.sent, self.lending, self.checking, self.budget
        self.sent, self.lending, self.checking = ({}, []), True, obj
        if limit is not None:
            self.budget = min(self.budget, self.parts + limit)
        try:
            return self._encode(obj, depth), self.sent[1]
        except (ValueError, RecursionError):
            return None
        finally:
            self.sent, self.lending, self.checking, self.budget = saved

    def _changes(self, received):
        """[[token, value now]] for the copies a request's arguments lent us that its handling
        changed (the lender updates its own objects: a list the test passed was appended to,
        as in one process); they count as unchanged from here on."""
        changes = []
        self.parts_of = {}
        for copy, _ in received:
            compared = self._then_and_now(copy, 0)
            if compared is not None and len(compared[3]) <= MAX_PART_PARTS:
                # what the answer may name as a part of it (`_part`)
                for index, part in enumerate(compared[3]):
                    if part is not copy:
                        self.parts_of.setdefault(id(part), (compared[0], index, part))
            # A copy that no longer encodes as a value (a cache the call filled made it a large
            # cyclic graph) cannot be restored: the lender's stays as it was.
            if compared is None or not _lent_tag(compared[2]):
                continue
            if not _same(compared[2], compared[1]):
                token, now = compared[0], compared[2]
                changes.append([token, now])
                self.borrowed.update(id(copy), (copy, token, now))
        return changes

    def _take_changes(self, changes):
        """Apply the other side's `_changes` to the values this side lent it, in place."""
        _want(isinstance(changes, list), "bad changes")
        for change in changes:
            _want(isinstance(change, list) and len(change) == 2, "bad change")
            token, encoded = change
            _want(type(token) is int and isinstance(encoded, list) and encoded, "bad change")
            _want(_lent_tag(encoded), "bad change")
            own = self.lent.get(token)
            if own is None:
                continue
            handles = self.handles_decoded
            saved, self.got = self.got, []
            try:
                new, parts = self._decode(encoded, 0), self.got
            finally:
                self.got = saved
            # A state holding an object that stays over there (a view of the copy itself, as
            # networkx caches them) would tie ours to the other process: it stays as it was.
            if self.handles_decoded == handles:
                _restore(own, new)
                if own is not new:  # what referred to the copy now refers to ours
                    _refer_to(own, new, [own] + parts)

    def _returned(self, obj, depth):
        """["O", token, value] for a copy the other side lent us, when it is as it came: the
        other side takes its own object, or the copy when it no longer keeps that."""
        compared = self._then_and_now(obj, depth)
        if compared is None or not _same(compared[2], compared[1]):
            return self._part(obj, depth)
        return self._done(obj, ["O", compared[0], compared[2]])

    def _part(self, obj, depth):
        """["P", token, index, value] for a part of a copy the other side lent us in this
        request (a request's context the program set and returned: `f(req) is req.context`),
        numbered as both sides number that value's parts; the other side takes its own
        object's part when it encodes as `value` there, else a copy of `value`."""
        found = self.parts_of.get(id(obj)) if self.parts_of and not self.lending else None
        if found is None or found[2] is not obj:
            return None
        encoded = self._as_lent(obj, depth, MAX_PART_PARTS)
        if encoded is None or not _lent_tag(encoded[0]):
            return None
        return self._done(obj, ["P", found[0], found[1], encoded[0]])

    def _shared(self, obj):
        index = self.sent[0].get(id(obj))
        if index is None:
            return None
        if self.open and id(obj) in self.open:
            if self.acyclic:  # the value that encloses this reference becomes a handle
                raise _values.NotCopyable()
            self.open[id(obj)] = True
        return ["@", index]

    def _done(self, obj, encoded):
        self.sent[0][id(obj)] = len(self.sent[1])
        self.sent[1].append(obj)  # alive until the value is sent: its id is not reused
        return encoded

    def _encode(self, obj, depth):
        self.parts += 1
        if depth > MAX_DEPTH:
            raise ValueError("a value nested more than %d deep" % MAX_DEPTH)
        if self.parts > self.budget:
            raise ValueError("a value of more than %d parts" % MAX_PART_PARTS)
        if self.parts > self.cyclic_limit:  # the cyclic copy being tried is too large
            raise _TooLarge()
        t = type(obj)
        if obj is None or t is bool or t is int or t is str or t is float:
            return obj
        if self.borrowed.items and obj is not self.checking:
            back = self._returned(obj, depth)
            if back is not None:
                return back
        if not self.lending and _lendable(t):
            return self._lend(obj, depth)
        d = depth + 1
        if t is list or t is dict or t is set:
            shared = self._shared(obj)
            if shared is not None:
                return shared
        if t is list:
            return self._done(obj, ["L", [self.encode(x, d) for x in obj]])
        if t is tuple:
            return ["T", [self.encode(x, d) for x in obj]]
        if t is dict:
            pairs = [[self.encode(k, d), self.encode(v, d)] for k, v in obj.items()]
            return self._done(obj, ["D", pairs])
        if t is set:
            return self._done(obj, ["S", [self.encode(x, d) for x in obj]])
        if t is frozenset:
            return ["F", [self.encode(x, d) for x in obj]]
        if t is bytes or t is bytearray:
            return ["B" if t is bytes else "BA", _b64(bytes(obj))]
        if t is complex:
            return ["C", obj.real, obj.imag]
        if isinstance(obj, Proxy) and object.__getattribute__(obj, "_pb_ep") is self:
            return ["R", object.__getattribute__(obj, "_pb_id")]
        if t in _WITH_DATA_TYPES:  # a value of the other side's with its data: its own
            proxy = obj.__dict__.get("_pb_proxy")
            if isinstance(proxy, Proxy) and object.__getattribute__(proxy, "_pb_ep") is self:
                return ["R", object.__getattribute__(proxy, "_pb_id")]
        if isinstance(obj, type) and issubclass(obj, RemoteException):
            for hid, klass in self.stand_ins.items():
                if klass is obj:
                    return ["R", hid]
        found = self._encode_known(obj, t, d)
        if found is not None:
            return found
        if isinstance(obj, BaseException):
            return self.encode_exception(obj)
        named = _values.named_global(obj)
        if named is not None:  # a library's sentinel: the other side's own, by its name
            return ["G", named[0], named[1], self.encode_handle(obj)]
        policy = self.policy
        if (
            _values.copyable_type(t)
            and not _values.stateful(t)
            and (policy is None or (policy.exportable(obj) and policy.copies(obj)))
        ):
            found = self._encode_value(obj, t, d)
            if found is not None:
                return found
        data = _builtin_data(obj)
        if data is not None:
            handle = self.encode_handle(obj)
            return ["BH", data[0], data[1], handle] if handle[0] == "H" else handle
        return self.encode_handle(obj)

    def _encode_value(self, obj, t, d):
        """A pinned library's value as a copy of its attributes (`_values`); None when it
        crosses as a handle (not a plain class, nested too deep, or a value of a builtin base
        made with its content, a tuple's or a str's, met again within itself). One allocated
        before its parts (`_values.preallocated`) is numbered before them, so that they may
        refer back to it: a cycle (sympy's reference frames and points refer to each other)
        crosses as one, up to MAX_CYCLIC_PARTS and if none of its parts is a handle. A larger
        one (a plotly 4 figure with its template), or one that holds a handle (a matplotlib
        figure's renderer and callbacks: a live object) is encoded again with each value whose
        parts close a cycle a handle: the graph's values stay copies (as the test's
        `isinstance` wants) while what refers back stays where it lives, one object for all
        the arguments that reach it (two axes of one figure, each lent on its own)."""
        enum = sys.modules.get("enum")
        if enum is not None and isinstance(obj, enum.Enum):
            return ["EN", t.__module__, t.__qualname__, obj._name_]
        shared = self._shared(obj)
        if shared is not None:
            return shared
        key = id(obj)
        if key in self.copying:
            raise _values.NotCopyable()
        self.copying.add(key)
        mark, outermost = len(self.sent[1]), False
        try:
            plain = _values.layout(t) is not None
            if not plain or _values.native(t):  # rebuilt by its class from what it says, else
                try:  # a copy where it may be one (no native address in it), else a handle
                    arguments, state = _values.reduced(obj)
                    encoded = [
                        "RV",
                        t.__module__,
                        t.__qualname__,
                        self.encode(arguments, d),
                        self.encode(state, d),
                    ]
                    return self._done(obj, encoded)
                except _values.NotCopyable:
                    if not plain:
                        raise
            base, content, attributes, slots = _values.state(obj)
            early = _values.preallocated(base)
            if early:
                self._done(obj, None)
                self.open[key], start, handles = False, self.parts, self.handles_out
                if not self.acyclic and self.cyclic_limit == float("inf"):
                    # the outermost cyclic copy tried: it stops as soon as it is too large
                    # (the values within it would each be tried twice, and theirs in turn)
                    outermost, self.cyclic_limit = True, start + MAX_CYCLIC_PARTS
            encoded = [
                "V",
                t.__module__,
                t.__qualname__,
                base,
                self.encode(content, d),
                [[name, self.encode(value, d)] for name, value in attributes],
                [[index, self.encode(value, d)] for index, value in slots],
            ]
            if not early:
                return self._done(obj, encoded)
            cyclic = self.open.pop(key)
            if not cyclic or not (
                self.parts - start > MAX_CYCLIC_PARTS or self.handles_out > handles
            ):
                return encoded
        except (_values.NotCopyable, ValueError):  # a handle: what its parts registered is
            # forgotten (a part nested too deep: a long chain of values is a handle from here)
            self._forget_from(mark)
            return None
        except _TooLarge:
            if not outermost:
                raise
        finally:
            self.copying.discard(key)
            self.open.pop(key, None)
            if outermost:
                self.cyclic_limit = float("inf")
        self._forget_from(mark)  # a large cyclic graph: again, its cycles broken by handles
        self.acyclic += 1
        try:
            return self._encode_value(obj, t, d)
        finally:
            self.acyclic -= 1

    def _forget_from(self, mark):
        """Forget the shared parts registered from `mark` on (an encoding abandoned)."""
        for part in self.sent[1][mark:]:
            self.sent[0].pop(id(part), None)
        del self.sent[1][mark:]

    def encode_handle(self, obj):
        self.handles_out += 1
        if self.policy is not None and not self.policy.exportable(obj):
            return ["X", "%s object" % type(obj).__name__]
        kind = "object"
        info = {}
        if isinstance(obj, type):
            kind = "class"
            info["exc"] = issubclass(obj, BaseException)
            info["own"] = [obj.__module__, obj.__qualname__]
            info["mro"] = [[k.__module__, k.__qualname__] for k in obj.__mro__[1:]][:16]
            info["name"] = obj.__qualname__
        elif type(obj).__name__ == "module":
            kind = "module"
            info["name"] = getattr(obj, "__name__", "?")
        elif callable(obj):
            kind = "callable"
        if kind in ("object", "callable"):  # what `isinstance` of its proxy may say (`_claimed`)
            info["mro"] = [[k.__module__, k.__qualname__] for k in type(obj).__mro__][:16]
            protocols = [p for p in _ASYNC_PROTOCOLS if hasattr(type(obj), "__%s__" % p)]
            if protocols:  # what `await`, `async for` and `async with` of its proxy may do
                info["async"] = protocols
        info["kind"] = kind
        info["type"] = [type(obj).__module__, type(obj).__qualname__]
        return ["H", self.export(obj), info]

    def encode_exception(self, exc):
        for place, open_ in enumerate(reversed(self.exceptions_open)):
            if open_ is exc:  # within its own state (Django's `error_list = [self]`)
                return ["Eo", place]
        klass = type(exc)
        mro = [[k.__module__, k.__qualname__] for k in klass.__mro__][:16]
        try:
            message = str(exc)
        except Exception:
            message = "<unprintable %s>" % klass.__name__
        # Plain arguments cross too: SystemExit(3).code stays 3, KeyError('k') prints as one.
        args = list(exc.args) if all(type(a) in _PLAIN for a in exc.args) else None
        if isinstance(exc, RemoteException):
            for hid, stand_in in self.stand_ins.items():
                if stand_in is klass:
                    return ["E", mro, message[:20000], ["R", hid], args]
        origin = klass.__module__ in ("builtins", "exceptions")
        cls = None if origin else self.encode_handle(klass)
        return ["E", mro, message[:20000], cls, args, self._exception_state(exc, klass)]

    def _exception_state(self, exc, klass):
        """A pinned library's exception keeps its attributes (click's usage error its `ctx`)."""
        own = getattr(exc, "__dict__", None)
        if not own or type(own) is not dict or not _values.copyable_type(klass):
            return None
        self.exceptions_open.append(exc)
        try:
            return self.encode([[k, v] for k, v in own.items() if type(k) is str])
        except (ValueError, RecursionError):
            return None
        finally:
            self.exceptions_open.pop()

    def _encode_known(self, obj, t, d):
        module = getattr(t, "__module__", "") or ""
        root = module.split(".", 1)[0]
        if root == "numpy":
            return self._encode_numpy(obj, t)
        if root == "pandas":
            return self._encode_pandas(obj, d)
        if root == "torch":
            return self._encode_torch(obj, d)
        if root == "PIL":
            return self._encode_image(obj, d)
        if root == "geopandas":
            return self._encode_geo(obj, d)
        if root == "shapely":
            return _encode_geometry(obj, t)
        if root in ("datetime", "decimal", "fractions", "uuid", "pathlib", "collections"):
            return self._encode_stdlib(obj, t, root, d)
        if root == "_io" or root == "io":
            return _encode_memory_file(obj, t)
        if t is range:
            return ["range", obj.start, obj.stop, obj.step]
        if t is slice:
            return [
                "slice",
                self.encode(obj.start, d),
                self.encode(obj.stop, d),
                self.encode(obj.step, d),
            ]
        if obj is Ellipsis:
            return ["..."]
        if isinstance(obj, tuple) and hasattr(t, "_fields") and tuple.__repr__ is not t.__repr__:
            fields = list(t._fields)
            if all(isinstance(f, str) for f in fields) and len(fields) == len(obj):
                return ["NT", t.__name__, fields, [self.encode(x, d) for x in obj]]
        if isinstance(obj, type) and obj in _BUILTIN_CLASSES:
            return ["type", obj.__name__]
        if isinstance(obj, type) and _numpy_type_name(obj) is not None:
            return ["nptype", obj.__name__]
        if type(obj).__name__ == "module" and self.policy is not None:
            return self.policy.encode_module(obj)
        return None

    def _encode_numpy(self, obj, t):
        np = _module("numpy")
        if t is np.ndarray:
            if obj.dtype.hasobject:
                flat = [self.encode(x, 1) for x in obj.ravel().tolist()]
                return ["ndo", list(obj.shape), flat]
            if obj.dtype.fields is not None:
                return None
            flags = [] if obj.flags.writeable else ["ro"]  # a read-only view stays read-only
            return ["nd", obj.dtype.str, list(obj.shape), _b64(obj.tobytes())] + flags
        if isinstance(obj, np.generic) and not obj.dtype.hasobject and obj.dtype.fields is None:
            return ["np", obj.dtype.str, _b64(obj.tobytes())]
        # numpy 1.20+ makes each dtype an instance of a subclass (`numpy.dtype[float64]`)
        if isinstance(obj, np.dtype) and not obj.hasobject and obj.fields is None:
            return ["npdt", obj.str]
        return None

    def _encode_pandas(self, obj, d):
        pd = _module("pandas")
        if pd is None:
            return None
        if type(obj) is pd.DataFrame:
            columns = [self._series_values(obj.iloc[:, i], d) for i in range(obj.shape[1])]
            dtypes = [self._dtype(dt, d) for dt in obj.dtypes]
            return [
                "pdDF",
                self._encode_index(obj.columns, d),
                self._encode_index(obj.index, d),
                columns,
                dtypes,
            ]
        if type(obj) is pd.Series:
            return [
                "pdS", self._series_values(obj, d), self._encode_index(obj.index, d),
                self.encode(obj.name, d), self._dtype(obj.dtype, d),
            ]  # fmt: skip
        if isinstance(obj, pd.Index):
            return self._encode_index(obj, d)
        if type(obj) is pd.Timestamp:
            return ["pdTs", obj.isoformat(), None if obj.tz is None else str(obj.tz)]
        if type(obj) is pd.Timedelta:
            return ["pdTd", int(obj.value)]
        if obj is pd.NaT:
            return ["pdNaT"]
        if obj is getattr(pd, "NA", None):
            return ["pdNA"]
        return None

    def _encode_geo(self, obj, d):
        """A geopandas frame or series as the pandas frame or series it is, with its active
        geometry column's name and its CRS as text (the geometries cross as WKB)."""
        gpd, pd = _module("geopandas"), _module("pandas")
        if gpd is None or pd is None or type(obj) not in (gpd.GeoDataFrame, gpd.GeoSeries):
            return None
        crs = _crs_text(getattr(obj, "crs", None))
        if crs is False:
            return None
        if type(obj) is gpd.GeoSeries:
            plain = pd.Series(obj.values, index=obj.index, name=obj.name, dtype=obj.dtype)
            return ["gpS", self._encode_pandas(plain, d), crs]
        plain = pd.DataFrame(obj, copy=False)
        if type(plain) is not pd.DataFrame:
            return None
        name = obj.__dict__.get("_geometry_column_name")
        if name is not None and type(name) not in (str, int):
            return None
        return ["gpDF", self._encode_pandas(plain, d), name, crs]

    def _series_values(self, series, d):
        np = _module("numpy")
        values = series.values
        if type(values) is not np.ndarray:  # an extension array: its elements
            values = np.asarray(series, dtype=object)
        return self.encode(values, d)

    def _encode_index(self, index, d):
        pd = _module("pandas")
        if type(index) is pd.RangeIndex:
            return [
                "pdR",
                int(index.start),
                int(index.stop),
                int(index.step),
                self.encode(index.name, d),
            ]
        if type(index) is pd.MultiIndex:
            return [
                "pdMI",
                [self.encode(x, d) for x in index.tolist()],
                [self.encode(n, d) for n in index.names],
            ]
        np = _module("numpy")
        values = index.values
        if type(values) is not np.ndarray:
            values = np.asarray(index, dtype=object)
        encoded = self.encode(values, d)
        found = ["pdI", encoded, self.encode(index.name, d), self._dtype(index.dtype, d)]
        freq = getattr(index, "freqstr", None)  # a date or time range's step, which
        if isinstance(freq, str):  # pandas' assert_*_equal compares
            found.append(freq)
        return found

    def _dtype(self, dtype, d):
        """A pandas dtype as its name; a categorical one as its categories and whether they
        are ordered (its name, "category", loses the categories no value uses: a groupby
        then has fewer groups)."""
        categorical = _categorical_dtype(_module("pandas"))
        if categorical is not None and isinstance(dtype, categorical):
            if dtype.categories is not None:
                return ["cat", self._encode_index(dtype.categories, d), bool(dtype.ordered)]
        return str(dtype)

    def _encode_image(self, obj, d):
        """A Pillow image as Pillow describes it: mode, size, raw pixels (its own `tobytes`),
        palette, format and the plain part of its `info`; the receiver makes it with
        `Image.frombytes` (the copy of attributes gave an image whose pixel store was a
        handle: `np.array(image)` of it was empty)."""
        image = sys.modules.get("PIL.Image")
        if image is None or not isinstance(obj, image.Image):
            return None
        try:
            data = obj.tobytes()
            palette = obj.getpalette() if obj.mode in ("P", "PA") else None
        except Exception:
            return None
        own = obj.info if type(obj.info) is dict else {}
        info = dict((k, v) for k, v in own.items() if type(k) is str and _values.inert(v))
        form = obj.format if isinstance(obj.format, str) else None
        size = [int(n) for n in obj.size]
        return ["pil", obj.mode, size, _b64(data), palette, form, self.encode(info, d)]

    def _encode_torch(self, obj, d):
        torch = _module("torch")
        if torch is None:
            return None
        if isinstance(obj, torch.Tensor) and type(obj) in (
            torch.Tensor,
            getattr(torch.nn, "Parameter", None),
        ):
            if obj.is_sparse or obj.is_quantized or str(obj.dtype)[6:] not in _TORCH_DTYPES:
                return None
            flat = obj.detach().cpu().contiguous()
            if flat.dtype == torch.bfloat16:
                data = flat.view(torch.int16).numpy().tobytes()
            else:
                data = flat.numpy().tobytes()
            return ["tt", str(obj.dtype)[6:], list(obj.shape), _b64(data), bool(obj.requires_grad)]
        if type(obj) is torch.Size:
            return ["tS", [int(n) for n in obj]]
        if type(obj) is torch.dtype and str(obj)[6:] in _TORCH_DTYPES:
            return ["tdt", str(obj)[6:]]
        if type(obj) is torch.device:
            return ["tdev", str(obj)]
        return None

    def _encode_stdlib(self, obj, t, root, d):
        import collections
        import datetime

        if t is datetime.datetime or t is datetime.time:
            offset = obj.utcoffset() if obj.tzinfo is not None else None
            seconds = None if offset is None else offset.total_seconds()
            if t is datetime.datetime:
                parts = [
                    obj.year,
                    obj.month,
                    obj.day,
                    obj.hour,
                    obj.minute,
                    obj.second,
                    obj.microsecond,
                ]
            else:
                parts = [obj.hour, obj.minute, obj.second, obj.microsecond]
            return ["dt" if t is datetime.datetime else "tm", parts, seconds]
        if t is datetime.date:
            return ["date", [obj.year, obj.month, obj.day]]
        if t is datetime.timedelta:
            return ["td", [obj.days, obj.seconds, obj.microseconds]]
        if root == "decimal" and t.__name__ == "Decimal":
            return ["dec", str(obj)]
        if root == "fractions" and t.__name__ == "Fraction":
            return ["frac", obj.numerator, obj.denominator]
        if root == "uuid" and t.__name__ == "UUID":
            return ["uuid", obj.hex]
        if root == "pathlib" and t.__name__ in ("PosixPath", "PurePosixPath", "Path"):
            return ["path", str(obj), t.__name__ == "PurePosixPath"]
        if t is collections.OrderedDict:
            return ["OD", [[self.encode(k, d), self.encode(v, d)] for k, v in obj.items()]]
        if t is collections.Counter:
            return ["CNT", [[self.encode(k, d), self.encode(v, d)] for k, v in obj.items()]]
        if t is collections.deque:
            return ["DQ", [self.encode(x, d) for x in obj], obj.maxlen]
        if t is collections.defaultdict:
            factory = obj.default_factory
            if factory is not None and factory not in _BUILTIN_CLASSES:
                return None
            name = None if factory is None else factory.__name__
            return ["DD", name, [[self.encode(k, d), self.encode(v, d)] for k, v in obj.items()]]
        return None

    # ------------------------------------------------------------------ decoding

    def decode(self, data, depth=0):
        if depth == 0:
            saved, self.got = self.got, []
            try:
                return self._decode(data, 0)
            finally:
                self.got = saved
        return self._decode(data, depth)

    def _got(self, obj):
        self.got.append(obj)
        return obj

    def _decode(self, data, depth):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise BadMessage("a value of more than %d parts" % MAX_NODES)
        if depth > MAX_DEPTH + 4:
            raise BadMessage("a value nested more than %d deep" % MAX_DEPTH)
        t = type(data)
        if data is None or t is bool or t is int or t is str or t is float:
            return data
        _want(t is list and data and type(data[0]) is str, "a value is a tagged list")
        tag, rest, d = data[0], data[1:], depth + 1
        decoder = _DECODERS.get(tag)
        _want(decoder is not None, "unknown tag %r" % (tag[:20],))
        return decoder(self, rest, d)

    def _items(self, rest, d, count=1):
        _want(len(rest) == count and isinstance(rest[0], list), "bad container")
        return [self.decode(x, d) for x in rest[0]]

    def _pairs(self, rest, d):
        _want(len(rest) >= 1 and isinstance(rest[-1], list), "bad mapping")
        out = []
        for pair in rest[-1]:
            _want(isinstance(pair, list) and len(pair) == 2, "bad mapping")
            out.append((self.decode(pair[0], d), self.decode(pair[1], d)))
        return out

    def _local(self, hid):
        _want(type(hid) is int and hid in self.exported, "a reference to no object of ours")
        return self.exported[hid]

    def _proxy(self, rest):
        _want(len(rest) == 2 and type(rest[0]) is int and isinstance(rest[1], dict), "bad handle")
        self.handles_decoded += 1
        hid, info = rest
        found = self.proxies.get(hid)
        if found is not None:
            return found
        kind = info.get("kind")
        own = _own_class(info.get("own")) if kind == "class" else None
        if own is not None:
            made = own
        elif kind == "class" and info.get("exc") is True:
            made = self._stand_in(hid, info)
        else:
            kind = kind if isinstance(kind, str) else "object"
            claim = info.get("mro") if kind in ("object", "callable") else None
            claim = claim if isinstance(claim, list) else None
            made = Proxy._make(self, hid, kind, claim, _proxy_class(info.get("async")))
        self.proxies[hid] = made
        return made

    def _stand_in(self, hid, info):
        """A local class for an exception class of the program's: raising and catching work
        (`pytest.raises(sample.Error)`), and it stays the same class for the same handle."""
        found = self.stand_ins.get(hid)
        if found is not None:
            return found
        base = self._local_class(info.get("mro"), 0)
        name = info.get("name")
        name = (
            name.rsplit(".", 1)[-1]
            if isinstance(name, str) and name.isidentifier()
            else "ProgramError"
        )
        try:
            made = type(name, (RemoteException, base), {})
        except TypeError:
            made = type(name, (RemoteException,), {})
        self.stand_ins[hid] = made
        return made

    def _local_class(self, mro, start):
        """The first class of `mro` (module, qualname pairs) this process has loaded itself and
        that is an ordinary exception class; Exception when none is. Never one that steers a
        test framework (SystemExit, pytest's outcomes, unittest's SkipTest): from the other
        process, those are only names."""
        if isinstance(mro, list):
            for entry in mro[start:]:
                klass = _resolve(entry)
                if klass is not None:
                    return klass
        return Exception

    def decode_exception(self, rest):
        _want(3 <= len(rest) <= 5 and isinstance(rest[0], list), "bad exception")
        mro, message, cls, args, state = (rest + [None, None])[:5]
        _want(isinstance(message, str), "bad exception")
        _want(args is None or (isinstance(args, list) and len(args) <= 64), "bad exception")
        _want(args is None or all(type(a) in _PLAIN for a in args), "bad exception")
        # A class this process has loaded itself (a library's: `except nx.NetworkXUnfeasible`
        # catches it); else the program's own class as a stable stand-in (`pytest.raises(
        # sample.Error)`); else a stand-in by name.
        klass = _resolve(mro[0], self.trusting) if mro else None
        if klass is None and cls is not None:
            klass = self.decode(cls, 1)
            if not (isinstance(klass, type) and issubclass(klass, BaseException)):
                klass = None
        if klass is None:  # a name only: a stand-in of that name under its nearest base
            first = mro[0] if mro and isinstance(mro[0], list) and len(mro[0]) == 2 else None
            name = first[1].rsplit(".", 1)[-1] if first and isinstance(first[1], str) else ""
            name = name if name.isidentifier() else "ProgramError"
            base = self._local_class(mro, 1)
            key = (name, base)
            klass = _NAMED_STAND_INS.get(key)
            if klass is None:
                klass = type(name, (RemoteException, base), {})
                _NAMED_STAND_INS[key] = klass
        try:
            exc = klass.__new__(klass)
            exc.args = (message,) if args is None else tuple(args)
            if args is not None and _text(exc) != message:  # its text is more than its args
                exc.args = (message,)  # (an OSError's errno and file name): keep the text
            if isinstance(exc, SystemExit):  # the program's side only: its code, as raised
                exc.code = exc.args[0] if len(exc.args) == 1 else (exc.args or None)
        except Exception:
            return RemoteException(message)
        if state is not None and _values.copyable_type(klass):
            self.exceptions_decoding.append(exc)  # what its state's ["Eo", 0] names
            try:
                pairs = self.decode(state)
            finally:
                self.exceptions_decoding.pop()
            _want(isinstance(pairs, list), "bad exception")
            own = getattr(exc, "__dict__", None)
            for pair in pairs:
                _want(
                    isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is str,
                    "bad exception",
                )
                if type(own) is dict:  # into its __dict__: no descriptor (`__class__`) runs
                    own[pair[0]] = pair[1]
        return exc

    # ------------------------------------------------------------------ requests

    def request(self, op, *args):
        """Ask the other side to do `op`; serve what it asks in the meantime (nested calls:
        a program calling a mock the test passed it); return its answer or raise its error."""
        with self.lock:
            if self.on_call is not None:
                self.on_call(self)
            rid = self.next_request
            self.next_request += 1
            payload = {"op": op, "id": rid, "args": [self.encode(a) for a in args]}
            self._send(payload)
            while True:
                message, self.frame_bytes = _recv_frame(self.sock)
                if "re" in message:
                    _want(message["re"] == rid, "an answer to no question")
                    self.nodes = 0
                    if "ch" in message:  # before the answer, which may be one of them
                        self._take_changes(message["ch"])
                    if "err" in message:
                        raise self.decode_exception(self._exc_body(message["err"]))
                    _want("ok" in message, "an answer without a value")
                    return self.decode(message["ok"])
                self.serve_one(message)

    def _exc_body(self, data):
        _want(isinstance(data, list) and data and data[0] == "E", "bad error")
        return data[1:]

    def _send(self, payload):
        data = _dumps(payload, allow_nan=True).encode("utf-8")
        for token in self.unsized:  # what keeping the values lent in it costs, at most
            self.lent.resize(token, len(data))
        self.unsized = []
        _send_frame(self.sock, data)

    def serve_one(self, message):
        rid = message.get("id")
        _want(type(rid) is int, "a request without an id")
        op, args = message.get("op"), message.get("args")
        _want(isinstance(op, str) and isinstance(args, list), "bad request")
        self.nodes = 0
        if rid == 0:  # a notification (the program's output): no answer
            _want(op in self.notifications, "unknown notification")
            self.handlers[op](self, *[self.decode(a) for a in args])
            return
        received = []
        try:
            handler = self.handlers.get(op) or _OPS.get(op)
            _want(handler is not None, "unknown operation %r" % (op[:30],))
            self.receiving = received = []
            try:
                values = [self.decode(a) for a in args]
            finally:
                self.receiving = None
            if self.policy is not None:
                self.policy.check(op, values)
            if self.around_serve is not None:
                with self.around_serve():
                    result = handler(self, *values)
            else:
                result = handler(self, *values)
            changes = self._changes(received)
            try:
                reply = {"re": rid, "ok": self.encode(result)}
            except (ValueError, RecursionError) as exc:
                reply = {"re": rid, "err": self.encode_exception(exc)}
            finally:
                self.parts_of = {}
        except BadMessage:
            raise
        except BaseException as exc:  # the operation's own error is the answer
            if isinstance(exc, KeyboardInterrupt) and not self.trusting:
                exc = RuntimeError("%s in the grader" % type(exc).__name__)
            changes = self._changes(received)
            self.parts_of = {}
            reply = {"re": rid, "err": self.encode_exception(exc)}
        if changes:
            reply["ch"] = changes
        with self.lock:
            self._send(reply)

    def serve_forever(self):
        """The program's side: answer the grader until it closes the channel."""
        while True:
            try:
                message, self.frame_bytes = _recv_frame(self.sock)
            except ProcessEnded:
                return
            with self.lock:
                self.serve_one(message)


_NAMED_STAND_INS = {}


def _text(exc):
    try:
        return str(exc)
    except Exception:
        return None


def _resolve(entry, any_base=False):
    """An ordinary exception class this process has loaded, by (module, qualname); or None.
    `any_base`: the program's side, where a grader's SystemExit may be itself."""
    if not (isinstance(entry, list) and len(entry) == 2):
        return None
    module, qualname = entry
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    klass = _module("builtins" if module == "exceptions" else module)
    for part in qualname.split("."):
        klass = getattr(klass, part, None) if part.isidentifier() else None
    if not (
        isinstance(klass, type) and issubclass(klass, Exception if not any_base else BaseException)
    ):
        return None
    if any_base:
        return klass
    unittest = _module("unittest")
    if unittest is not None and issubclass(klass, unittest.SkipTest):
        return None
    return klass


def _decode_list(ep, rest, d):
    return ep._items(rest, d)


def _decode_nd(ep, rest, d):
    np = _decoding_module("numpy")
    _want(np is not None and len(rest) in (3, 4) and rest[3:] in ([], ["ro"]), "bad array")
    dtype, shape = _simple_dtype(np, rest[0]), _shape(rest[1])
    data = _unb64(rest[2])
    _want(len(data) == _size(shape) * dtype.itemsize, "an array of the wrong size")
    out = np.frombuffer(data, dtype=dtype).reshape(shape).copy()
    if rest[3:]:
        out.flags.writeable = False
    return out


def _decode_ndo(ep, rest, d):
    np = _decoding_module("numpy")
    _want(np is not None and len(rest) == 2 and isinstance(rest[1], list), "bad array")
    shape = _shape(rest[0])
    _want(len(rest[1]) == _size(shape), "an array of the wrong size")
    out = np.empty(len(rest[1]), dtype=object)
    for i, x in enumerate(rest[1]):
        out[i] = ep.decode(x, d)
    return out.reshape(shape)


def _decode_np(ep, rest, d):
    np = _decoding_module("numpy")
    _want(np is not None and len(rest) == 2, "bad scalar")
    dtype, data = _simple_dtype(np, rest[0]), _unb64(rest[1])
    _want(len(data) == dtype.itemsize, "a scalar of the wrong size")
    return np.frombuffer(data, dtype=dtype)[0]


def _decode_index(ep, data, d):
    pd = _decoding_module("pandas")
    _want(pd is not None and isinstance(data, list) and data, "bad index")
    tag, rest = data[0], data[1:]
    if tag == "pdR":
        _want(len(rest) == 4 and all(type(x) is int for x in rest[:3]), "bad index")
        return pd.RangeIndex(rest[0], rest[1], rest[2], name=ep.decode(rest[3], d))
    if tag == "pdMI":
        _want(
            len(rest) == 2 and isinstance(rest[0], list) and isinstance(rest[1], list), "bad index"
        )
        tuples = [ep.decode(x, d) for x in rest[0]]
        names = [ep.decode(x, d) for x in rest[1]]
        _want(all(type(t) is tuple for t in tuples), "bad index")
        if not tuples:
            return pd.MultiIndex.from_arrays([[] for _ in names], names=names)
        return pd.MultiIndex.from_tuples(tuples, names=names)
    _want(tag == "pdI" and len(rest) in (3, 4), "bad index")
    values, name = ep.decode(rest[0], d), ep.decode(rest[1], d)
    dtype = _decode_dtype(ep, pd, rest[2], d)
    try:
        index = pd.Index(values, name=name, dtype=dtype)
    except (TypeError, ValueError):
        index = pd.Index(values, name=name)
    if len(rest) == 4:
        ranges = (pd.DatetimeIndex, pd.TimedeltaIndex)
        _want(isinstance(rest[3], str) and isinstance(index, ranges), "bad index")
        try:
            index = type(index)(index, freq=rest[3], name=name)
        except (TypeError, ValueError):
            raise BadMessage("a range whose values do not follow its step")
    return index


def _crs_text(crs):
    """A geopandas CRS as the text pyproj reads it back from (what it was made from, else its
    WKT); None for none; False when it is neither."""
    if crs is None:
        return None
    if isinstance(crs, str):
        return crs
    text = getattr(crs, "srs", None)
    if not isinstance(text, str) or not text:
        to_wkt = getattr(crs, "to_wkt", None)
        text = to_wkt() if callable(to_wkt) else None
    return text if isinstance(text, str) else False


def _encode_geometry(obj, t):
    """A shapely geometry as its WKB, which the other side's shapely reads back (shapely 2's
    geometries pickle through a function of the module, not their class)."""
    wkb = sys.modules.get("shapely.wkb")
    geometry = sys.modules.get("shapely.geometry.base")
    base = getattr(geometry, "BaseGeometry", None)
    if wkb is None or base is None or not isinstance(obj, base):
        return None
    if t.__module__.split(".", 1)[0] != "shapely" or t.__name__ == "LinearRing":
        return None  # WKB has no linear ring: it would come back a line string
    try:
        if obj.is_empty:
            return None
        return ["shp", t.__name__, _b64(bytes(obj.wkb))]
    except Exception:
        return None


def _decode_geometry(ep, rest, d):
    wkb = _decoding_module("shapely.wkb")
    _want(wkb is not None and len(rest) == 2 and type(rest[0]) is str, "bad geometry")
    _want(type(rest[1]) is str, "bad geometry")
    try:
        geometry = wkb.loads(_unb64(rest[1]))
    except Exception:
        raise BadMessage("bad geometry")
    _want(type(geometry).__name__ == rest[0], "bad geometry")
    return geometry


def _decode_geo(ep, rest, d):
    """["gpDF", frame, geometry column, crs] or ["gpS", series, crs]: made by the receiver's
    geopandas from the pandas value and the CRS's text."""
    gpd = _decoding_module("geopandas")
    _want(gpd is not None and len(rest) in (2, 3), "bad geo value")
    crs = rest[-1]
    _want(crs is None or type(crs) is str, "bad geo value")
    plain = ep.decode(rest[0], d)
    try:
        if len(rest) == 2:
            _want(type(plain) is _module("pandas").Series, "bad geo value")
            return gpd.GeoSeries(plain, crs=crs)
        name = rest[1]
        _want(name is None or type(name) in (str, int), "bad geo value")
        _want(type(plain) is _module("pandas").DataFrame, "bad geo value")
        if name is None or name not in plain.columns:
            return gpd.GeoDataFrame(plain, crs=crs)
        return gpd.GeoDataFrame(plain, geometry=name, crs=crs)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise BadMessage("bad geo value: %s" % (str(exc)[:100],))


def _categorical_dtype(pd):
    if pd is None:
        return None
    found = getattr(pd, "CategoricalDtype", None)
    if found is None:
        found = getattr(getattr(getattr(pd, "api", None), "types", None), "CategoricalDtype", None)
    return found


def _decode_dtype(ep, pd, data, d):
    """A dtype as `_dtype` describes it: a name pandas reads, or a categorical dtype."""
    if isinstance(data, str):
        return data
    _want(type(data) is list and len(data) == 3 and data[0] == "cat", "bad dtype")
    _want(type(data[2]) is bool, "bad dtype")
    categories = _decode_index(ep, data[1], d)
    try:
        return _categorical_dtype(pd)(categories=categories, ordered=data[2])
    except (TypeError, ValueError):
        raise BadMessage("bad categories")


def _series(pd, values, index, name, dtype):
    try:
        return pd.Series(values, index=index, name=name, dtype=dtype)
    except (TypeError, ValueError):
        return pd.Series(values, index=index, name=name)


def _decode_series(ep, rest, d):
    pd = _decoding_module("pandas")
    _want(pd is not None and len(rest) == 4, "bad series")
    values, index = ep.decode(rest[0], d), _decode_index(ep, rest[1], d)
    name = ep.decode(rest[2], d)
    return _series(pd, values, index, name, _decode_dtype(ep, pd, rest[3], d))


def _decode_frame(ep, rest, d):
    pd = _decoding_module("pandas")
    _want(pd is not None and len(rest) == 4, "bad frame")
    values, dtypes = rest[2], rest[3]
    _want(isinstance(values, list) and isinstance(dtypes, list), "bad frame")
    _want(len(values) == len(dtypes), "bad frame")
    # in the order the sender encoded them: the shared parts they hold keep their numbers
    values = [ep.decode(data, d) for data in values]
    dtypes = [_decode_dtype(ep, pd, dtype, d) for dtype in dtypes]
    columns, index = _decode_index(ep, rest[0], d), _decode_index(ep, rest[1], d)
    _want(len(values) == len(columns), "bad frame")
    series = [_series(pd, column, index, None, t) for column, t in zip(values, dtypes)]
    if not series:
        return pd.DataFrame(index=index, columns=columns)
    frame = pd.concat(series, axis=1) if len(series) > 1 else series[0].to_frame()
    frame.columns = columns
    return frame


def _decode_image(ep, rest, d):
    image = _decoding_module("PIL.Image")
    _want(image is not None and len(rest) == 6, "bad image")
    mode, size, data, palette, form, info = rest
    _want(isinstance(mode, str) and type(size) is list and len(size) == 2, "bad image")
    _want(all(type(n) is int and n >= 0 for n in size), "bad image")
    _want(form is None or isinstance(form, str), "bad image")
    _want(palette is None or (type(palette) is list and len(palette) <= 1024), "bad image")
    _want(palette is None or all(type(v) is int and 0 <= v < 256 for v in palette), "bad image")
    raw = _unb64(data)
    info = ep.decode(info, d)
    _want(type(info) is dict, "bad image")
    try:
        made = image.frombytes(mode, tuple(size), raw)
        if palette is not None:
            made.putpalette(palette)
    except Exception as exc:
        raise BadMessage("an image Pillow does not make (%s)" % type(exc).__name__)
    made.info = info
    if form is not None:
        made.format = form
    return made


def _decode_timestamp(ep, rest, d):
    pd = _decoding_module("pandas")
    _want(pd is not None and len(rest) == 2 and isinstance(rest[0], str), "bad timestamp")
    stamp = pd.Timestamp(rest[0])
    if isinstance(rest[1], str) and stamp.tz is not None:
        try:
            stamp = stamp.tz_convert(rest[1])
        except Exception:
            pass
    return stamp


def _decode_tensor(ep, rest, d):
    torch, np = _decoding_module("torch"), _decoding_module("numpy")
    _want(torch is not None and np is not None and len(rest) == 4, "bad tensor")
    name, shape, data = rest[0], _shape(rest[1]), _unb64(rest[2])
    _want(name in _TORCH_DTYPES and type(rest[3]) is bool, "bad tensor")
    storage = "int16" if name == "bfloat16" else ("bool" if name == "bool" else name)
    dtype = np.dtype(storage)
    _want(len(data) == _size(shape) * dtype.itemsize, "a tensor of the wrong size")
    tensor = torch.from_numpy(np.frombuffer(data, dtype=dtype).reshape(shape).copy())
    if name == "bfloat16":
        tensor = tensor.view(torch.bfloat16)
    if rest[3]:
        tensor.requires_grad_(True)
    return tensor


def _decode_datetime(ep, rest, d):
    import datetime

    _want(len(rest) == 2 and isinstance(rest[0], list), "bad datetime")
    parts = rest[0]
    _want(all(type(p) is int for p in parts), "bad datetime")
    tz = None
    if rest[1] is not None:
        _want(type(rest[1]) in (int, float), "bad datetime")
        tz = datetime.timezone(datetime.timedelta(seconds=rest[1]))
    try:
        if len(parts) == 7:
            return datetime.datetime(*parts, tzinfo=tz)
        _want(len(parts) == 4, "bad time")
        return datetime.time(*parts, tzinfo=tz)
    except (TypeError, ValueError, OverflowError):
        raise BadMessage("bad datetime")


def _decode_simple(build, count, types=None):
    def decode(ep, rest, d):
        _want(len(rest) == count, "bad value")
        if types is not None:
            _want(all(type(x) in types for x in rest), "bad value")
        try:
            return build(*rest)
        except (TypeError, ValueError, OverflowError, ArithmeticError):
            raise BadMessage("bad value")

    return decode


def _namedtuple(ep, rest, d):
    import collections

    _want(len(rest) == 3 and isinstance(rest[0], str) and isinstance(rest[1], list), "bad tuple")
    name, fields = rest[0], rest[1]
    _want(name.isidentifier() and len(fields) <= 256, "bad tuple")
    _want(
        all(isinstance(f, str) and f.isidentifier() and not f.startswith("_") for f in fields),
        "bad tuple",
    )
    key = (name, tuple(fields))
    klass = _NAMEDTUPLES.get(key)
    if klass is None:
        klass = collections.namedtuple(name, fields)
        _NAMEDTUPLES[key] = klass
    values = ep._items(rest[2:], d)
    _want(len(values) == len(fields), "bad tuple")
    return klass(*values)


_NAMEDTUPLES = {}


# What a lent value can be (`Endpoint._lend`): the copies that have an identity to keep.
_LENT_TAGS = frozenset(("L", "D", "S", "nd", "ndo", "V", "RV", "pdDF", "pdS", "pil", "gpDF", "gpS"))


def _lent_tag(encoded):
    """Whether `encoded` (from the other side) is a value of a kind that is lent."""
    return bool(encoded) and type(encoded[0]) is str and encoded[0] in _LENT_TAGS


def _lendable(t):
    if t is list or t is dict or t is set:
        return True
    root = (getattr(t, "__module__", "") or "").split(".", 1)[0]
    return root == "numpy" or root == "pandas" or _values.copyable_type(t)


def _numpy_type_name(klass):
    """The name numpy's namespace has `klass` under when it is one of numpy's scalar types
    (`np.float32`, `np.integer`), else None. Read from the module's dict: no `__getattr__`."""
    np = _module("numpy")
    name = getattr(klass, "__name__", None)
    if np is None or not isinstance(name, str) or vars(np).get(name) is not klass:
        return None
    return name if issubclass(klass, np.generic) else None


def _numpy_type(ep, rest, d):
    np = _decoding_module("numpy")
    _want(np is not None and len(rest) == 1 and isinstance(rest[0], str), "bad numpy type")
    found = vars(np).get(rest[0])
    _want(isinstance(found, type) and _numpy_type_name(found) == rest[0], "bad numpy type")
    return found


def _builtin_type(ep, rest, d):
    _want(len(rest) == 1 and rest[0] in _BUILTIN_TYPES, "bad type")
    return getattr(builtins, rest[0])


def _defaultdict(ep, rest, d):
    import collections

    _want(len(rest) == 2 and (rest[0] is None or rest[0] in _BUILTIN_TYPES), "bad defaultdict")
    factory = None if rest[0] is None else getattr(builtins, rest[0])
    return collections.defaultdict(factory, ep._pairs(rest, d))


def _deque(ep, rest, d):
    import collections

    _want(len(rest) == 2 and (rest[1] is None or type(rest[1]) is int), "bad deque")
    return collections.deque(ep._items(rest[:1], d), rest[1])


def _encode_memory_file(obj, t):
    """An in-memory file (io.BytesIO, io.StringIO, not a subclass) as its content and position;
    a closed one is a handle."""
    import io

    if t is not io.BytesIO and t is not io.StringIO:
        return None
    try:
        content, position = obj.getvalue(), obj.tell()
    except ValueError:
        return None
    if t is io.BytesIO:
        return ["bio", _b64(content), position]
    return ["sio", content, position]


def _memory_file(kind, rest):
    import io

    _want(len(rest) == 2 and type(rest[1]) is int and rest[1] >= 0, "bad memory file")
    content, position = rest
    if kind == "bio":
        made = io.BytesIO(_unb64(content))
    else:
        _want(isinstance(content, str), "bad memory file")
        made = io.StringIO(content)
    made.seek(position)
    return made


def _path(ep, rest, d):
    import pathlib

    _want(len(rest) == 2 and isinstance(rest[0], str) and type(rest[1]) is bool, "bad path")
    return pathlib.PurePosixPath(rest[0]) if rest[1] else pathlib.PosixPath(rest[0])


def _torch_dtype(ep, rest, d):
    torch = _decoding_module("torch")
    _want(torch is not None and len(rest) == 1 and rest[0] in _TORCH_DTYPES, "bad dtype")
    return getattr(torch, rest[0])


def _torch_device(ep, rest, d):
    torch = _decoding_module("torch")
    _want(torch is not None and len(rest) == 1 and isinstance(rest[0], str), "bad device")
    try:
        return torch.device(rest[0])
    except (RuntimeError, TypeError, ValueError):
        raise BadMessage("bad device")


def _refused(ep, rest, d):
    _want(len(rest) == 1 and isinstance(rest[0], str), "bad refusal")
    return RefusedValue(rest[0])


def _module_value(ep, rest, d):
    if ep.policy is None:
        raise BadMessage("modules do not cross to this side")
    return ep.policy.decode_module(rest)


class RefusedValue(object):
    """Stands for an object the other side would not hand over; any use of it fails."""

    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what

    def __repr__(self):
        return "<refused: %s>" % self.what

    def __getattr__(self, name):
        raise Refused("the grader does not hand out %s" % self.what)

    def __call__(self, *args, **kwargs):
        raise Refused("the grader does not hand out %s" % self.what)


def _pandas_simple(name):
    def decode(ep, rest, d):
        pd = _decoding_module("pandas")
        _want(pd is not None, "no pandas here")
        if name == "pdTd":
            _want(len(rest) == 1 and type(rest[0]) is int, "bad timedelta")
            return pd.Timedelta(rest[0], unit="ns")
        _want(not rest, "bad value")
        return pd.NaT if name == "pdNaT" else pd.NA

    return decode


def _decode_complex(ep, rest, d):
    _want(len(rest) == 2 and all(type(x) in (int, float) for x in rest), "bad complex")
    return complex(rest[0], rest[1])


def _decode_exception_value(ep, rest, d):
    return ep.decode_exception(rest)


def _decode_open_exception(ep, rest, d):
    """["Eo", k]: the exception whose state is being decoded, k levels out."""
    _want(len(rest) == 1 and type(rest[0]) is int, "bad exception")
    _want(0 <= rest[0] < len(ep.exceptions_decoding), "bad exception")
    return ep.exceptions_decoding[-1 - rest[0]]


def _builtin_data(obj):
    """(kind, data) of an object of a subclass of str, int, float or bytes that crosses as a
    handle (a str-valued enum's member, a program's `class Tag(str)`): its builtin value,
    read by the builtin type's own methods (no method of the subclass runs); else None."""
    for base, kind, read in _BUILTIN_DATA:
        if isinstance(obj, base) and type(obj) is not base and type(obj) is not bool:
            return kind, read(obj)
    return None


_BUILTIN_DATA = (
    (str, "str", str.__str__),
    (int, "int", int.__int__),
    (float, "float", float.__float__),
    (bytes, "bytes", lambda obj: _b64(bytes(memoryview(obj)))),
)


def _decode_with_data(ep, rest, d):
    """A value of a builtin type's subclass the other side has (`_builtin_data`): here, an
    instance of that builtin type with its value, so that comparing, hashing and using it as
    a str or a number is this side's own doing on that value (as a str-valued enum member
    equals its str in one process), and any other attribute is the object's over there. Sent
    back, it is that object again."""
    _want(len(rest) == 3 and type(rest[0]) is str and rest[0] in _WITH_DATA_KINDS, "bad value")
    kind, data, handle = rest
    _want(isinstance(handle, list) and len(handle) == 3 and handle[0] == "H", "bad value")
    if kind == "bytes":
        _want(type(data) is str, "bad value")
        data = _unb64(data)
    elif kind == "float":  # JSON writes a whole float as a float, and inf and nan as floats
        _want(type(data) is float, "bad value")
    else:
        _want(type(data) is _WITH_DATA_KINDS[kind], "bad value")
    proxy = ep._proxy(handle[1:])
    found = ep.with_data.get(id(proxy))
    if found is not None and found[0] is proxy:
        return found[1]
    value = _WITH_DATA[kind](data)
    value.__dict__["_pb_proxy"] = proxy
    ep.with_data[id(proxy)] = (proxy, value)  # the same object again: `x is x` holds
    return value


def _with_data_class(base):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["_pb_proxy"], name)

    return type("Program" + base.__name__.capitalize(), (base,), {"__getattr__": __getattr__})


_WITH_DATA_KINDS = {"str": str, "int": int, "float": float, "bytes": bytes}
_WITH_DATA = dict((kind, _with_data_class(base)) for kind, base in _WITH_DATA_KINDS.items())
_WITH_DATA_TYPES = frozenset(_WITH_DATA.values())


def _decode_slice(ep, rest, d):
    _want(len(rest) == 3, "bad slice")
    return slice(*[ep.decode(x, d) for x in rest])


def _decode_value(ep, rest, d):
    _want(len(rest) == 6 and isinstance(rest[4], list) and isinstance(rest[5], list), "bad value")
    module, qualname, base, content, attributes, slots = rest
    if _values.preallocated(base):
        return _decode_early_value(ep, rest, d)
    # the parts first, in the sender's order: the shared values they hold keep their numbers
    content = ep.decode(content, d)
    attributes, slots = _named(ep, attributes, d, str), _named(ep, slots, d, int)
    klass = _values.library_class(module, qualname, ep.trusting)
    if klass is None:
        return ep._got(RefusedValue("an object of a class of no pinned library"))
    try:
        obj = _values.rebuild(klass, base, content, attributes, slots)
    except (ValueError, TypeError, KeyError):
        raise BadMessage("a %s that does not fit its class" % klass.__name__)
    if not ep.trusting and _values.equals_anything(obj):
        obj = RefusedValue("an object that says it equals anything")
    return ep._got(obj)


def _decode_reduced(ep, rest, d):
    _want(len(rest) == 4, "bad value")
    module, qualname = rest[0], rest[1]
    arguments, state = ep.decode(rest[2], d), ep.decode(rest[3], d)
    klass = _values.library_class(module, qualname, ep.trusting)
    if klass is None:
        return ep._got(RefusedValue("an object of a class of no pinned library"))
    _want(type(arguments) is tuple, "bad value")
    try:
        obj = _values.rebuild_reduced(klass, arguments, state)
    except ValueError as exc:
        raise BadMessage("a %s that does not fit its class (%s)" % (klass.__name__, exc))
    if not ep.trusting and _values.equals_anything(obj):
        obj = RefusedValue("an object that says it equals anything")
    return ep._got(obj)


def _decode_early_value(ep, rest, d):
    """A value numbered before its parts (as the sender did), allocated first so that they
    may refer back to it, then filled."""
    module, qualname, base, content, attributes, slots = rest
    klass = _values.library_class(module, qualname, ep.trusting)
    if klass is None:
        obj = ep._got(RefusedValue("an object of a class of no pinned library"))
        ep.decode(content, d)  # its parts still count: the shared values they hold keep
        _named(ep, attributes, d, str), _named(ep, slots, d, int)  # their numbers
        return obj
    slot = len(ep.got)
    try:
        obj = ep._got(_values.allocate(klass, base))
    except (ValueError, TypeError):
        raise BadMessage("a %s that does not fit its class" % klass.__name__)
    ep.pending[id(obj)] = False
    try:
        content = ep.decode(content, d)
        attributes, slots = _named(ep, attributes, d, str), _named(ep, slots, d, int)
    finally:
        referred = ep.pending.pop(id(obj))
    try:
        _values.fill(obj, klass, content, attributes, slots)
    except (ValueError, TypeError, KeyError):
        raise BadMessage("a %s that does not fit its class" % klass.__name__)
    if not ep.trusting and _values.equals_anything(obj):
        if referred:  # what refers to it holds the object itself: no stand-in can replace it
            raise BadMessage("a value that says it equals anything, referred to from within")
        obj = ep.got[slot] = RefusedValue("an object that says it equals anything")
    return obj


def _named(ep, pairs, d, key):
    out = []
    for pair in pairs:
        _want(isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is key, "bad value")
        out.append((pair[0], ep.decode(pair[1], d)))
    return out


def _decode_enum(ep, rest, d):
    _want(len(rest) == 3, "bad enum")
    klass = _values.library_class(rest[0], rest[1], ep.trusting)
    member = None if klass is None else _values.enum_member(klass, rest[2])
    return RefusedValue("a member of no pinned library's enum") if member is None else member


def _decode_local(ep, rest, d):
    _want(len(rest) == 1, "bad reference")
    return ep._local(rest[0])


def _decode_lent(ep, rest, d):
    """A copy of a value the other side keeps the original of (`Endpoint._lend`)."""
    _want(len(rest) == 2 and type(rest[0]) is int and isinstance(rest[1], list), "bad lent value")
    _want(_lent_tag(rest[1]), "bad lent value")
    obj = _decode_apart(ep, rest[1], d)
    if type(obj) is not Proxy:
        ep.borrowed.put(id(obj), (obj, rest[0], rest[1]), ep.frame_bytes)
        if ep.receiving is not None:
            ep.receiving.append((obj, rest[0]))
    return ep._got(obj)


def _decode_returned(ep, rest, d):
    """One of our own values, handed back unchanged (or its copy, once we no longer keep it)."""
    _want(len(rest) == 2 and type(rest[0]) is int and isinstance(rest[1], list), "bad value")
    _want(_lent_tag(rest[1]), "bad returned value")
    own = ep.lent.get(rest[0])
    return ep._got(own if own is not None else _decode_apart(ep, rest[1], d))


def _decode_part(ep, rest, d):
    """A part of one of our own values (`Endpoint._part`), as our value is now (the call's
    changes to it are taken before its answer): ours where it encodes as the other side's
    copy of it did, else that copy."""
    _want(len(rest) == 3 and type(rest[0]) is int and type(rest[1]) is int, "bad part")
    _want(isinstance(rest[2], list) and _lent_tag(rest[2]), "bad part")
    own = ep.lent.get(rest[0])
    if own is not None and rest[1] >= 0:
        numbered = ep._as_lent(own, 0, MAX_PART_PARTS)
        if numbered is not None and rest[1] < len(numbered[1]):
            part = numbered[1][rest[1]]
            mine = ep._as_lent(part, 0, MAX_PART_PARTS)
            if mine is not None and _same(mine[0], rest[2]):
                return ep._got(part)
    return ep._got(_decode_apart(ep, rest[2], d))


def _decode_global(ep, rest, d):
    """An installed package's sentinel (`_values.named_global`): this side's own of that name,
    as one process has one; else what the other side sent with it (a handle)."""
    _want(len(rest) == 3 and isinstance(rest[2], list) and rest[2][:1] == ["H"], "bad global")
    found = _values.global_named(rest[0], rest[1])
    return found if found is not None else ep._decode(rest[2], d)


def _decode_apart(ep, data, d):
    """A lent value's own encoding: its shared references count from its start."""
    saved, ep.got = ep.got, []
    try:
        return ep._decode(data, d)
    finally:
        ep.got = saved


def _restore(own, new):
    """`own` (a value this side lent) made what the other side's copy became, in place, where
    its kind allows: list, dict and set contents, an array of the same shape and dtype, a
    library value's attributes. Otherwise it stays as it was (a returned copy is then a copy)."""
    t = type(own)
    if t is not type(new):
        return
    if t is list:
        own[:] = new
    elif t is dict or t is set:
        own.clear()
        own.update(new)
    elif t is getattr(_module("numpy"), "ndarray", None):
        if own.shape == new.shape and own.dtype == new.dtype and own.flags.writeable:
            own[...] = new
    elif _values.copyable_type(t) and not t.__module__.startswith("geopandas."):
        layout = _values.layout(t)  # (a geopandas frame, as a pandas one, stays as it was)
        if layout is None or layout[0] is not object:
            return
        for member in layout[1]:  # slots: their descriptors, C code only
            try:
                value = member.__get__(new, t)
            except AttributeError:
                try:
                    member.__delete__(own)
                except AttributeError:
                    pass
            else:
                member.__set__(own, value)
        if type(getattr(own, "__dict__", None)) is dict:
            fields = getattr(new, "__dict__", None)
            vars(own).clear()
            vars(own).update(fields if type(fields) is dict else {})


def _refer_to(own, new, parts):
    """In each of `parts` (lists, dicts, library values), a direct reference to `new` made a
    reference to `own`: a restored cyclic value refers to itself, not to the copy."""
    for part in parts:
        if part is new:
            continue
        t = type(part)
        if isinstance(part, list):
            for i, item in enumerate(list.__iter__(part)):
                if item is new:
                    list.__setitem__(part, i, own)
        elif isinstance(part, dict):
            for k, item in list(dict.items(part)):
                if item is new:
                    dict.__setitem__(part, k, own)
        if not _values.copyable_type(t):
            continue
        layout = _values.layout(t)
        for member in layout[1] if layout else ():
            try:
                if member.__get__(part, t) is new:
                    member.__set__(part, own)
            except AttributeError:
                pass
        try:
            fields = object.__getattribute__(part, "__dict__") if t.__dictoffset__ else None
        except AttributeError:
            fields = None
        if type(fields) is dict:
            for k, item in list(fields.items()):
                if item is new:
                    fields[k] = own


class _Kept(object):
    """The last LENT entries, and only as many of them as KEPT_BYTES of messages carried (the
    message's size counts for each value lent in it): oldest out first."""

    def __init__(self):
        self.items = collections.OrderedDict()  # key -> [value, size]
        self.total = 0

    def get(self, key):
        entry = self.items.get(key)
        return None if entry is None else entry[0]

    def put(self, key, value, size):
        old = self.items.pop(key, None)
        if old is not None:
            self.total -= old[1]
        self.items[key] = [value, size]
        self.total += size
        self._prune()

    def update(self, key, value):
        entry = self.items.get(key)
        if entry is not None:
            entry[0] = value

    def resize(self, key, size):
        entry = self.items.get(key)
        if entry is not None:
            self.total += size - entry[1]
            entry[1] = size
            self._prune()

    def _prune(self):
        while self.items and (len(self.items) > LENT or self.total > KEPT_BYTES):
            _, (_, size) = self.items.popitem(last=False)
            self.total -= size


def _same(now, before):
    """Whether a copy's encoding now is the one it came with (JSON's text tells 1 from True
    and 1.0); a handle then (["H", id, info]) is a reference now (["R", id]), and the other way
    round."""
    if now == before:
        return _dumps(now) == _dumps(before)
    return _same_parts(now, before)


def _same_parts(now, before):
    if type(now) is not list or type(before) is not list:
        return _dumps(now) == _dumps(before)
    if len(now) == 2 and len(before) == 3 and now[0] == "R" and before[0] == "H":
        return type(before[2]) is dict and now[1] == before[1]
    if len(now) == 3 and len(before) == 2 and now[0] == "H" and before[0] == "R":
        return type(now[2]) is dict and now[1] == before[1]
    return len(now) == len(before) and all(_same_parts(a, b) for a, b in zip(now, before))


def _decode_shared(ep, rest, d):
    _want(len(rest) == 1 and type(rest[0]) is int and 0 <= rest[0] < len(ep.got), "bad reference")
    found = ep.got[rest[0]]
    if ep.pending and id(found) in ep.pending:
        ep.pending[id(found)] = True
    return found


_DECODERS = {
    "L": lambda ep, rest, d: ep._got(_decode_list(ep, rest, d)),
    "T": lambda ep, rest, d: tuple(ep._items(rest, d)),
    "S": lambda ep, rest, d: ep._got(_hashable(set, ep._items(rest, d))),
    "F": lambda ep, rest, d: _hashable(frozenset, ep._items(rest, d)),
    "D": lambda ep, rest, d: ep._got(_hashable(dict, ep._pairs(rest, d))),
    "@": _decode_shared,
    "K": _decode_lent,
    "O": _decode_returned,
    "P": _decode_part,
    "G": _decode_global,
    "OD": lambda ep, rest, d: _hashable(_ordered_dict, ep._pairs(rest, d)),
    "CNT": lambda ep, rest, d: _hashable(_counter, ep._pairs(rest, d)),
    "DD": _defaultdict,
    "DQ": _deque,
    "B": lambda ep, rest, d: _unb64(rest[0]) if len(rest) == 1 else _want(False, "bad bytes"),
    "BA": lambda ep, rest, d: (
        bytearray(_unb64(rest[0])) if len(rest) == 1 else _want(False, "bad bytes")
    ),
    "C": _decode_complex,
    "R": _decode_local,
    "H": lambda ep, rest, d: ep._proxy(rest),
    "BH": _decode_with_data,
    "E": _decode_exception_value,
    "Eo": _decode_open_exception,
    "X": _refused,
    "M": _module_value,
    "nd": _decode_nd,
    "ndo": _decode_ndo,
    "np": _decode_np,
    "npdt": lambda ep, rest, d: (
        _simple_dtype(_decoding_module("numpy"), rest[0])
        if len(rest) == 1 and _decoding_module("numpy")
        else _want(False, "bad dtype")
    ),
    "pdDF": _decode_frame,
    "gpDF": _decode_geo,
    "gpS": _decode_geo,
    "shp": _decode_geometry,
    "pdS": _decode_series,
    "pdI": lambda ep, rest, d: _decode_index(ep, ["pdI"] + rest, d),
    "pdR": lambda ep, rest, d: _decode_index(ep, ["pdR"] + rest, d),
    "pdMI": lambda ep, rest, d: _decode_index(ep, ["pdMI"] + rest, d),
    "pdTs": _decode_timestamp,
    "pil": _decode_image,
    "pdTd": _pandas_simple("pdTd"),
    "pdNaT": _pandas_simple("pdNaT"),
    "pdNA": _pandas_simple("pdNA"),
    "tt": _decode_tensor,
    "tS": lambda ep, rest, d: (
        _decoding_module("torch").Size(ep._items(rest, d))
        if _decoding_module("torch")
        else _want(False, "no torch")
    ),
    "tdt": _torch_dtype,
    "tdev": _torch_device,
    "dt": _decode_datetime,
    "tm": _decode_datetime,
    "date": lambda ep, rest, d: _decode_simple(_date, 1)(ep, rest, d),
    "td": lambda ep, rest, d: _decode_simple(_timedelta, 1)(ep, rest, d),
    "dec": _decode_simple(lambda s: _decimal()(s), 1, (str,)),
    "frac": _decode_simple(lambda n, m: _fraction()(n, m), 2, (int,)),
    "uuid": _decode_simple(lambda h: _uuid()(hex=h), 1, (str,)),
    "path": _path,
    "bio": lambda ep, rest, d: _memory_file("bio", rest),
    "sio": lambda ep, rest, d: _memory_file("sio", rest),
    "range": _decode_simple(range, 3, (int,)),
    "slice": _decode_slice,
    "...": lambda ep, rest, d: Ellipsis if not rest else _want(False, "bad value"),
    "NT": _namedtuple,
    "V": _decode_value,
    "RV": _decode_reduced,
    "EN": _decode_enum,
    "type": _builtin_type,
    "nptype": _numpy_type,
}


def _hashable(build, items):
    try:
        return build(items)
    except TypeError:
        raise BadMessage("an unhashable key")


def _ordered_dict(items):
    import collections

    return collections.OrderedDict(items)


def _counter(items):
    import collections

    counter = collections.Counter()
    for key, value in items:
        counter[key] = value
    return counter


def _date(parts):
    import datetime

    _want(
        isinstance(parts, list) and len(parts) == 3 and all(type(p) is int for p in parts),
        "bad date",
    )
    return datetime.date(*parts)


def _timedelta(parts):
    import datetime

    _want(
        isinstance(parts, list) and len(parts) == 3 and all(type(p) is int for p in parts),
        "bad timedelta",
    )
    return datetime.timedelta(days=parts[0], seconds=parts[1], microseconds=parts[2])


def _decimal():
    import decimal

    return decimal.Decimal


def _fraction():
    import fractions

    return fractions.Fraction


def _uuid():
    import uuid

    return uuid.UUID


# --------------------------------------------------------------------------- operations


def _op_getattr(ep, target, name):
    return getattr(target, name)


def _op_setattr(ep, target, name, value):
    setattr(target, name, value)


def _op_delattr(ep, target, name):
    delattr(target, name)


def _op_call(ep, target, args, named):
    """A call; its keyword arguments come as (name, value) pairs, so that each value is lent
    on its own (`Endpoint._lend`): a callee's `**kwargs` is a dict of its own anyway."""
    _want(type(args) is tuple and type(named) is tuple, "bad call")
    _want(all(type(p) is tuple and len(p) == 2 and type(p[0]) is str for p in named), "bad call")
    return target(*args, **dict(named))


def _binop(ep, target, name, other):
    _want(name in _BINOPS, "bad operator")
    function, reflected = _BINOPS[name]
    return function(other, target) if reflected else function(target, other)


def _unop(ep, target, name):
    import operator

    _want(name in _UNOPS, "bad operator")
    return getattr(operator, name)(target)


def _binops():
    """Operator name (as a proxy sends it) -> (function, reflected)."""
    import operator

    table = {}
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_",
                 "or_", "xor", "lshift", "rshift"):  # fmt: skip
        table[name] = (getattr(operator, name), False)
        table["r" + name] = (getattr(operator, name), True)
    for name in ("lt", "le", "gt", "ge", "eq", "ne", "contains"):
        table[name] = (getattr(operator, name), False)
    return table


_BINOPS = _binops()
_UNOPS = set(("neg", "pos", "abs", "invert", "index"))

_OPS = {
    "getattr": _op_getattr,
    "setattr": _op_setattr,
    "delattr": _op_delattr,
    "call": _op_call,
    "getitem": lambda ep, t, k: t[k],
    "setitem": lambda ep, t, k, v: t.__setitem__(k, v),
    "delitem": lambda ep, t, k: t.__delitem__(k),
    "len": lambda ep, t: len(t),
    "iter": lambda ep, t: iter(t),
    "next": lambda ep, t: next(t),
    "repr": lambda ep, t: repr(t),
    "str": lambda ep, t: str(t),
    "format": lambda ep, t, spec: format(t, spec),
    "bool": lambda ep, t: bool(t),
    "hash": lambda ep, t: hash(t),
    "binop": _binop,
    "unop": _unop,
    "enter": lambda ep, t: t.__enter__(),
    "exit": lambda ep, t, a, b, c: t.__exit__(a, b, c),
    "dir": lambda ep, t: sorted(str(n) for n in dir(t)),
    "instancecheck": lambda ep, t, x: isinstance(x, t),
    "subclasscheck": lambda ep, t, x: issubclass(x, t),
    "float": lambda ep, t: float(t),
    "int": lambda ep, t: int(t),
    "array": lambda ep, t: _module("numpy").asarray(t),
    "signature": lambda ep, t: _signature_data(t),
    "await": lambda ep, t: _awaited(t),
    "aiter": lambda ep, t: t.__aiter__(),
    "anext": lambda ep, t: _awaited(t.__anext__()),
    "aenter": lambda ep, t: _awaited(t.__aenter__()),
    "aexit": lambda ep, t, a, b, c: _awaited(t.__aexit__(a, b, c)),
}


def _signature_data(function):
    """`inspect.signature(function)` as data: [[name, kind, has default, default, has
    annotation, annotation] per parameter, has return annotation, return annotation]."""
    import inspect

    signature = inspect.signature(function)
    empty = inspect.Parameter.empty
    parameters = [
        [p.name, int(p.kind), p.default is not empty, None if p.default is empty else p.default,
         p.annotation is not empty, None if p.annotation is empty else p.annotation]
        for p in signature.parameters.values()
    ]  # fmt: skip
    returns = signature.return_annotation
    return [parameters, returns is not empty, None if returns is empty else returns]


def _signature(proxy):
    """The signature of the other side's callable, made here from what its side says of it
    (its parameters' names, kinds, defaults and annotations, crossing as any value does)."""
    import inspect

    data = proxy._pb("signature")
    _want(isinstance(data, list) and len(data) == 3 and isinstance(data[0], list), "bad signature")
    _want(type(data[1]) is bool, "bad signature")
    p = inspect.Parameter
    kinds = (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL, p.KEYWORD_ONLY)
    kinds += (p.VAR_KEYWORD,)  # by their values, 0 to 4
    empty, parameters = p.empty, []
    for entry in data[0][:1000]:
        _want(isinstance(entry, list) and len(entry) == 6, "bad signature")
        name, kind, has_default, default, has_annotation, annotation = entry
        _want(type(name) is str and type(kind) is int and 0 <= kind <= 4, "bad signature")
        _want(type(has_default) is bool and type(has_annotation) is bool, "bad signature")
        parameters.append(
            inspect.Parameter(
                name,
                kinds[kind],
                default=default if has_default else empty,
                annotation=annotation if has_annotation else empty,
            )
        )
    returns = data[2] if data[1] else empty
    return inspect.Signature(parameters, return_annotation=returns)


def _awaited(awaitable):
    """What `await awaitable` gives, run here to its end for the other side: on this process's
    own event loop (one for the process's life, as a process's coroutines share one), or,
    when that loop is already running further up this stack (the other side's coroutine, run
    for it, awaits one of ours), stepped right here, which serves a coroutine that never waits
    on a future (a callback that computes, or awaits the other side's objects). The awaiting
    side's event loop waits meanwhile, as it would while a coroutine of its own ran."""
    import asyncio

    if asyncio.events._get_running_loop() is None:
        if not _LOOP or _LOOP[0].is_closed():
            _LOOP[:] = [asyncio.new_event_loop()]
        return _LOOP[0].run_until_complete(awaitable)
    steps = awaitable.__await__()
    while True:
        try:
            waits_on = steps.send(None)
        except StopIteration as stop:
            return stop.value
        if waits_on is not None:  # a future only a running loop completes
            steps.close()
            raise RuntimeError(
                "an awaitable of the other process waits on %s, and this process's event loop "
                "is busy awaiting that process" % type(waits_on).__name__
            )


_LOOP = []


# --------------------------------------------------------------------------- proxies


class Proxy(object):
    """An object of the other process. Every operation is a request to it, except what its
    owner must not answer for this side: in the grader, comparisons are identity and a proxy
    has no truth value (`Endpoint.trusting` False)."""

    __slots__ = ("_pb_ep", "_pb_id", "_pb_kind", "_pb_claim", "__weakref__")

    @staticmethod
    def _make(ep, hid, kind, claim=None, klass=None):
        proxy = object.__new__(klass or Proxy)
        object.__setattr__(proxy, "_pb_ep", ep)
        object.__setattr__(proxy, "_pb_id", hid)
        object.__setattr__(proxy, "_pb_kind", kind)
        object.__setattr__(proxy, "_pb_claim", claim)
        return proxy

    @property
    def __class__(self):
        """What `isinstance` and `issubclass(x.__class__, ...)` see: the class of the object
        over there when it is one this process may grant it (`_claimed`), else Proxy."""
        return _claimed(self)

    def _pb(self, op, *args):
        return object.__getattribute__(self, "_pb_ep").request(op, self, *args)

    def __getattr__(self, name):
        if name == "__signature__":  # what `inspect.signature` of it finds
            return _signature(self)
        if name.startswith("__") and name.endswith("__") and name not in _FORWARDED_DUNDERS:
            raise AttributeError(name)
        return self._pb("getattr", name)

    def __setattr__(self, name, value):
        self._pb("setattr", name, value)

    def __delattr__(self, name):
        self._pb("delattr", name)

    def __call__(self, *args, **kwargs):
        return self._pb("call", args, tuple(kwargs.items()))

    def __getitem__(self, key):
        return self._pb("getitem", key)

    def __setitem__(self, key, value):
        self._pb("setitem", key, value)

    def __delitem__(self, key):
        self._pb("delitem", key)

    def __len__(self):
        n = self._pb("len")
        if type(n) is not int or n < 0:
            raise TypeError("len() of a program object is not a count")
        return n

    def __iter__(self):
        iterator = self._pb("iter")
        return _ProxyIterator(iterator)

    def __next__(self):
        return self._pb("next")

    def __contains__(self, item):
        return self._verdict("contains", item)

    def __repr__(self):
        text = self._pb("repr")
        return text if isinstance(text, str) else "<program object>"

    def __str__(self):
        text = self._pb("str")
        return text if isinstance(text, str) else "<program object>"

    def __format__(self, spec):
        text = self._pb("format", spec)
        return text if isinstance(text, str) else "<program object>"

    def __bool__(self):
        ep = object.__getattribute__(self, "_pb_ep")
        if not ep.trusting:
            raise TypeError("a program object that is not data has no truth value for the grader")
        return bool(self._pb("bool"))

    def __eq__(self, other):
        ep = object.__getattribute__(self, "_pb_ep")
        if not ep.trusting:
            return self is other
        return self._pb("binop", "eq", other)

    def __ne__(self, other):
        ep = object.__getattribute__(self, "_pb_ep")
        if not ep.trusting:
            return self is not other
        return self._pb("binop", "ne", other)

    def __hash__(self):
        ep = object.__getattribute__(self, "_pb_ep")
        if not ep.trusting:
            return hash((id(ep), object.__getattribute__(self, "_pb_id")))
        return self._pb("hash")

    def __enter__(self):
        return self._pb("enter")

    def __exit__(self, a, b, c):
        result = self._pb("exit", a, b, c)
        return result is True

    def __instancecheck__(self, obj):
        return self._pb("instancecheck", obj) is True

    def __subclasscheck__(self, klass):
        return self._pb("subclasscheck", klass) is True

    def __float__(self):
        value = self._pb("float")
        if type(value) is not float:
            raise TypeError("float() of a program object")
        return value

    def __int__(self):
        value = self._pb("int")
        if type(value) is not int:
            raise TypeError("int() of a program object")
        return value

    def __index__(self):
        value = self._pb("unop", "index")
        if type(value) is not int:
            raise TypeError("index of a program object")
        return value

    def __array__(self, dtype=None, copy=None):
        np = _module("numpy")
        value = self._pb("array")
        if type(value) is not np.ndarray:
            raise TypeError("not an array")
        return value if dtype is None else value.astype(dtype)

    def __dir__(self):
        names = self._pb("dir")
        return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []

    def __lt__(self, other):
        return self._verdict("lt", other)

    def __le__(self, other):
        return self._verdict("le", other)

    def __gt__(self, other):
        return self._verdict("gt", other)

    def __ge__(self, other):
        return self._verdict("ge", other)

    def _verdict(self, name, other):
        """Ordering and membership are answers a test asserts directly: the grader never takes
        them from the program (as with truth and equality); the program may ask the grader."""
        if not object.__getattribute__(self, "_pb_ep").trusting:
            raise TypeError("the program does not answer the grader's '%s' of its objects" % name)
        value = self._pb("binop", name, other)
        return bool(value) if name == "contains" else value

    def __neg__(self):
        return self._pb("unop", "neg")

    def __pos__(self):
        return self._pb("unop", "pos")

    def __abs__(self):
        return self._pb("unop", "abs")

    def __invert__(self):
        return self._pb("unop", "invert")


def _claimed(proxy):
    """The class a proxy's object says it has (its type's MRO, as the other side sent it),
    resolved here: the first class of it that this process has loaded itself and that
    `_claimable` grants; Proxy when none is. The other side can claim anything, so a claim is
    granted only for a class the program could have subclassed in its own process (an
    instance of its own subclass, with every method its own, would pass the same `isinstance`
    in one process): a claim gives it nothing it could not have honestly. Its answers stay
    answers of the other process; a proxy's comparisons and truth stay refused. Never a
    builtin or standard library class, a class with such a base (a dict, a number, a date,
    an exception) but for the abstract ones (`abc.ABC`, `typing.Generic`), a class whose
    values cross as copies (numpy's, pandas', torch's, Pillow's) or a test framework's or
    the harness's class: values of those would have crossed as values, and those frameworks
    steer the verdict. Resolved again until granted (the test
    may import the class's module after it got the proxy)."""
    claim = object.__getattribute__(proxy, "_pb_claim")
    if isinstance(claim, type):
        return claim
    if isinstance(claim, list):
        for entry in claim[:16]:
            klass = _resolve_class(entry)
            if klass is not None and _claimable(klass):
                object.__setattr__(proxy, "_pb_claim", klass)
                return klass
    return type(proxy)


def _own_class(entry):
    """The class the other side names by (module, qualname), when it is one of an installed
    package or the standard library that this process has loaded: one class, as in one
    process (the program's `error404 = werkzeug.exceptions.NotFound` is the grader's own
    NotFound, which the program's raised NotFound crosses as; a parameter annotated
    `pathlib.Path` is annotated with the grader's Path). Never the harness's, its test
    runner's or unittest's (`SkipTest` steers a verdict), nor a class of the program's files."""
    if not (isinstance(entry, list) and len(entry) == 2):
        return None
    module, qualname = entry
    if type(module) is not str or type(qualname) is not str:
        return None
    if module.split(".", 1)[0] in _NOT_OWN or not (_installed(module) or _stdlib(module)):
        return None  # (a builtin class crosses as itself, by identity: never by a name)
    return _class_in(module, qualname)


_NOT_OWN = frozenset(
    [m.split(".")[0] for m in _values.HARNESS_MODULES] + ["unittest", "builtins", "exceptions"]
)
_STDLIB = os.path.dirname(os.__file__) + os.sep


def _stdlib(name):
    """Whether module `name` is loaded here from the standard library (built in, or a file of
    the interpreter's own library, not of its site-packages)."""
    module = _module(name)
    if type(module) is not types.ModuleType:
        return False
    if name in sys.builtin_module_names:
        return True
    path = module.__dict__.get("__file__")
    if not isinstance(path, str) or not path.startswith(_STDLIB):
        return False
    parts = path.replace(os.sep, "/").split("/")
    return "site-packages" not in parts and "dist-packages" not in parts


def _resolve_class(entry):
    """A class of a module this process has loaded, by (module, qualname); or None."""
    if not (isinstance(entry, list) and len(entry) == 2):
        return None
    module, qualname = entry
    if type(qualname) is not str or not _installed(module):
        return None
    return _class_in(module, qualname)


def _class_in(module, qualname):
    """Class `qualname` of loaded module `module`, looked up in dictionaries (no attribute
    hook of anyone's runs), when it says it is that class; else None."""
    found = _module(module)
    for part in qualname.split("."):
        found = found.__dict__.get(part) if isinstance(found, (type, types.ModuleType)) else None
    if isinstance(found, type) and found.__module__ == module and found.__qualname__ == qualname:
        return found
    return None


_BASETYPE = 1 << 10  # Py_TPFLAGS_BASETYPE: a class that may be subclassed
# the harness and its test runner; the libraries whose values this codec builds (Pillow: its
# images, not its drawing contexts)
_UNCLAIMABLE = frozenset(
    [m.split(".")[0] for m in _values.HARNESS_MODULES] + ["numpy", "pandas", "torch"]
)


def _claimable(klass):
    if issubclass(klass, (type, BaseException)) or not klass.__flags__ & _BASETYPE:
        return False
    # every base but `object` and the abstract ones an installed package's: a dict's, a
    # number's, a date's value is data (a real one crosses as one), a thread is the runtime's
    return all(
        k.__module__ in _ABSTRACT or _installed(k.__module__) for k in klass.__mro__[:-1]
    ) and _installed(klass.__module__)


_ABSTRACT = ("abc", "typing", "_collections_abc", "collections.abc", "typing_extensions")


def _installed(name):
    """Whether module `name` is loaded here from an installed package (site-packages), and
    none of the harness, its test runner or a codec's library."""
    if type(name) is not str or name.split(".")[0] in _UNCLAIMABLE or name in _CODEC_MODULES:
        return False
    module = _module(name)  # a module as imported: not the program's (the test's `sample`)
    path = module.__dict__.get("__file__") if type(module) is types.ModuleType else None
    parts = path.replace(os.sep, "/").split("/") if isinstance(path, str) else ()
    return "site-packages" in parts or "dist-packages" in parts


_FORWARDED_DUNDERS = set(("__name__", "__qualname__", "__doc__", "__wrapped__", "__annotations__"))


class _Over(object):
    """A special attribute every class has (`__doc__`, `__init__`) read on a proxy: the
    object's over there, not Proxy's own (`inspect.signature(Item.__init__)` of the program's
    class is its `__init__`'s, a function's `__doc__` is its docstring)."""

    def __init__(self, name):
        self.name = name

    def __get__(self, proxy, owner=None):
        if proxy is None:
            return self
        return proxy._pb("getattr", self.name)


for _name in ("__doc__", "__init__"):
    type.__setattr__(Proxy, _name, _Over(_name))


def _make_binop(name):
    def forward(self, other):
        return self._pb("binop", name, other)

    forward.__name__ = "__%s__" % name.strip("_")
    return forward


for _name in (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and_",
    "or_",
    "xor",
    "lshift",
    "rshift",
):
    _dunder = _name.strip("_")
    setattr(Proxy, "__%s__" % _dunder, _make_binop(_name))
    setattr(Proxy, "__r%s__" % _dunder, _make_binop("r" + _name))


_ASYNC_PROTOCOLS = ("await", "aiter", "anext", "aenter")


class _Pending(object):
    """The awaitable of a proxy's asynchronous operation: awaited, the object's owner runs it
    to its end (`_awaited`)."""

    __slots__ = ("proxy", "op", "args")

    def __init__(self, proxy, op, *args):
        self.proxy, self.op, self.args = proxy, op, args

    def __await__(self):
        return _request(self.proxy, self.op, *self.args)


def _request(proxy, op, *args):
    """A generator that makes one request and returns its answer: `await` runs it."""
    return proxy._pb(op, *args)
    yield  # noqa  (unreachable: it makes this function a generator)


def _await(self):
    return _request(self, "await")


def _aiter(self):
    return self._pb("aiter")


def _anext(self):
    return _Pending(self, "anext")


def _aenter(self):
    return _Pending(self, "aenter")


def _aexit(self, a, b, c):
    return _Pending(self, "aexit", a, b, c)


_ASYNC_METHODS = {
    "await": {"__await__": _await},
    "aiter": {"__aiter__": _aiter},
    "anext": {"__anext__": _anext},
    "aenter": {"__aenter__": _aenter, "__aexit__": _aexit},
}
_PROXY_CLASSES = {}


def _proxy_class(protocols):
    """Proxy, or its subclass with the asynchronous protocols the object's class has (as the
    owner says): `inspect.isawaitable` of a proxy is true only when its object is awaitable."""
    if not isinstance(protocols, list) or not protocols:
        return Proxy
    key = tuple(p for p in _ASYNC_PROTOCOLS if p in protocols)
    found = _PROXY_CLASSES.get(key)
    if found is None:
        methods = {"__slots__": (), "__doc__": Proxy.__dict__["__doc__"]}
        for protocol in key:
            methods.update(_ASYNC_METHODS[protocol])
        found = _PROXY_CLASSES[key] = type("Proxy", (Proxy,), methods)
    return found


class _ProxyIterator(object):
    __slots__ = ("remote",)

    def __init__(self, remote):
        self.remote = remote

    def __iter__(self):
        return self

    def __next__(self):
        if not isinstance(self.remote, Proxy):  # the program answered with data: iterate it
            self.remote = iter(self.remote)
            return next(self.remote)
        return self.remote._pb("next")


def channel():
    """A connected pair of stream sockets, neither inherited across exec."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
