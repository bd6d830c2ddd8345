"""Content-addressed C# environments on the machine's Mono (Debian's mono-complete: the mcs
compiler, C# up to 7.2) with NUnit 2.6 (Debian's libnunit-cil-dev), pinbench's NUnit runner
(`PinbenchNUnit.cs`) compiled with mcs, and pinbench's Mono profiler
(`pinbench_mono_profiler.c`: the methods each test enters, with their file and line) compiled
with gcc against Mono's headers. Proved when built: a small library and its NUnit fixture are
compiled, one test is run under the runner with the profiler, and its result and the methods
it entered are read back, so a missing piece is one clear error.

An environment holds `harness/` (the runner, NUnit's assemblies beside it, the profiler),
`bin/python` (the interpreter that runs the sandbox's runner) and `pinbench-env.json`, the
manifest (the tools' paths, Mono's and NUnit's releases)."""

from __future__ import annotations

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

BUILDER_VERSION = 1
MANIFEST = "pinbench-env.json"
INSIDE = Path(inside.__file__).parent
RUNNER = INSIDE / "PinbenchNUnit.cs"
PROFILER = INSIDE / "pinbench_mono_profiler.c"
PROFILER_NAME = "pertest"  # mono --profile=pertest:... loads libmono-profiler-pertest.so
DEBIAN_PACKAGES = "mono-complete libnunit-cil-dev gcc"
NUNIT = Path("/usr/lib/cli")
NUNIT_ASSEMBLIES = ("nunit.framework", "nunit.core", "nunit.core.interfaces", "nunit.util")
MONO_HEADERS = Path("/usr/include/mono-2.0")


def _missing(what: str) -> EnvError:
    return EnvError(f"the C# toolchain needs {what}: install Debian's {DEBIAN_PACKAGES}")


@dataclass(frozen=True)
class Toolchain:
    mono: Path
    mcs: Path
    gcc: Path
    mono_version: str  # 6.8.0.105
    nunit: dict[str, Path]  # assembly name -> its dll

    @property
    def nunit_version(self) -> str:
        folder = self.nunit["nunit.framework"].parent.name
        return folder.rsplit("-", 1)[-1]


@cache
def toolchain() -> Toolchain:
    """The machine's Mono, mcs, gcc and NUnit 2.6; EnvError naming what to install."""
    mono, mcs, gcc = shutil.which("mono"), shutil.which("mcs"), shutil.which("gcc")
    if mono is None or mcs is None:
        raise _missing("Mono and its mcs compiler")
    if gcc is None or not (MONO_HEADERS / "mono" / "metadata" / "profiler.h").exists():
        raise _missing("gcc and Mono's headers (to build pinbench's profiler)")
    nunit = {}
    for name in NUNIT_ASSEMBLIES:
        found = sorted(NUNIT.glob(f"{name}-2.*/{name}.dll"))
        if not found:
            raise _missing(f"NUnit 2.6's {name}.dll")
        nunit[name] = found[-1]
    done = subprocess.run([mono, "--version"], capture_output=True, text=True, check=False)
    version = re.search(r"version ([\d.]+)", done.stdout)
    if version is None:
        raise EnvError(f"`mono --version` says no version: {done.stdout.strip()[:200]}")
    return Toolchain(Path(mono), Path(mcs), Path(gcc), version.group(1), nunit)


@cache
def _harness_digest() -> str:
    digest = hashlib.sha256(RUNNER.read_bytes())
    digest.update(PROFILER.read_bytes())
    digest.update((INSIDE / "_csharp.py").read_bytes())  # the sandbox's side of a suite
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Resolution:
    spec: EnvSpec
    toolchain: Toolchain

    @property
    def key(self) -> str:
        payload = {
            "builder": BUILDER_VERSION,
            "toolchain": "csharp",
            "mono": self.toolchain.mono_version,
            "nunit": self.toolchain.nunit_version,
            "harness": _harness_digest(),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:20]


class CsharpEnvironment(KeyedEnvironment["Resolution"]):
    """A C# environment (see the module)."""


def resolve(spec: EnvSpec) -> Resolution:
    """The machine's toolchain, when it is the Mono major release the spec asks for (any,
    when it names none); EnvError otherwise."""
    found = toolchain()
    if spec.version and spec.version.split(".")[0] != found.mono_version.split(".")[0]:
        raise EnvError(f"Mono {spec.version} is asked for; this machine's is {found.mono_version}")
    if spec.pins:
        raise EnvError(
            "C# environments take no pins (NuGet is not reachable; assemblies are the "
            f"machine's): {', '.join(spec.pins)}"
        )
    return Resolution(spec, found)


