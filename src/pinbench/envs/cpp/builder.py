"""Content-addressed C/C++ environments: the machine's clang (with its LLVM tools: the
coverage runtime, llvm-profdata, llvm-cov, llvm-cxxfilt), CMake and GoogleTest (Debian's
libgtest-dev/libgmock-dev), and pinbench's top-level CMake include. Same tools, same key, same
directory; proved when built (an instrumented GoogleTest program compiled, run, and its raw
profile read), so a missing runtime is one clear error, not a failed suite.

An environment holds `pinbench.cmake`, `bin/python` (the interpreter that runs the sandbox's
runner) and `pinbench-env.json`, the manifest the runner reads (the tools' paths)."""

from __future__ import annotations

import glob
import hashlib
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pinbench.sandbox.inside as inside
from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.paths import envs_dir
from pinbench.envs.keyed import KeyedEnvironment, build_once, runner_python
from pinbench.sandbox.inside import _cpp as cpp_runner

BUILDER_VERSION = 1
MANIFEST = "pinbench-env.json"
INSIDE = Path(inside.__file__).parent
CMAKE_INCLUDE = INSIDE / "pinbench.cmake"
DEBIAN_PACKAGES = "clang clang-tidy cmake llvm libclang-rt-14-dev libgtest-dev libgmock-dev"
# GoogleTest's CMake package, where Debian installs it (the multiarch directory of this machine)
GTEST_CONFIGS = (
    "/usr/lib/*/cmake/GTest/GTestConfigVersion.cmake",
    "/usr/lib/cmake/GTest/GTestConfigVersion.cmake",
)
LLVM_TOOLS = ("llvm-profdata", "llvm-cov", "llvm-cxxfilt")
PROFILE_VERSION = 8  # the raw profile format the sandbox's runner reads


@dataclass(frozen=True)
class Toolchain:
    clang: Path  # clang, in its LLVM directory (its tools beside it)
    clang_version: str  # 14.0.6
    cmake: Path
    cmake_version: str
    gtest_version: str

    @property
    def major(self) -> str:
        return self.clang_version.split(".")[0]

    def tools(self) -> dict[str, str]:
        bin_dir = self.clang.parent
        found = {
            "clang": str(self.clang),
            "clang++": str(bin_dir / "clang++"),
            "cmake": str(self.cmake),
            "ctest": str(self.cmake.parent / "ctest"),
            **{tool: str(bin_dir / tool) for tool in LLVM_TOOLS},
        }
        missing = [name for name, path in found.items() if not Path(path).exists()]
        if missing:
            raise _missing(", ".join(missing))
        return found


def _missing(what: str) -> EnvError:
    return EnvError(f"the C/C++ toolchain needs {what}: install Debian's {DEBIAN_PACKAGES}")


def _version(argv: list[str], pattern: str) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvError(f"`{' '.join(argv)}` cannot run: {exc}") from exc
    match = re.search(pattern, done.stdout + done.stderr)
    if not match:
        raise EnvError(f"`{' '.join(argv)}` says no version: {done.stdout.strip()[:200]}")
    return match.group(1)


def _gtest_config() -> Path | None:
    for pattern in GTEST_CONFIGS:
        found = sorted(glob.glob(pattern))
        if found:
            return Path(found[0])
    return None


@cache
def toolchain() -> Toolchain:
    """The machine's clang, CMake and GoogleTest; EnvError naming what to install."""
    clang, cmake = shutil.which("clang"), shutil.which("cmake")
    if clang is None or cmake is None:
        raise EnvError(
            f"the C/C++ toolchain needs clang and CMake: install Debian's {DEBIAN_PACKAGES}"
        )
    config = _gtest_config()
    if config is None:
        raise _missing("GoogleTest")
    gtest = re.search(r'PACKAGE_VERSION "([\d.]+)"', config.read_text())
    clang_path = Path(clang).resolve()
    return Toolchain(
        clang=clang_path,
        clang_version=_version([str(clang_path), "--version"], r"clang version ([\d.]+)"),
        cmake=Path(cmake).resolve(),
        cmake_version=_version([cmake, "--version"], r"cmake version ([\d.]+)"),
        gtest_version=gtest.group(1) if gtest else "?",
    )


