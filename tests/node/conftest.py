"""Fixtures for the Node toolchain's tests: real npm resolution, real Node binaries from the
registry, one persistent pinbench home (tests/conftest.py) so the store stays warm."""

from __future__ import annotations

import shutil

import pytest

from pinbench.core.env import EnvSpec
from pinbench.envs import ensure
from pinbench.envs.node.builder import NodeEnvironment
from pinbench.tasks.generation.problem import JS_HARNESS, TS_HARNESS

OLD_NODE = "16.20.2"  # a release the machine does not have: fetched from the npm registry


@pytest.fixture(scope="session", autouse=True)
def _needs_npm() -> None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.fail("the Node toolchain's tests need node and npm on PATH (.ci/run installs them)")


@pytest.fixture(scope="session")
def lodash3() -> NodeEnvironment:
    """lodash 3 on Node 16 with the harness's tools (TypeScript too)."""
    spec = EnvSpec(
        toolchain="node",
        version=OLD_NODE,
        pins=("lodash@3.10.1",),
        extras=(*JS_HARNESS, *TS_HARNESS),
    )
    env = ensure(spec)
    assert isinstance(env, NodeEnvironment)
    return env
