"""The repository build agent: snapshot a repository, read its declared dependencies, resolve
them to exact pins (recorded), build its pinbench environment, run its test suite in the
sandbox and record the baseline: which tests pass and which functions each test calls."""

from __future__ import annotations

import ast
import configparser
import re
import subprocess
import tomllib
from pathlib import Path
from types import ModuleType

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

import pinbench.envs as envs
from pinbench.core import snapshots
from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.core.paths import uv_cache_dir
from pinbench.core.snapshots import Snapshot
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python.builder import ensure, interpreters
from pinbench.envs.python.interpreters import uv_binary, uv_environ
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.cases import Language
from pinbench.tasks.ide.cpp import build as cpp_build
from pinbench.tasks.ide.csharp import build as csharp_build
from pinbench.tasks.ide.java import build as java_build
from pinbench.tasks.ide.node import build as node_build
from pinbench.tasks.ide.repo import (
    BUILD_VERSION,
    Baseline,
    RepoBuild,
    RepoRejected,
    run_suite,
)

_TEST_EXTRAS = {"test", "tests", "testing", "dev"}
_REQUIREMENT_FILES = (
    "requirements.txt",
    "requirements-test.txt",
    "requirements_test.txt",
    "requirements-dev.txt",
    "requirements_dev.txt",
    "test-requirements.txt",
    "test_requirements.txt",
    "dev-requirements.txt",
    "requirements/test.txt",
    "requirements/tests.txt",
    "requirements/dev.txt",
    "requirements/base.txt",
)


# The other ecosystems' build agents (the first that detects a repository builds it) and the
# languages their cases may be in
_AGENTS = {
    node_build: (Language.JAVASCRIPT, Language.TYPESCRIPT),
    java_build: (Language.JAVA,),
    cpp_build: (Language.CPP,),
    csharp_build: (Language.CSHARP,),
}


def _agent(snap: Snapshot) -> ModuleType | None:
    """The build agent of another ecosystem that takes this repository (None: Python's)."""
    return next((agent for agent in _AGENTS if agent.detect(snap)), None)


def languages(snap: Snapshot) -> tuple[Language, ...]:
    """The languages a repository's cases may be in, by the build agent that takes it."""
    agent = _agent(snap)
    return (Language.PYTHON,) if agent is None else _AGENTS[agent]


def build_repo(
    source: Path, service: ExecutionService, name: str | None = None, refresh: bool = False
) -> tuple[RepoBuild, Environment]:
    """Snapshot, resolve, build and run the baseline (remembered per snapshot)."""
    try:
        snap = snapshots.take(source)
    except snapshots.SnapshotError as exc:
        raise RepoRejected(str(exc)) from exc
    memo = snapshots.snapshots_dir() / f"{snap.digest}.build.json"
    if memo.exists() and not refresh:
        try:
            build = RepoBuild.model_validate_json(memo.read_text())
            if build.version == BUILD_VERSION:
                env = _ensure(build.env)
                if env.key == build.env_key:  # else the harness changed: build again
                    return build, env
        except ValueError:
            pass
    agent = _agent(snap)
    if agent is not None:
        build, env = agent.build(snap, service, name or source.resolve().name)
        memo.write_text(build.model_dump_json(indent=1))
        return build, env
    declared, sources, python, notes = declared_requirements(snap)
    own = canonicalize_name(name or source.name)
    declared = [r for r in declared if canonicalize_name(Requirement(r).name) != own]
    python_version = _choose_python(python)
    notes += snapshots.left_out_note(snap)
    pins = resolve_pins(declared, python_version)
    spec = EnvSpec(version=python_version, pins=tuple(pins), extras=("pytest",))
    try:
        env = ensure(spec)
    except EnvError as exc:
        raise _unbuildable(exc) from exc
    baseline = run_baseline(snap, env, service)
    build = RepoBuild(
        name=name or source.resolve().name,
        snapshot=snap.digest,
        sources=sources,
        requirements=declared,
        env=spec,
        toolchain_version=".".join(map(str, env.resolution.interpreter.version[:2])),
        env_key=env.key,
        baseline=baseline,
        notes=notes,
    )
    memo.write_text(build.model_dump_json(indent=1))
    return build, env


def _ensure(spec: EnvSpec) -> Environment:
    try:
        return envs.ensure(spec)
    except EnvError as exc:
        raise _unbuildable(exc) from exc


def _unbuildable(exc: EnvError) -> RepoRejected:
    log = f" (log: {exc.log})" if exc.log else ""
    return RepoRejected(f"environment cannot be built: {exc}{log}")


def run_baseline(snap: Snapshot, env: Environment, service: ExecutionService) -> Baseline:
    test = TestSpec(kind=TestKind.REPO, code="", repo=snap.digest, trace=True)
    return run_suite(env, test, service, ("pytest",))


# ------------------------------------------------------------------ declared dependencies