@dataclass(frozen=True)
class Resolution:
    spec: EnvSpec
    toolchain: Toolchain

    @property
    def key(self) -> str:
        payload = {
            "builder": BUILDER_VERSION,
            "toolchain": "cpp",
            "clang": self.toolchain.clang_version,
            "cmake": self.toolchain.cmake_version,
            "gtest": self.toolchain.gtest_version,
            "harness": _harness_digest(),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:20]


@cache
def _harness_digest() -> str:
    """The top-level include and the sandbox's runner: a change to either is a new key."""
    digest = hashlib.sha256(CMAKE_INCLUDE.read_bytes())
    digest.update(Path(cpp_runner.__file__).read_bytes())
    return digest.hexdigest()[:16]


class CppEnvironment(KeyedEnvironment["Resolution"]):
    """A C/C++ environment (see the module)."""


def resolve(spec: EnvSpec) -> Resolution:
    """The machine's toolchain, when it is the clang major release the spec asks for (any,
    when it names none); EnvError otherwise."""
    found = toolchain()
    if spec.version and spec.version.split(".")[0] != found.major:
        raise EnvError(
            f"clang {spec.version} is asked for; this machine's is {found.clang_version}"
        )
    if spec.pins:
        raise EnvError(
            f"C/C++ environments take no pins (the project's dependencies are the machine's "
            f"packages): {', '.join(spec.pins)}"
        )
    return Resolution(spec, found)


def ensure(spec: EnvSpec) -> CppEnvironment:
    return build(resolve(spec))


def build(resolution: Resolution) -> CppEnvironment:
    path, reused = build_once(
        envs_dir(), resolution.key, MANIFEST, lambda scratch: _install(resolution, scratch)
    )
    return CppEnvironment(resolution.key, path, resolution, reused)


_PROOF = """#include <gtest/gtest.h>
int twice(int x) { return 2 * x; }
TEST(Proof, Twice) { EXPECT_EQ(twice(2), 4); }
"""


def _install(resolution: Resolution, target: Path) -> dict[str, Any]:
    tools = resolution.toolchain.tools()
    shutil.copyfile(CMAKE_INCLUDE, target / "pinbench.cmake")
    _prove(tools, target / "proof")
    shutil.rmtree(target / "proof")
    bin_dir = target / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(runner_python())
    chain = resolution.toolchain
    return {
        "toolchain": "cpp",
        "clang": chain.clang_version,
        "cmake": chain.cmake_version,
        "gtest": chain.gtest_version,
        "tools": tools,
    }


def _prove(tools: dict[str, str], scratch: Path) -> None:
    """Compile, link and run an instrumented GoogleTest program; its raw profile must be the
    format the runner reads."""
    scratch.mkdir()
    (scratch / "proof.cpp").write_text(_PROOF)
    binary, profile = scratch / "proof", scratch / "proof.profraw"
    argv = [
        tools["clang++"],
        "-fprofile-instr-generate",
        "-fcoverage-mapping",
        "-mllvm",
        "-disable-vp=true",
        str(scratch / "proof.cpp"),
        "-o",
        str(binary),
        "-lgtest_main",
        "-lgtest",
        "-pthread",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)
    if done.returncode != 0:
        raise EnvError(
            "clang cannot build an instrumented GoogleTest program (install Debian's "
            f"{DEBIAN_PACKAGES}): {done.stderr.strip()[-800:]}"
        )
    ran = subprocess.run(
        [str(binary)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={"LLVM_PROFILE_FILE": str(profile), "PATH": "/usr/bin:/bin"},
    )
    if ran.returncode != 0 or not profile.exists():
        raise EnvError(f"the instrumented proof program failed: {ran.stdout[-500:]}")
    try:
        hit = cpp_runner.hit_functions(str(profile))  # the sandbox's reader, on our profile
    except ValueError as exc:
        raise EnvError(f"clang's raw profiles cannot be read: {exc}") from exc
    if cpp_runner.name_ref("_Z5twicei") not in hit:
        raise EnvError("the proof program's coverage does not show the function it ran")
