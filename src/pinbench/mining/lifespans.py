"""Introspect each version's public API in its environment, then diff consecutive versions:
when each API was added, deprecated and removed; renames; argument changes. Each change
becomes a candidate problem skeleton for a person to complete and `validate --discriminative`
to prove."""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

from packaging.version import Version
from pydantic import BaseModel, Field

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Execution, Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import ensure
from pinbench.envs.python.imports import import_names
from pinbench.envs.python.index import project_files
from pinbench.execution.local import ExecutionService

MARKER = "@@pinbench-api@@"  # _introspect.py writes its JSON after this
Params = list[list[Any]]  # [name, kind, default repr or None]


class Snapshot(BaseModel):
    """One version's public API: qualified name -> {kind, params, deprecated, doc}."""

    version: str
    api: dict[str, dict[str, Any]] = Field(default_factory=dict)
    failed_modules: dict[str, str] = Field(default_factory=dict)
    error: str | None = Field(default=None, description="why this version could not be mined")


class Lifespan(BaseModel):
    name: str
    kind: str
    added: str | None = Field(description="first version with it; None: already in the first")
    deprecated: str | None
    removed: str | None = Field(description="first version without it after it existed")
    tag: str = Field(description="VersiCode's lifespan tag: addition, deprecation or general")


class Change(BaseModel):
    """One difference between two consecutive versions."""

    version: str = Field(description="the version where the change appears")
    previous: str
    kind: str = Field(
        description="added, removed, deprecated, renamed, argument_added, argument_removed, "
        "argument_renamed, default_changed, became_keyword_only"
    )
    name: str
    detail: str = ""


class Mined(BaseModel):
    library: str
    language: str = Field(default="python", description="python, or javascript for npm")
    versions: list[str]
    snapshots: list[Snapshot]
    lifespans: list[Lifespan]
    changes: list[Change]


def released_versions(library: str, low: str, high: str) -> list[str]:
    """Final releases in [low, high] from the package index, oldest first."""
    lo, hi = Version(low), Version(high)
    found = set()
    for dist in project_files(library):
        version = dist.version
        if not version.is_prerelease and not version.is_devrelease and lo <= version <= hi:
            found.add(version)
    return [str(v) for v in sorted(found)]


def introspection_program(roots: list[str], module_seconds: int) -> str:
    source = resources.files("pinbench.mining").joinpath("_introspect.py").read_text()
    header = f"ROOTS = {roots!r}\nMODULE_SECONDS = {module_seconds}\nMARKER = {MARKER!r}\n"
    return header + source


def snapshot(
    library: str,
    version: str,
    service: ExecutionService,
    python: str | None = None,
    module_seconds: int = 10,
    deadline: float = 300.0,
) -> Snapshot:
    spec = EnvSpec(version=python, pins=(f"{library}=={version}",))
    try:
        env = ensure(spec)
    except Exception as exc:
        return Snapshot(version=version, error=f"environment: {exc}")
    roots = import_names(env.path, spec.pins[0]) or [library.replace("-", "_")]
    limits = Limits(
        wall_seconds=deadline,
        cpu_seconds=int(deadline),
        output_bytes=48 << 20,
        address_space_bytes=8 << 30,
    )
    test = TestSpec(kind=TestKind.SCRIPT, code="")
    result = service.run(env, introspection_program(roots, module_seconds), test, limits, ())
    return snapshot_of(version, result)


def snapshot_of(version: str, result: Execution) -> Snapshot:
    """A version's snapshot from its introspection's execution: the JSON after the marker in
    its output (`{"api": {...}, "failed": {module: error}}`), or why there is none."""
    if result.status is not Status.PASSED:
        return Snapshot(version=version, error=f"{result.status}: {result.message[:300]}")
    _, marker, payload = result.stdout.rpartition(MARKER)
    try:
        data = json.loads(payload) if marker else None
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("api"), dict):
        return Snapshot(version=version, error="introspection output is not JSON")
    failed = {str(k): str(v) for k, v in (data.get("failed") or {}).items()}
    return Snapshot(version=version, api=data["api"], failed_modules=failed)


def mine(
    library: str,
    versions: list[str],
    service: ExecutionService,
    *,
    python: str | None = None,
    jobs: int = 2,
    on_version: Callable[[Snapshot], None] | None = None,
    shoot: Callable[[str, str, ExecutionService, str | None], Snapshot] | None = None,
    language: str = "python",
) -> Mined:
    """`shoot` takes one version's snapshot (default: Python's; `mining.npm.snapshot` for npm,
    with `python` then naming the Node release)."""
    ordered = sorted(versions, key=Version)
    take = shoot or snapshot

    def one(version: str) -> Snapshot:
        shot = take(library, version, service, python)
        if on_version is not None:
            on_version(shot)
        return shot

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        snapshots = list(pool.map(one, ordered))
    usable = [s for s in snapshots if s.error is None]
    return Mined(
        library=library,
        language=language,
        versions=ordered,
        snapshots=snapshots,
        lifespans=lifespans(usable),
        changes=changes(usable),
    )


