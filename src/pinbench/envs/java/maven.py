"""Maven projects read as data, and their dependencies resolved offline from local Maven
repositories (Debian's `/usr/share/maven-repo`, a user's `~/.m2/repository` named by
`PINBENCH_MAVEN_REPO`, and repositories unpacked from Debian packages). A `pom.xml` is untrusted
XML: parsed with defusedxml, never handed to Maven (whose plugins and extensions would run)."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree.ElementTree import Element

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException

_PROPERTY = re.compile(r"\$\{([^}]+)\}")
_CONCRETE = re.compile(r"^\d+(\.\d+)*([.-][\w.-]+)?$")
# Scopes whose dependencies a test run needs; `import` and `system` are not artifacts to fetch
_SCOPES = ("compile", "provided", "runtime", "test")


class PomError(Exception):
    """A pom.xml that cannot be read; the message says why."""


@dataclass(frozen=True)
class Dependency:
    group: str
    artifact: str
    version: str  # as written after interpolation; "" when managed elsewhere and unresolved
    scope: str = "compile"
    optional: bool = False
    kind: str = "jar"
    exclusions: frozenset[tuple[str, str]] = frozenset()

    @property
    def key(self) -> tuple[str, str]:
        return self.group, self.artifact


@dataclass
class Pom:
    group: str
    artifact: str
    version: str
    packaging: str = "jar"
    parent: tuple[str, str, str] | None = None
    properties: dict[str, str] = field(default_factory=dict)
    dependencies: list[Dependency] = field(default_factory=list)
    managed: dict[tuple[str, str], Dependency] = field(default_factory=dict)
    modules: list[str] = field(default_factory=list)
    plugin_settings: dict[str, str] = field(default_factory=dict)  # compiler plugin's config
    directories: dict[str, str] = field(default_factory=dict)  # build/sourceDirectory ...

    def java_release(self, properties: dict[str, str]) -> int | None:
        """The Java release the project compiles for: `maven.compiler.release`, else the
        compiler plugin's `release`, else its/the properties' `source` ('1.8' reads as 8);
        `properties`: what the pom sees (its parents' merged, `effective`)."""
        for value in (
            properties.get("maven.compiler.release"),
            self.plugin_settings.get("release"),
            self.plugin_settings.get("source"),
            properties.get("maven.compiler.source"),
            self.plugin_settings.get("target"),
            properties.get("maven.compiler.target"),
        ):
            number = interpolate(value or "", self, properties).strip()
            if re.fullmatch(r"(1\.)?\d+", number):
                return int(number[2:] if number.startswith("1.") else number)
        return None


def _local(tag: object) -> str:
    return str(tag).rsplit("}", 1)[-1]


def _child(element: Element | None, name: str) -> Element | None:
    if element is None:
        return None
    for child in element:
        if _local(child.tag) == name:
            return child
    return None


def _children(element: Element | None, name: str) -> list[Element]:
    return [] if element is None else [c for c in element if _local(c.tag) == name]


def _text(element: Element | None, name: str, default: str = "") -> str:
    found = _child(element, name)
    return (found.text or "").strip() if found is not None else default


def parse_pom(text: str | bytes, where: str = "pom.xml") -> Pom:
    """A pom's own content (no parent merged, no interpolation beyond its own properties)."""
    try:
        root = ElementTree.fromstring(text)
    except (ElementTree.ParseError, DefusedXmlException, ValueError) as exc:
        raise PomError(f"{where} is not readable XML: {exc}") from exc
    if _local(root.tag) != "project":
        raise PomError(f"{where} is not a Maven project (its root is <{_local(root.tag)}>)")
    parent_el = _child(root, "parent")
    parent = None
    if parent_el is not None:
        parent = (
            _text(parent_el, "groupId"),
            _text(parent_el, "artifactId"),
            _text(parent_el, "version"),
        )
    properties = {_local(p.tag): (p.text or "").strip() for p in _child(root, "properties") or []}
    pom = Pom(
        group=_text(root, "groupId") or (parent[0] if parent else ""),
        artifact=_text(root, "artifactId"),
        version=_text(root, "version") or (parent[2] if parent else ""),
        packaging=_text(root, "packaging", "jar"),
        parent=parent,
        properties=properties,
    )
    pom.dependencies = [
        _dependency(d) for d in _children(_child(root, "dependencies"), "dependency")
    ]
    managed = _child(_child(root, "dependencyManagement"), "dependencies")
    for element in _children(managed, "dependency"):
        dependency = _dependency(element)
        pom.managed[dependency.key] = dependency
    pom.modules = [(m.text or "").strip() for m in _children(_child(root, "modules"), "module")]
    build = _child(root, "build")
    for name in ("sourceDirectory", "testSourceDirectory"):
        if _text(build, name):
            pom.directories[name] = _text(build, name)
    for plugin in _children(_child(build, "plugins"), "plugin"):
        if _text(plugin, "artifactId") == "maven-compiler-plugin":
            config = _child(plugin, "configuration")
            for name in ("release", "source", "target"):
                if _text(config, name):
                    pom.plugin_settings[name] = _text(config, name)
    return pom


def _dependency(element: Element) -> Dependency:
    exclusions = frozenset(
        (_text(e, "groupId"), _text(e, "artifactId"))
        for e in _children(_child(element, "exclusions"), "exclusion")
    )
    return Dependency(
        group=_text(element, "groupId"),
        artifact=_text(element, "artifactId"),
        version=_text(element, "version"),
        scope=_text(element, "scope", "compile") or "compile",
        optional=_text(element, "optional") == "true",
        kind=_text(element, "type", "jar") or "jar",
        exclusions=exclusions,
    )


def interpolate(value: str, pom: Pom, properties: dict[str, str]) -> str:
    """`${...}` references replaced from the properties (project.* from the pom itself);
    an unknown reference is left as it is."""
    builtins = {
        "project.version": pom.version,
        "pom.version": pom.version,
        "version": pom.version,
        "project.groupId": pom.group,
        "project.artifactId": pom.artifact,
        "project.parent.version": pom.parent[2] if pom.parent else "",
    }
    for _ in range(10):  # nested references, bounded
        replaced = _PROPERTY.sub(
            lambda m: properties.get(m.group(1), builtins.get(m.group(1), m.group(0))), value
        )
        if replaced == value:
            break
        value = replaced
    return value


class Repositories:
    """Local Maven repositories, searched in order."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = [r for r in roots if r.is_dir()]

    def _dir(self, group: str, artifact: str) -> list[Path]:
        relative = Path(*group.split(".")) / artifact
        return [root / relative for root in self.roots if (root / relative).is_dir()]

    def versions(self, group: str, artifact: str) -> list[str]:
        found: set[str] = set()
        for directory in self._dir(group, artifact):
            found.update(p.name for p in directory.iterdir() if p.is_dir())
        return sorted(found, key=version_key)

    def file(self, group: str, artifact: str, version: str, suffix: str) -> Path | None:
        for root in self.roots:
            path = _followed(root / Path(*group.split(".")) / artifact / version, root)
            path = _followed(path / f"{artifact}-{version}.{suffix}", root)
            if path.is_file():
                return path
        return None

    def pom(self, group: str, artifact: str, version: str) -> Pom | None:
        path = self.file(group, artifact, version, "pom")
        if path is None:
            return None
        try:
            return parse_pom(path.read_bytes(), str(path))
        except (OSError, PomError):
            return None


def _followed(path: Path, root: Path) -> Path:
    """`path` with its symbolic links followed, an absolute target read inside the filesystem
    the repository belongs to (a Debian package unpacked elsewhere links its jars to
    `/usr/share/java/...`, meaning its own)."""
    base = (
        root.parents[2]
        if len(root.parents) > 2 and root.parts[-3:] == ("usr", "share", "maven-repo")
        else Path("/")
    )
    for _ in range(20):
        if not path.is_symlink():
            return path
        target = Path(path.readlink())
        path = base / target.relative_to("/") if target.is_absolute() else path.parent / target
    return path


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key for Maven versions: numbers compare as numbers, text sorts before them."""
    parts = re.split(r"[.-]", version)
    return tuple((1, int(p)) if p.isdigit() else (0, p) for p in parts)


def choose(wanted: str, available: list[str]) -> str | None:
    """The version to use: the one asked for when it is there; else (Debian keeps one release,
    under its own number and the alias `debian`) the newest concrete release there is."""
    if wanted in available:
        return wanted
    concrete = [v for v in available if _CONCRETE.match(v)]
    if concrete:
        return concrete[-1]
    return available[-1] if available else None


def effective(
    pom: Pom, repos: Repositories
) -> tuple[dict[str, str], dict[tuple[str, str], Dependency]]:
    """The properties and managed versions a pom sees, its parents' merged under its own
    (parents from the repositories; a missing parent contributes nothing)."""
    chain = [pom]
    seen = set()
    parent = pom.parent
    while parent and len(chain) < 10 and parent not in seen:
        seen.add(parent)
        group, artifact, version = parent
        chosen = choose(version, repos.versions(group, artifact))
        above = repos.pom(group, artifact, chosen) if chosen else None
        if above is None:
            break
        chain.append(above)
        parent = above.parent
    properties: dict[str, str] = {}
    managed: dict[tuple[str, str], Dependency] = {}
    for level in reversed(chain):
        properties.update(level.properties)
        managed.update(level.managed)
    return properties, managed


@dataclass(frozen=True)
class Resolved:
    group: str
    artifact: str
    version: str  # what the repositories had
    wanted: str  # what was asked for
    jar: Path

    @property
    def coordinate(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"


@dataclass
class Resolution:
    artifacts: list[Resolved]
    missing: list[str]  # coordinates no repository has
    notes: list[str]


def resolve(
    declared: list[Dependency], repos: Repositories, provided: frozenset[tuple[str, str]]
) -> Resolution:
    """The declared dependencies and their compile/runtime dependencies, breadth first, the
    nearest declaration of an artifact winning (Maven's rule); `provided`: artifacts the
    harness brings itself (JUnit), left out."""
    queue: deque[tuple[Dependency, frozenset[tuple[str, str]]]] = deque(
        (d, d.exclusions) for d in declared if d.scope in _SCOPES and d.kind == "jar"
    )
    seen: set[tuple[str, str]] = set(provided)
    result = Resolution([], [], [])
    while queue:
        dependency, excluded = queue.popleft()
        if dependency.key in seen:
            continue
        seen.add(dependency.key)
        available = repos.versions(dependency.group, dependency.artifact)
        version = choose(dependency.version, available)
        jar = repos.file(dependency.group, dependency.artifact, version, "jar") if version else None
        name = f"{dependency.group}:{dependency.artifact}"
        if version is None or jar is None:
            result.missing.append(f"{name}:{dependency.version or '?'}")
            continue
        if dependency.version and version != dependency.version:
            result.notes.append(
                f"{name}: {dependency.version} asked, {version} used (the local repository's)"
            )
        result.artifacts.append(
            Resolved(dependency.group, dependency.artifact, version, dependency.version, jar)
        )
        pom = repos.pom(dependency.group, dependency.artifact, version)
        if pom is None:
            continue
        properties, managed = effective(pom, repos)
        for child in pom.dependencies:
            if child.optional or child.scope not in ("compile", "runtime") or child.kind != "jar":
                continue
            child = _completed(child, pom, properties, managed)
            if child.key in excluded or (child.group, "*") in excluded:
                continue
            queue.append((child, excluded | child.exclusions))
    return result


def _completed(
    dependency: Dependency,
    pom: Pom,
    properties: dict[str, str],
    managed: dict[tuple[str, str], Dependency],
) -> Dependency:
    group = interpolate(dependency.group, pom, properties)
    artifact = interpolate(dependency.artifact, pom, properties)
    version = interpolate(dependency.version, pom, properties)
    if not version and (group, artifact) in managed:
        version = interpolate(managed[(group, artifact)].version, pom, properties)
    return Dependency(
        group,
        artifact,
        version,
        dependency.scope,
        dependency.optional,
        dependency.kind,
        dependency.exclusions,
    )


def declared(pom: Pom, repos: Repositories) -> list[Dependency]:
    """A project's own dependencies, interpolated, versions filled from management."""
    properties, managed = effective(pom, repos)
    return [_completed(d, pom, properties, managed) for d in pom.dependencies]
