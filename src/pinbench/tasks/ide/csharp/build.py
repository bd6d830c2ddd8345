"""The build agent for C# repositories: read the `.csproj` files (SDK-style or old-style:
sources, framework references, NuGet packages, project references, defines), build the
environment (the machine's Mono, mcs and NUnit 2.6), compile every project and run the NUnit
suite in the sandbox with the methods each test enters recorded: the baseline. NuGet is not
reachable: NUnit and the test SDK are served by the machine's NUnit 2.6; another package is a
note, and the code that needs it does not compile."""

from __future__ import annotations

import pinbench.envs as envs
from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.core.snapshots import Snapshot, left_out_note
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.csharp.builder import toolchain
from pinbench.execution.local import ExecutionService
from pinbench.sandbox.inside._csharp import TEST_PACKAGES
from pinbench.tasks.ide.csharp import mcs
from pinbench.tasks.ide.repo import Baseline, RepoBuild, RepoRejected, run_suite


def detect(snap: Snapshot) -> bool:
    """A C# repository: a `.csproj` file."""
    return any(p.endswith(".csproj") for p in snap.files)


def build(snap: Snapshot, service: ExecutionService, name: str) -> tuple[RepoBuild, Environment]:
    projects = mcs.projects(snap)
    notes = [p["error"] for p in projects if p.get("error")]
    read = [p for p in projects if not p.get("error")]
    if not read:
        raise RepoRejected(notes[0] if notes else "no .csproj can be read")
    if not any(p["test"] for p in read):
        others = sorted(
            {
                k
                for p in read
                for k in p["packages"]
                if "xunit" in k.lower() or "mstest" in k.lower()
            }
        )
        why = f" (it uses {', '.join(others)})" if others else ""
        raise RepoRejected(f"it has no NUnit test project: only NUnit 2.6 runs here{why}")
    packages = sorted({k for p in read for k in p["packages"]})
    served = [k for k in packages if k.lower() in TEST_PACKAGES]
    unserved = [k for k in packages if k.lower() not in TEST_PACKAGES]
    if served:
        notes.append(f"NuGet packages served by the machine's NUnit 2.6: {', '.join(served)}")
    if unserved:
        notes.append(
            f"NuGet packages not available offline (code that needs them does not compile): "
            f"{', '.join(unserved)}"
        )
    try:
        chain = toolchain()
    except EnvError as exc:
        raise RepoRejected(f"environment cannot be built: {exc}") from exc
    spec = EnvSpec(toolchain="csharp", version=chain.mono_version.split(".")[0], pins=())
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
            ecosystem="csharp",
            sources=[p["path"] for p in projects],
            requirements=[f"{r} (framework)" for p in read for r in p["references"]]
            + [f"{k} (NuGet)" for k in packages],
            env=spec,
            toolchain_version=(
                f"Mono {chain.mono_version} (mcs, C# 7.2), NUnit {chain.nunit_version}"
            ),
            env_key=env.key,
            baseline=baseline,
            notes=notes,
        ),
        env,
    )


def run_baseline(snap: Snapshot, env: Environment, service: ExecutionService) -> Baseline:
    test = TestSpec(kind=TestKind.CSHARP_REPO, code="", repo=snap.digest, trace=True)
    return run_suite(env, test, service, ())