def lifespans(snapshots: list[Snapshot]) -> list[Lifespan]:
    names = sorted({name for s in snapshots for name in s.api})
    result = []
    for name in names:
        present = [name in s.api for s in snapshots]
        first = present.index(True)
        removed = next((s.version for s in snapshots[first:] if name not in s.api), None)
        deprecated = next(
            (s.version for s in snapshots if name in s.api and s.api[name]["deprecated"]), None
        )
        added = snapshots[first].version if first > 0 else None
        kind = next(s.api[name]["kind"] for s in snapshots if name in s.api)
        tag = "deprecation" if (deprecated or removed) else "addition" if added else "general"
        result.append(
            Lifespan(
                name=name, kind=kind, added=added, deprecated=deprecated, removed=removed, tag=tag
            )
        )
    return result


def changes(snapshots: list[Snapshot]) -> list[Change]:
    found: list[Change] = []
    for before, after in itertools.pairwise(snapshots):
        added = sorted(set(after.api) - set(before.api))
        removed = sorted(set(before.api) - set(after.api))
        renamed = _renames(before, after, added, removed)
        gone = {old for old, _ in renamed}
        new = {new for _, new in renamed}

        change = functools.partial(Change, version=after.version, previous=before.version)

        found += [change(kind="renamed", name=n, detail=f"from {old}") for old, n in renamed]
        found += [change(kind="added", name=n) for n in added if n not in new]
        found += [change(kind="removed", name=n) for n in removed if n not in gone]
        for name in sorted(set(before.api) & set(after.api)):
            old, cur = before.api[name], after.api[name]
            if cur["deprecated"] and not old["deprecated"]:
                found.append(change(kind="deprecated", name=name))
            found += [change(kind=k, name=name, detail=d) for k, d in _arguments(old, cur)]
    return found


def _renames(
    before: Snapshot, after: Snapshot, added: list[str], removed: list[str]
) -> list[tuple[str, str]]:
    """A removed and an added API in the same parent, of the same kind, with the same
    parameters (or the same first doc line), matched one to one."""
    pairs = []
    candidates = {n: after.api[n] for n in added}
    for old in removed:
        parent = old.rsplit(".", 1)[0]
        info = before.api[old]
        matches = [
            n
            for n, cur in candidates.items()
            if n.rsplit(".", 1)[0] == parent
            and cur["kind"] == info["kind"] != "attribute"
            and (
                (cur["params"] is not None and cur["params"] == info["params"])
                or (info["doc"] and cur["doc"] == info["doc"])
            )
        ]
        if len(matches) == 1:
            pairs.append((old, matches[0]))
            del candidates[matches[0]]
    return pairs


def _arguments(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    before: Params | None = old.get("params")
    after: Params | None = new.get("params")
    if before is None or after is None:
        return []
    b = {p[0]: p for p in before}
    a = {p[0]: p for p in after}
    result = []
    gained = [n for n in a if n not in b]
    lost = [n for n in b if n not in a]
    if (
        len(gained) == 1
        and len(lost) == 1
        and before.index(b[lost[0]]) == after.index(a[gained[0]])
    ):
        result.append(("argument_renamed", f"{lost[0]} -> {gained[0]}"))
    else:
        result += [("argument_added", n) for n in gained]
        result += [("argument_removed", n) for n in lost]
    for name in sorted(set(a) & set(b)):
        if a[name][2] != b[name][2]:
            result.append(("default_changed", f"{name}: {b[name][2]} -> {a[name][2]}"))
        if a[name][1] == "KEYWORD_ONLY" and b[name][1] != "KEYWORD_ONLY":
            result.append(("became_keyword_only", name))
    return result


def candidates(mined: Mined) -> list[dict[str, Any]]:
    """Problem skeletons, one per API-level change (not per argument default): the pinned
    side is the version where the change appears, the contrast the version before it."""
    skeletons = []
    module = mined.library.replace("-", "_")
    for index, ch in enumerate(c for c in mined.changes if c.kind != "default_changed"):
        skeleton: dict[str, Any] = {
            "id": f"{mined.library}-{ch.version}-mined-{index:03d}".replace("/", "-"),
            "library": mined.library,
            "version": ch.version,
            "problem": f"TODO: a task whose natural solution uses {ch.name} "
            f"({ch.kind.replace('_', ' ')}{': ' + ch.detail if ch.detail else ''} in "
            f"{ch.version}, compared with {ch.previous}).",
            "starter_code": f'import {module}\n\n\ndef solution():\n    """TODO"""\n',
            "solution": "",
            "hidden_test": {"kind": "script", "code": "# TODO\n"},
            "contrast": {"version": ch.previous},
            "tags": [f"api:{ch.name}", f"mined:{ch.kind}"],
            "source": f"pinbench mine {mined.library}: {ch.kind} {ch.name} {ch.detail}".strip(),
        }
        if mined.language != "python":
            skeleton.update(
                language=mined.language,
                starter_code=f"const lib = require({json.dumps(mined.library)});\n\n"
                "function solution() {\n  // TODO\n}\n\nmodule.exports = { solution };\n",
                hidden_test={"kind": "jest", "module": "solution", "code": "// TODO\n"},
            )
        skeletons.append(skeleton)
    return skeletons
