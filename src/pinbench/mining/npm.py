"""Mining an npm package: each version's exports introspected in its own Node environment
(sandboxed, in the program's process: nothing is graded), and its TypeScript declarations
where it ships them. The snapshots diff like Python's (`mining.lifespans`)."""

from __future__ import annotations

import json
from importlib import resources

from packaging.version import InvalidVersion, Version

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Limits
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs import ensure
from pinbench.envs.node import registry
from pinbench.envs.node.syntax import TYPESCRIPT
from pinbench.execution.local import ExecutionService
from pinbench.mining.lifespans import MARKER, Snapshot, snapshot_of

MAX_DEPTH = 3
# The checker that reads the declarations (any package's `typescript` pin wins over it)
_TEST = "test('introspected', async () => { await require('./solution').done; });\n"


def released_versions(name: str, low: str, high: str) -> list[str]:
    """Final releases in [low, high] on the npm registry, oldest first."""
    lo, hi = Version(low), Version(high)
    found = []
    for text in registry.document(name).get("versions") or {}:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if not version.is_prerelease and not version.is_devrelease and lo <= version <= hi:
            found.append((version, text))
    return [text for _, text in sorted(found)]


def introspection_program(library: str) -> str:
    source = resources.files("pinbench.mining").joinpath("_introspect.js").read_text()
    header = (
        f"const LIBRARY = {json.dumps(library)};\nconst MARKER = {json.dumps(MARKER)};\n"
        f"const MAX_DEPTH = {MAX_DEPTH};\n"
    )
    return header + source


def snapshot(
    library: str,
    version: str,
    service: ExecutionService,
    node: str | None = None,
    deadline: float = 300.0,
) -> Snapshot:
    spec = EnvSpec(toolchain="node", version=node, pins=(f"{library}@{version}",))
    spec = spec.model_copy(update={"extras": (TYPESCRIPT,)})
    try:
        env = ensure(spec)
    except Exception as exc:
        return Snapshot(version=version, error=f"environment: {exc}")
    limits = Limits(wall_seconds=deadline, cpu_seconds=int(deadline), output_bytes=48 << 20)
    test = TestSpec(kind=TestKind.JEST, code=_TEST, module="solution", in_process=True)
    result = service.run(env, introspection_program(library), test, limits, ())
    return snapshot_of(version, result)
