"""Environments by toolchain: one module per toolchain (today `python`: CPython + uv), each
building a content-addressed environment from an `EnvSpec`. Nothing above this package knows
which toolchain an environment has; a new toolchain is a new module and one line in TOOLCHAINS."""

from __future__ import annotations

import threading
from collections.abc import Callable

from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.envs.cpp import builder as cpp
from pinbench.envs.csharp import builder as csharp
from pinbench.envs.java import builder as java
from pinbench.envs.node import builder as node
from pinbench.envs.python import builder as python

# toolchain name -> its `ensure`: build (or reuse) the environment of a spec
TOOLCHAINS: dict[str, Callable[[EnvSpec], Environment]] = {
    "python": python.ensure,
    "node": node.ensure,
    "java": java.ensure,
    "cpp": cpp.ensure,
    "csharp": csharp.ensure,
}


def ensure(spec: EnvSpec) -> Environment:
    """The environment of `spec`, built by its toolchain (or reused); raises EnvError."""
    build = TOOLCHAINS.get(spec.toolchain)
    if build is None:
        raise EnvError(
            f"no toolchain {spec.toolchain!r} (toolchains: {', '.join(sorted(TOOLCHAINS))})"
        )
    return build(spec)


class Environments:
    """Each environment built once per process, even when many callers need it at the same
    time; a failure is kept too (its log says why), so it is not rebuilt for every caller."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._locks: dict[EnvSpec, threading.Lock] = {}
        self._built: dict[EnvSpec, Environment | Exception] = {}

    def get(self, spec: EnvSpec) -> Environment | Exception:
        with self._lock:
            lock = self._locks.setdefault(spec, threading.Lock())
        with lock:
            if spec not in self._built:
                try:
                    self._built[spec] = ensure(spec)
                except Exception as exc:  # the callers' environment outcome
                    self._built[spec] = exc
            return self._built[spec]
