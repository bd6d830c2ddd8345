"""Content-addressed Java environments: the machine's JDK, a project's dependencies resolved
offline from local Maven repositories, and the harness (JUnit Platform with the Jupiter and
Vintage engines, JaCoCo, pinbench's runner) from the machine's Debian packages. Same spec, same
key, same directory; built in scratch, renamed into place.

An environment holds `lib/` (the dependencies' jars, copied: the sandbox sees no home or cache),
`harness/` (the runner's classes, the harness's jars and `agent.jar`, JaCoCo's agent as a
manifest naming them), `bin/python` (the interpreter that runs the sandbox's runner) and
`pinbench-env.json`, the manifest the runner reads (JDK home, class paths, release)."""

from __future__ import annotations

import hashlib
import json
import os
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
from pinbench.envs import system
from pinbench.envs.java import debian, maven
from pinbench.envs.keyed import KeyedEnvironment, build_once, runner_python

BUILDER_VERSION = 1
MANIFEST = "pinbench-env.json"
RUNNER = Path(inside.__file__).parent / "PinbenchJUnit.java"
DEBIAN_JARS = Path("/usr/share/java")
DEBIAN_REPOSITORY = Path("/usr/share/maven-repo")
# The harness's jars (Debian: junit4, junit5, libjacoco-java, libasm-java) and the artifacts
# they stand for: a project's own JUnit declaration is served by these.
HARNESS_JARS = (
    "junit-platform-launcher.jar",
    "junit-platform-engine.jar",
    "junit-platform-commons.jar",
    "junit-jupiter-engine.jar",
    "junit-jupiter-api.jar",
    "junit-jupiter-params.jar",
    "junit-vintage-engine.jar",
    "junit4.jar",
    "hamcrest.jar",  # 2.2: core and library
    "opentest4j.jar",
    "apiguardian-api.jar",
)
AGENT_JARS = (
    "org.jacoco.agent.rt.jar",
    "org.jacoco.core.jar",
    "asm.jar",
    "asm-commons.jar",
    "asm-tree.jar",
)
PROVIDED = frozenset(
    {
        ("junit", "junit"),
        ("org.hamcrest", "hamcrest-core"),
        ("org.hamcrest", "hamcrest"),
        ("org.hamcrest", "hamcrest-library"),
        ("org.hamcrest", "hamcrest-all"),
        ("org.opentest4j", "opentest4j"),
        ("org.apiguardian", "apiguardian-api"),
        *(
            ("org.junit.jupiter", a)
            for a in (
                "junit-jupiter",
                "junit-jupiter-api",
                "junit-jupiter-engine",
                "junit-jupiter-params",
            )
        ),
        *(
            ("org.junit.platform", a)
            for a in (
                "junit-platform-launcher",
                "junit-platform-engine",
                "junit-platform-commons",
                "junit-platform-runner",
                "junit-platform-suite",
            )
        ),
        ("org.junit.vintage", "junit-vintage-engine"),
    }
)
DEBIAN_PACKAGES = "openjdk-17-jdk-headless junit4 junit5 libjacoco-java libasm-java"


@dataclass(frozen=True)
class Jdk:
    home: Path
    version: str  # e.g. 17.0.15

    @property
    def feature(self) -> int:
        return int(self.version.split(".")[0])


@cache
def jdk() -> Jdk:
    """The machine's JDK (JAVA_HOME, else `javac` on PATH); EnvError when there is none."""
    home_env = os.environ.get("JAVA_HOME")
    javac = Path(home_env) / "bin" / "javac" if home_env else None
    if javac is None or not javac.exists():
        found = shutil.which("javac")
        javac = Path(found).resolve() if found else None
    if javac is None or not javac.exists():
        raise EnvError(f"the Java toolchain needs a JDK: install Debian's {DEBIAN_PACKAGES}")
    home = javac.resolve().parent.parent
    done = subprocess.run(
        [str(home / "bin" / "java"), "-version"], capture_output=True, text=True, check=False
    )
    match = re.search(r'version "([\d.]+)', done.stderr)
    if not match:
        raise EnvError(
            f"{home}/bin/java -version says nothing readable: {done.stderr.strip()[:200]}"
        )
    version = match.group(1)
    return Jdk(home, version if "." in version else f"{version}.0.0")


def repositories(extra: tuple[Path, ...] = ()) -> maven.Repositories:
    """Where artifacts are looked up: `PINBENCH_MAVEN_REPO` (a user's own, e.g. ~/.m2), then
    Debian's, then `extra` (repositories unpacked from Debian packages)."""
    roots = [Path(p) for p in os.environ.get("PINBENCH_MAVEN_REPO", "").split(os.pathsep) if p]
    return maven.Repositories([*roots, DEBIAN_REPOSITORY, *extra])


def debian_repositories(extras: tuple[str, ...]) -> tuple[Path, ...]:
    """The Maven repository of the Debian packages an environment's extras name
    (`debian:libgoogle-gson-java`), unpacked; EnvError when they cannot be had."""
    packages = tuple(
        sorted(e.removeprefix(debian.PREFIX) for e in extras if e.startswith(debian.PREFIX))
    )
    if not packages:
        return ()
    try:
        return (debian.repository(packages),)
    except system.SystemError_ as exc:
        raise EnvError(f"Debian packages {', '.join(packages)}: {exc}") from exc


