"""Environments by toolchain: one module per toolchain (today `python`: CPython + uv), each
building a content-addressed environment from an `EnvSpec`. Nothing above this package knows
which toolchain an environment has; a new toolchain is a new module and one line in TOOLCHAINS."""

from __future__ import annotations

from collections.abc import Callable

from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.envs.python import builder as python

# toolchain name -> its `ensure`: build (or reuse) the environment of a spec
TOOLCHAINS: dict[str, Callable[[EnvSpec], Environment]] = {
    "python": python.ensure,
}


def ensure(spec: EnvSpec) -> Environment:
    """The environment of `spec`, built by its toolchain (or reused); raises EnvError."""
    build = TOOLCHAINS.get(spec.toolchain)
    if build is None:
        raise EnvError(
            f"no toolchain {spec.toolchain!r} (toolchains: {', '.join(sorted(TOOLCHAINS))})"
        )
    return build(spec)
