"""The build agent for Maven repositories: read `pom.xml` (and its modules'), the Java release
it compiles for and its dependencies (all scopes: the tests need them), resolve them offline
from the local Maven repositories (Debian's packaged jars; a version Debian does not have is
replaced by the one it has, and the note says so), build the environment, and run the JUnit
suite in the sandbox under pinbench's runner with per-test JaCoCo coverage: the baseline.
Maven itself never runs: its plugins and extensions would be the repository's code."""

from __future__ import annotations

import pinbench.envs as envs
from pinbench.core.env import EnvError, Environment, EnvSpec
from pinbench.core.snapshots import Snapshot, left_out_note
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.java import debian, maven
from pinbench.envs.java.builder import PROVIDED, jdk, repositories
from pinbench.envs.system import SystemError_
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.java import source
from pinbench.tasks.ide.repo import Baseline, RepoBuild, RepoRejected, run_suite

DEFAULT_RELEASE = 8  # maven-compiler-plugin's default source/target
OLDEST_RELEASE = 8  # the oldest --release JDK 17's javac compiles for without complaint


def detect(snap: Snapshot) -> bool:
    """A Maven project: a root `pom.xml`."""
    return "pom.xml" in snap.files


def _poms(snap: Snapshot) -> list[tuple[str, maven.Pom]]:
    """The root pom and its modules' (recursively), as (directory, pom)."""
    found: list[tuple[str, maven.Pom]] = []
    pending = [""]
    while pending and len(found) < 200:
        directory = pending.pop(0)
        path = f"{directory}pom.xml"
        if path not in snap.files:
            continue
        try:
            pom = maven.parse_pom(snap.read(path), path)
        except (OSError, maven.PomError) as exc:
            raise RepoRejected(str(exc)) from exc
        found.append((directory, pom))
        pending += [f"{directory}{m.strip('/')}/" for m in pom.modules if m]
    return found


def build(snap: Snapshot, service: ExecutionService, name: str) -> tuple[RepoBuild, Environment]:
    poms = _poms(snap)
    if not poms:
        raise RepoRejected("pom.xml cannot be read")
    repos = repositories()
    notes: list[str] = []
    own = {(p.group, p.artifact) for _, p in poms}
    declared: dict[tuple[str, str], maven.Dependency] = {}
    for _, pom in poms:
        for dependency in maven.declared(pom, repos):
            if dependency.key in own or dependency.kind != "jar":
                continue
            if "${" in dependency.version:
                notes.append(f"{dependency.key}: version {dependency.version} unresolved")
            declared.setdefault(dependency.key, dependency)
    release = _release(poms, repos, notes)
    resolution, testing, extras = _resolve(list(declared.values()), repos, notes)
    direct = {(a.group, a.artifact): a for a in (*resolution.artifacts, *testing.artifacts)}
    pins = tuple(sorted(direct[k].coordinate for k in declared if k in direct))
    harnessed = sorted(f"{g}:{a}" for g, a in declared if (g, a) in PROVIDED)
    if harnessed:
        notes.append(f"served by the harness's JUnit (Debian's): {', '.join(harnessed)}")
    tests = [t for t in source.test_files(snap)]
    if not tests:
        raise RepoRejected("it has no test sources (src/test/java, test/)")
    spec = EnvSpec(toolchain="java", version=str(release), pins=pins, extras=extras)
    notes += left_out_note(snap)
    try:
        env = envs.ensure(spec)
    except EnvError as exc:
        raise RepoRejected(f"environment cannot be built: {exc}") from exc
    baseline = run_baseline(snap, env, service)
    return (
        RepoBuild(
            name=name,
            snapshot=snap.digest,
            ecosystem="java",
            sources=[f"{d}pom.xml" for d, _ in poms],
            requirements=[
                f"{d.group}:{d.artifact}:{d.version or '?'} ({d.scope})" for d in declared.values()
            ],
            env=spec,
            toolchain_version=f"{release} (JDK {jdk().version})",
            env_key=env.key,
            baseline=baseline,
            notes=notes,
        ),
        env,
    )


def _resolve(
    declared: list[maven.Dependency], repos: maven.Repositories, notes: list[str]
) -> tuple[maven.Resolution, maven.Resolution, tuple[str, ...]]:
    """The main and the test dependencies, from the local repositories, and else from the
    Debian packages that ship them (unpacked, named in the spec's extras). A main dependency
    that cannot be had rejects the repository; a test dependency is a note (the tests that
    need it do not compile and count as failed)."""
    main = [d for d in declared if d.scope != "test"]
    tests = [d for d in declared if d.scope == "test"]
    extras: tuple[str, ...] = ()
    for attempt in range(2):
        resolution = maven.resolve(main, repos, PROVIDED)
        taken = PROVIDED | {(a.group, a.artifact) for a in resolution.artifacts}
        testing = maven.resolve(tests, repos, taken)
        missing = resolution.missing + testing.missing
        if not missing or attempt:
            break
        packages = debian.packages_for(missing)
        if not packages:
            break
        try:
            fetched = debian.repository(tuple(sorted(packages)))
        except SystemError_ as exc:
            notes.append(f"Debian packages {', '.join(packages)} could not be unpacked: {exc}")
            break
        extras = tuple(f"{debian.PREFIX}{p}" for p in sorted(packages))
        notes.append(f"from Debian's packages (unpacked, not installed): {', '.join(packages)}")
        repos = maven.Repositories([*repos.roots, fetched])
    if resolution.missing:
        raise RepoRejected(
            "dependencies are not in the local Maven repositories (Debian's "
            f"/usr/share/maven-repo, PINBENCH_MAVEN_REPO, Debian's packages): "
            f"{', '.join(resolution.missing)}"
        )
    if testing.missing:
        notes.append(
            "test dependencies not in the local Maven repositories (the tests that need them "
            f"do not compile and count as failed): {', '.join(testing.missing)}"
        )
    notes += resolution.notes + testing.notes
    return resolution, testing, extras


def _release(poms: list[tuple[str, maven.Pom]], repos: maven.Repositories, notes: list[str]) -> int:
    """The newest Java release any of the poms compiles for (properties from parents too)."""
    found = [
        release
        for _, pom in poms
        if (release := pom.java_release(maven.effective(pom, repos)[0])) is not None
    ]
    if not found:
        notes.append(
            f"no Java release declared: {DEFAULT_RELEASE}, maven-compiler-plugin's default"
        )
        return DEFAULT_RELEASE
    release = max(found)
    available = jdk().feature
    if release > available:
        raise RepoRejected(f"it compiles for Java {release}; this machine's JDK is {jdk().version}")
    if release < OLDEST_RELEASE:
        notes.append(
            f"it declares Java {release}; compiled for {OLDEST_RELEASE}, the oldest JDK "
            f"{available} supports"
        )
        return OLDEST_RELEASE
    return release


def run_baseline(snap: Snapshot, env: Environment, service: ExecutionService) -> Baseline:
    test = TestSpec(kind=TestKind.JAVA_REPO, code="", repo=snap.digest, trace=True)
    return run_suite(env, test, service, ())