def declared_requirements(
    snap: Snapshot,
) -> tuple[list[str], list[str], SpecifierSet | None, list[str]]:
    """(requirements, the files they came from, requires-python, notes) from pyproject.toml,
    setup.cfg, literal arguments of setup.py and requirements files; test extras included."""
    found: list[str] = []
    sources: list[str] = []
    notes: list[str] = []
    python: SpecifierSet | None = None
    files = set(snap.files)
    if "pyproject.toml" in files:
        reqs, python = _from_pyproject(snap.read("pyproject.toml"), notes)
        found += reqs
        sources.append("pyproject.toml")
    if "setup.cfg" in files:
        reqs, cfg_python = _from_setup_cfg(snap.read("setup.cfg"))
        found += reqs
        python = python or cfg_python
        sources.append("setup.cfg")
    if "setup.py" in files:
        reqs, py_python = _from_setup_py(snap.read("setup.py"), notes)
        found += reqs
        python = python or py_python
        sources.append("setup.py")
    read: list[str] = []  # requirement files, in the order read (includes followed)
    for name in _REQUIREMENT_FILES:
        found += _from_requirements(snap, name, read)
    sources += read
    valid = []
    for text in dict.fromkeys(found):
        try:
            req = Requirement(text)
        except InvalidRequirement:
            notes.append(f"ignored a requirement that does not parse: {text!r}")
            continue
        if req.url:
            notes.append(f"ignored a direct reference: {text!r}")
            continue
        valid.append(str(req))
    return valid, sources, python, notes


def _from_pyproject(text: str, notes: list[str]) -> tuple[list[str], SpecifierSet | None]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        notes.append(f"pyproject.toml does not parse: {exc}")
        return [], None
    project = data.get("project", {})
    reqs = list(project.get("dependencies", []))
    for extra, items in project.get("optional-dependencies", {}).items():
        if extra in _TEST_EXTRAS:
            reqs += items
    for group, items in data.get("dependency-groups", {}).items():
        if group in _TEST_EXTRAS:
            reqs += [i for i in items if isinstance(i, str)]
    if "poetry" in data.get("tool", {}) and not project:
        notes.append("Poetry dependency tables are not read; declare them in [project]")
    return reqs, _specifier(project.get("requires-python"))


def _from_setup_cfg(text: str) -> tuple[list[str], SpecifierSet | None]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return [], None
    reqs = _lines(parser.get("options", "install_requires", fallback=""))
    if parser.has_section("options.extras_require"):
        for extra, value in parser.items("options.extras_require"):
            if extra in _TEST_EXTRAS:
                reqs += _lines(value)
    reqs += _lines(parser.get("options", "tests_require", fallback=""))
    return reqs, _specifier(parser.get("options", "python_requires", fallback=None))


def _from_setup_py(text: str, notes: list[str]) -> tuple[list[str], SpecifierSet | None]:
    """Literal keyword arguments of setup(...) only: setup.py is never executed."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return [], None
    reqs: list[str] = []
    python = None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setup"):
            continue
        for kw in node.keywords:
            try:
                value = ast.literal_eval(kw.value)
            except ValueError:
                if kw.arg in ("install_requires", "extras_require", "tests_require"):
                    notes.append(f"setup.py computes {kw.arg}; it is not read (never executed)")
                continue
            if kw.arg in ("install_requires", "tests_require") and isinstance(value, list):
                reqs += [str(v) for v in value]
            elif kw.arg == "extras_require" and isinstance(value, dict):
                reqs += [str(v) for k, vs in value.items() if k in _TEST_EXTRAS for v in vs]
            elif kw.arg == "python_requires" and isinstance(value, str):
                python = _specifier(value)
    return reqs, python


def _from_requirements(snap: Snapshot, name: str, seen: list[str]) -> list[str]:
    if name in seen or name not in snap.files:
        return []
    seen.append(name)
    reqs: list[str] = []
    for raw in snap.read(name).splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        include = re.match(r"^(-r|--requirement)\s*(\S+)", line)
        if include:
            target = (Path(name).parent / include.group(2)).as_posix()
            reqs += _from_requirements(snap, target, seen)
        elif not line.startswith(("-", ".")):
            reqs.append(line)
    return reqs


def _lines(value: str) -> list[str]:
    return [v.strip() for v in value.splitlines() if v.strip() and not v.strip().startswith("#")]


def _specifier(text: str | None) -> SpecifierSet | None:
    if not text:
        return None
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        return None


# ------------------------------------------------------------------ resolution


def _choose_python(wanted: SpecifierSet | None) -> str:
    """The newest CPython interpreter found here that the repository allows."""
    fits = sorted(
        {
            f"{i.version[0]}.{i.version[1]}"
            for i in interpreters()
            if i.implementation == "CPython"
            and (wanted is None or wanted.contains(".".join(map(str, i.version[:3]))))
        },
        key=lambda v: tuple(map(int, v.split("."))),
    )
    if not fits:
        raise RepoRejected(f"no interpreter here satisfies requires-python {wanted}")
    return fits[-1]


def resolve_pins(requirements: list[str], python_version: str) -> list[str]:
    """Exact pins for the requirements on that Python, by `uv pip compile` (the recorded
    resolution: the environment installs exactly these)."""
    if not requirements:
        return []
    cmd = [
        uv_binary(),
        "pip",
        "compile",
        "-",
        "--python-version",
        python_version,
        "--no-header",
        "--no-annotate",
        "--quiet",
        "--no-build",  # a dependency's metadata from its wheel: no build script runs here
    ]
    env = uv_environ(uv_cache_dir())
    try:
        done = subprocess.run(
            cmd,
            input="\n".join(requirements),
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RepoRejected(f"dependencies could not be resolved: {exc}") from exc
    if done.returncode != 0:
        reason = " ".join(done.stderr.split())[-800:]
        if "building from source is disabled" in reason:
            reason += " (dependencies are resolved from wheels only: a build script would run)"
        raise RepoRejected(f"dependencies cannot be resolved: {reason}")
    return [line.strip() for line in done.stdout.splitlines() if "==" in line]
