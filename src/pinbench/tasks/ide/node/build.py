"""The build agent for npm-managed JavaScript and TypeScript repositories: read `package.json`
(dependencies, test-only dependencies, `engines.node`), take the exact versions from the
repository's own `package-lock.json` where it has one (else npm's resolution today; recorded
either way), pick the Node release the project declares, build the environment (no install
script runs), and run the test files in the sandbox under pinbench's Jest/Mocha-style runner
with per-test V8 coverage: the baseline."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pinbench.envs as envs
from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.core.snapshots import Snapshot, left_out_note
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.node import releases
from pinbench.envs.node.builder import resolve_ranges
from pinbench.envs.node.syntax import TYPESCRIPT, ParserUnavailable, ask_typescript
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.node import source
from pinbench.tasks.ide.repo import Baseline, RepoBuild, RepoRejected, run_suite

_PYTHON_PROJECT = ("pyproject.toml", "setup.py", "setup.cfg")
# Test runners, compilers, bundlers, linters and release tools: pinbench brings its own runner
# and TypeScript, and never runs the others; installing them only slows the build.
_TOOLING = re.compile(
    r"^(jest|mocha|vitest|ava|tap|tape|nyc|c8|ts-jest|ts-node|tsx|typescript|prettier|husky|"
    r"lint-staged|rimraf|standard|xo|np|release-it|semantic-release|typedoc|nodemon|"
    r"concurrently|cross-env|coveralls|codecov|istanbul|karma.*|tsd|dtslint|esbuild|tsup|"
    r"(@types/(jest|mocha))|((@[\w.-]+/)?eslint(-.*)?)|(@eslint/.*)|(@typescript-eslint/.*)|"
    r"(babel-.*)|(@babel/.*)|(jest-.*)|(@jest/.*)|(@vitest/.*)|(webpack.*)|(rollup.*)|"
    r"(@rollup/.*)|(@semantic-release/.*)|(mocha-.*))$"
)
_REGISTRY_SPEC = re.compile(r"^(npm:)?[\s\w.^~<>=|*x+-]*$")


def detect(snap: Snapshot) -> bool:
    """An npm project: a root `package.json`, and no Python project beside it."""
    files = set(snap.files)
    return "package.json" in files and not files.intersection(_PYTHON_PROJECT)


def harness_packages(node: str, typescript: bool) -> tuple[str, ...]:
    """What pinbench's runner needs beside the repository's dependencies: Jest's `expect` and
    `jest-mock` (the versions the Node release runs), TypeScript for a TypeScript repository."""
    modern = int(node.split(".")[0]) >= 14
    version = "29.7.0" if modern else "26.6.2"
    extras = (f"expect@{version}", f"jest-mock@{version}")
    return (*extras, TYPESCRIPT) if typescript else extras


def build(snap: Snapshot, service: ExecutionService, name: str) -> tuple[RepoBuild, Environment]:
    try:
        package = json.loads(snap.read("package.json"))
    except (OSError, ValueError) as exc:
        raise RepoRejected(f"package.json does not parse: {exc}") from exc
    if not isinstance(package, dict):
        raise RepoRejected("package.json is not a JSON object")
    notes: list[str] = []
    own = str(package.get("name") or name)
    declared = _declared(package, own, notes)
    locked = _locked(snap, declared, notes)
    missing = {n: r for n, r in declared.items() if n not in locked}
    try:
        resolved = {**locked, **resolve_ranges(missing)}
    except EnvError as exc:
        raise RepoRejected(f"dependencies cannot be resolved: {exc}") from exc
    node = choose_node(_engines(package))
    tests = source.test_files(snap)
    if not tests:
        raise RepoRejected("it has no test files (`*.test.js`, `*.spec.ts`, `test/`, `__tests__/`)")
    typescript = any(
        source.language_of(p).value == "typescript" for p in snap.files if source.is_source(p)
    )
    spec = EnvSpec(
        toolchain="node",
        version=node,
        pins=tuple(f"{n}@{v}" for n, v in sorted(resolved.items())),
        extras=harness_packages(node, typescript),
    )
    notes += left_out_note(snap)
    try:
        env = envs.ensure(spec)
    except EnvError as exc:
        log = f" (log: {exc.log})" if exc.log else ""
        raise RepoRejected(f"environment cannot be built: {exc}{log}") from exc
    baseline = run_baseline(snap, env, service, tests)
    sources = ["package.json"] + (
        ["package-lock.json"] if "package-lock.json" in snap.files else []
    )
    return (
        RepoBuild(
            name=name,
            snapshot=snap.digest,
            ecosystem="node",
            sources=sources,
            requirements=[f"{n}@{r}" for n, r in declared.items()],
            env=spec,
            toolchain_version=node,
            env_key=env.key,
            baseline=baseline,
            notes=notes,
        ),
        env,
    )


def _declared(package: dict[str, Any], own: str, notes: list[str]) -> dict[str, str]:
    """Dependencies and development dependencies (tests need them), less tooling pinbench
    replaces and specs that are not registry versions (git, files, links, workspaces)."""
    found: dict[str, str] = {}
    for table in ("dependencies", "devDependencies"):
        entries = package.get(table) or {}
        if not isinstance(entries, dict):
            notes.append(f"package.json {table} is not an object; ignored")
            continue
        for dep, spec in entries.items():
            if dep == own or _TOOLING.match(dep):
                continue
            if not isinstance(spec, str) or not _REGISTRY_SPEC.match(spec.strip()):
                notes.append(f"ignored {dep}@{spec!r}: not a registry version range")
                continue
            found.setdefault(dep, spec.strip() or "*")
    return found


def _locked(snap: Snapshot, declared: dict[str, str], notes: list[str]) -> dict[str, str]:
    """The versions the repository's own package-lock.json records for its dependencies."""
    if "package-lock.json" not in snap.files:
        return {}
    try:
        lock = json.loads(snap.read("package-lock.json"))
    except (OSError, ValueError):
        notes.append("package-lock.json does not parse; dependencies resolved by npm today")
        return {}
    packages = lock.get("packages") or {}
    old = lock.get("dependencies") or {}  # lockfile version 1
    found = {}
    for dep in declared:
        entry = packages.get(f"node_modules/{dep}") or old.get(dep) or {}
        version = entry.get("version") if isinstance(entry, dict) else None
        if isinstance(version, str) and re.fullmatch(r"\d+\.\d+\.\d+[\w.+-]*", version):
            found[dep] = version
    return found


