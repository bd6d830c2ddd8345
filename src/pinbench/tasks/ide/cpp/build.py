"""The build agent for C/C++ repositories: read `CMakeLists.txt` (the CMake release it needs,
the language standard, the packages it finds, how it registers its tests), build the
environment (the machine's clang, CMake and GoogleTest), and configure, build and run the
suite in the sandbox under pinbench's runner with per-test coverage: the baseline. The
repository's CMake code runs only in the sandbox; a dependency FetchContent would download is
served by the machine's package when pinbench knows it (GoogleTest), else the configure step
fails and the repository is rejected with CMake's own error."""

from __future__ import annotations

import re

import pinbench.envs as envs
from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.core.snapshots import Snapshot, left_out_note
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.cpp.builder import toolchain
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.cpp import source, tidy
from pinbench.tasks.ide.repo import Baseline, RepoBuild, RepoRejected, run_suite

_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
_TESTS = re.compile(
    r"\b(add_test|gtest_discover_tests|gtest_add_tests|catch_discover_tests|doctest_discover_tests)"
    r"\s*\(",
    re.I,
)
_FIND = re.compile(r"\bfind_package\s*\(\s*([\w.+-]+)", re.I)
_FETCH = re.compile(r"\bFetchContent_Declare\s*\(\s*([\w.+-]+)", re.I)
_MINIMUM = re.compile(r"cmake_minimum_required\s*\(\s*VERSION\s+([\d.]+)", re.I)


def detect(snap: Snapshot) -> bool:
    """A CMake project (a root `CMakeLists.txt`), or a C/C++ tree built by a Makefile and not
    a Python package (which is rejected, with the reason)."""
    if "CMakeLists.txt" in snap.files:
        return True
    python = any(p in snap.files for p in ("pyproject.toml", "setup.py", "setup.cfg"))
    return not python and any(m in snap.files for m in _MAKEFILES) and bool(source.code_files(snap))


def _cmake_files(snap: Snapshot) -> list[str]:
    return sorted(
        p
        for p in snap.files
        if (p.rsplit("/", 1)[-1] == "CMakeLists.txt" or p.endswith(".cmake"))
        and not source.hidden(p)
    )


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def build(snap: Snapshot, service: ExecutionService, name: str) -> tuple[RepoBuild, Environment]:
    if "CMakeLists.txt" not in snap.files:
        raise RepoRejected(
            "a Makefile project: only CMake projects are built (a Makefile's recipes are "
            "arbitrary commands, and name no tests pinbench can run one by one)"
        )
    cmake_files = _cmake_files(snap)
    texts = {p: snap.read(p) for p in cmake_files}
    root = texts["CMakeLists.txt"]
    notes: list[str] = []
    try:
        chain = toolchain()
    except EnvError as exc:
        raise RepoRejected(f"environment cannot be built: {exc}") from exc
    minimum = _MINIMUM.search(root)
    if minimum and _version(minimum.group(1)) > _version(chain.cmake_version):
        raise RepoRejected(
            f"it needs CMake {minimum.group(1)}; this machine's is {chain.cmake_version}"
        )
    if not any(_TESTS.search(t) for t in texts.values()):
        raise RepoRejected("it registers no tests with CTest (add_test, gtest_discover_tests)")
    found = sorted({m for t in texts.values() for m in _FIND.findall(t)})
    fetched = sorted({m for t in texts.values() for m in _FETCH.findall(t)})
    served = [f for f in fetched if f.lower() in ("googletest", "gtest", "googlemock", "gmock")]
    if served:
        notes.append(f"FetchContent {', '.join(served)}: served by the machine's GoogleTest")
    unserved = [f for f in fetched if f not in served]
    if unserved:
        notes.append(f"FetchContent {', '.join(unserved)}: needs the network; not served")
    language = tidy.standard(snap, c=False).removeprefix("-std=")
    spec = EnvSpec(toolchain="cpp", version=chain.major, pins=())
    notes += left_out_note(snap)
    try:
        env = envs.ensure(spec)
    except EnvError as exc:
        raise RepoRejected(f"environment cannot be built: {exc}") from exc
    baseline = run_baseline(snap, env, service)
    if not any(o == "passed" for o in baseline.outcomes.values()):
        why = baseline.collect_errors[0] if baseline.collect_errors else "no test passed"
        raise RepoRejected(f"its suite does not pass a single test: {why[:1500]}")
    return (
        RepoBuild(
            name=name,
            snapshot=snap.digest,
            ecosystem="cpp",
            sources=cmake_files[:50],
            requirements=[f"find_package({p})" for p in found]
            + [f"FetchContent({f})" for f in fetched],
            env=spec,
            toolchain_version=(
                f"clang {chain.clang_version}, CMake {chain.cmake_version}, "
                f"GoogleTest {chain.gtest_version}, {language}"
            ),
            env_key=env.key,
            baseline=baseline,
            notes=notes,
        ),
        env,
    )


def run_baseline(snap: Snapshot, env: Environment, service: ExecutionService) -> Baseline:
    test = TestSpec(kind=TestKind.CPP_REPO, code="", repo=snap.digest, trace=True)
    return run_suite(env, test, service, ())