def ensure(spec: EnvSpec) -> CsharpEnvironment:
    return build(resolve(spec))


def build(resolution: Resolution) -> CsharpEnvironment:
    path, reused = build_once(
        envs_dir(), resolution.key, MANIFEST, lambda scratch: _install(resolution, scratch)
    )
    return CsharpEnvironment(resolution.key, path, resolution, reused)


def _tool(
    argv: list[str], what: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> str:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, check=False, timeout=300, cwd=cwd, env=env
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvError(f"{what}: {exc}") from exc
    if done.returncode != 0:
        raise EnvError(f"{what}: {(done.stdout + done.stderr).strip()[-800:]}")
    return done.stdout


def _install(resolution: Resolution, target: Path) -> dict[str, Any]:
    chain = resolution.toolchain
    harness = target / "harness"
    harness.mkdir()
    for dll in chain.nunit.values():  # beside the runner: it loads them from its directory
        shutil.copyfile(dll, harness / dll.name)
    runner = harness / "PinbenchNUnit.exe"
    references = [f"-r:{harness / f'{n}.dll'}" for n in NUNIT_ASSEMBLIES if n != "nunit.framework"]
    _tool(
        [str(chain.mcs), "-debug", "-nologo", f"-out:{runner}", *references, str(RUNNER)],
        "mcs cannot build pinbench's NUnit runner",
    )
    profiler = harness / f"libmono-profiler-{PROFILER_NAME}.so"
    _tool(
        [
            str(chain.gcc),
            "-O2",
            "-shared",
            "-fPIC",
            "-Wno-deprecated-declarations",
            f"-I{MONO_HEADERS}",
            "-o",
            str(profiler),
            str(PROFILER),
        ],
        "gcc cannot build pinbench's Mono profiler",
    )
    _prove(chain, harness, target / "proof")
    shutil.rmtree(target / "proof")
    bin_dir = target / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(runner_python())
    return {
        "toolchain": "csharp",
        "mono": chain.mono_version,
        "nunit": chain.nunit_version,
        "tools": {"mono": str(chain.mono), "mcs": str(chain.mcs)},
        "runner": "harness/PinbenchNUnit.exe",
        "nunit_framework": "harness/nunit.framework.dll",
        "profiler_dir": "harness",
        "profiler": PROFILER_NAME,
    }


_PROOF_LIBRARY = """namespace Proof {
    public static class Numbers {
        public static int Twice(int x) {
            return 2 * x;
        }
    }
}
"""
_PROOF_TESTS = """using NUnit.Framework;
namespace Proof.Tests {
    [TestFixture]
    public class NumbersTests {
        [Test]
        public void Twice() { Assert.AreEqual(4, Numbers.Twice(2)); }
    }
}
"""


def _prove(chain: Toolchain, harness: Path, scratch: Path) -> None:
    """A library and its fixture compiled, one test run under the runner with the profiler:
    it must pass and have entered the library's method."""
    scratch.mkdir()
    (scratch / "Numbers.cs").write_text(_PROOF_LIBRARY)
    (scratch / "NumbersTests.cs").write_text(_PROOF_TESTS)
    mcs = [str(chain.mcs), "-debug", "-nologo", "-target:library"]
    _tool([*mcs, "-out:Proof.dll", "Numbers.cs"], "mcs cannot compile a library", scratch)
    _tool(
        [
            *mcs,
            "-out:Proof.Tests.dll",
            "-r:Proof.dll",
            f"-r:{harness / 'nunit.framework.dll'}",
            "NumbersTests.cs",
        ],
        "mcs cannot compile an NUnit fixture",
        scratch,
    )
    shutil.copyfile(harness / "nunit.framework.dll", scratch / "nunit.framework.dll")
    trace = scratch / "trace.txt"
    out = _tool(
        [
            str(chain.mono),
            "--debug",
            f"--profile={PROFILER_NAME}:Proof",
            str(harness / "PinbenchNUnit.exe"),
            str(scratch / "Proof.Tests.dll"),
            "Proof.Tests.NumbersTests.Twice",
        ],
        "the proof test cannot run under pinbench's NUnit runner",
        scratch,
        env={
            "LD_LIBRARY_PATH": str(harness),
            "MONO_PERTEST_OUT": str(trace),
            "PATH": "/usr/bin:/bin",
        },
    )
    if '"state":"Success"' not in out:
        raise EnvError(f"the proof test did not pass under pinbench's NUnit runner: {out[-500:]}")
    recorded = trace.read_text() if trace.exists() else ""
    if not recorded.startswith("P\t") or "Proof.Numbers:Twice" not in recorded:
        raise EnvError(
            f"pinbench's Mono profiler did not record the proof test's calls: {recorded[:300]!r}"
        )