def _engines(package: dict[str, Any]) -> str | None:
    engines = package.get("engines")
    wanted = engines.get("node") if isinstance(engines, dict) else None
    return wanted.strip() if isinstance(wanted, str) and wanted.strip() else None


def choose_node(wanted: str | None) -> str:
    """The harness's Node when the project allows it (or declares nothing), else the newest
    published release its `engines.node` range allows."""
    if wanted is None or _newest(wanted, [releases.HARNESS_NODE]):
        return releases.HARNESS_NODE
    try:
        found = _newest(wanted, releases.published())
    except EnvError as exc:
        raise RepoRejected(f"Node releases cannot be listed: {exc}") from exc
    if found is None:
        raise RepoRejected(f"no published Node release satisfies engines.node {wanted!r}")
    return found


def _newest(wanted: str, versions: list[str]) -> str | None:
    try:
        found = ask_typescript(
            source.HANDLER, {"op": "newest", "range": wanted, "versions": versions}
        )
    except ParserUnavailable as exc:
        raise RepoRejected(f"engines.node {wanted!r} cannot be read: {exc}") from exc
    return str(found) if found else None


def run_baseline(
    snap: Snapshot, env: Environment, service: ExecutionService, tests: list[str]
) -> Baseline:
    test = TestSpec(
        kind=TestKind.NODE_REPO, code="", repo=snap.digest, select=tuple(tests), trace=True
    )
    return run_suite(env, test, service, ())


def modules_of(env: Environment) -> Path:
    """The environment's `node_modules` (the linters resolve types and imports there)."""
    return env.path / "node_modules"