def parse_pin(pin: str) -> maven.Dependency:
    parts = pin.split(":")
    if len(parts) != 3 or not all(parts):
        raise EnvError(f"Maven pin {pin!r} is not like 'group:artifact:version'")
    return maven.Dependency(parts[0], parts[1], parts[2])


@dataclass(frozen=True)
class Resolution:
    spec: EnvSpec
    jdk: Jdk
    release: int
    artifacts: tuple[maven.Resolved, ...]

    @property
    def key(self) -> str:
        payload = {
            "builder": BUILDER_VERSION,
            "toolchain": "java",
            "jdk": self.jdk.version,
            "release": self.release,
            "artifacts": [a.coordinate for a in self.artifacts],
            "debian": sorted(e for e in self.spec.extras if e.startswith(debian.PREFIX)),
            "harness": _harness_digest(),
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:20]


class JavaEnvironment(KeyedEnvironment["Resolution"]):
    """A Java environment (see the module)."""


def resolve(spec: EnvSpec) -> Resolution:
    """The JDK, the release to compile for (the spec's version; the JDK's own when None) and
    every artifact, from the local repositories; EnvError naming what is missing."""
    found = jdk()
    release = int(spec.version) if spec.version else found.feature
    if release > found.feature:
        raise EnvError(f"Java {release} is asked for; this machine's JDK is {found.version}")
    pins = [parse_pin(p) for p in spec.pins]
    resolution = maven.resolve(pins, repositories(debian_repositories(spec.extras)), PROVIDED)
    if resolution.missing:
        raise EnvError(
            "not in the local Maven repositories (Debian's /usr/share/maven-repo, "
            f"PINBENCH_MAVEN_REPO): {', '.join(resolution.missing)}"
        )
    return Resolution(spec, found, release, tuple(resolution.artifacts))


@cache
def _harness_digest() -> str:
    digest = hashlib.sha256(RUNNER.read_bytes())
    for name in (*HARNESS_JARS, *AGENT_JARS):
        path = DEBIAN_JARS / name
        digest.update(f"{name}:{path.resolve().name if path.exists() else '-'}".encode())
    return digest.hexdigest()[:16]


def ensure(spec: EnvSpec) -> JavaEnvironment:
    return build(resolve(spec))


def build(resolution: Resolution) -> JavaEnvironment:
    path, reused = build_once(
        envs_dir(), resolution.key, MANIFEST, lambda scratch: _install(resolution, scratch)
    )
    return JavaEnvironment(resolution.key, path, resolution, reused)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source.resolve(), target)
    except OSError:
        shutil.copyfile(source, target)


def _install(resolution: Resolution, target: Path) -> dict[str, Any]:
    missing = [n for n in (*HARNESS_JARS, *AGENT_JARS) if not (DEBIAN_JARS / n).exists()]
    if missing:
        raise EnvError(
            f"the Java harness needs {', '.join(missing)} in {DEBIAN_JARS}: install Debian's "
            f"{DEBIAN_PACKAGES}"
        )
    classpath = []
    for artifact in resolution.artifacts:
        relative = Path("lib") / f"{artifact.group}__{artifact.jar.name}"
        _copy(artifact.jar, target / relative)
        classpath.append(str(relative))
    harness = []
    for name in (*HARNESS_JARS, *AGENT_JARS):
        _copy(DEBIAN_JARS / name, target / "harness" / name)
        harness.append(f"harness/{name}")
    agent_dir = target / "harness"
    (agent_dir / "MANIFEST.MF").write_text(
        "Manifest-Version: 1.0\nPremain-Class: org.jacoco.agent.rt.internal.PreMain\n"
        f"Class-Path: {' '.join(AGENT_JARS)}\n"
    )
    tools = resolution.jdk.home / "bin"
    _tool([str(tools / "jar"), "cfm", str(agent_dir / "agent.jar"), str(agent_dir / "MANIFEST.MF")])
    classes = agent_dir / "classes"
    jars = os.pathsep.join(str(agent_dir / n) for n in (*HARNESS_JARS, *AGENT_JARS))
    _tool(
        [
            str(tools / "javac"),
            "--release",
            "11",
            "-nowarn",
            "-proc:none",
            "-encoding",
            "UTF-8",
            "-d",
            str(classes),
            "-cp",
            jars,
            str(RUNNER),
        ]
    )
    bin_dir = target / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(runner_python())
    for tool in ("java", "javac"):
        (bin_dir / tool).symlink_to(tools / tool)
    return {
        "toolchain": "java",
        "jdk": resolution.jdk.version,
        "jdk_home": str(resolution.jdk.home),
        "release": resolution.release,
        "artifacts": [a.coordinate for a in resolution.artifacts],
        "classpath": classpath,
        "harness_classpath": ["harness/classes", *harness],
        "agent": "harness/agent.jar",
    }


def _tool(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise EnvError(
            f"`{Path(argv[0]).name}` failed building the Java harness: {done.stderr.strip()[-800:]}"
        )
