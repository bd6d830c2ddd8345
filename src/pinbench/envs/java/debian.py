"""Maven artifacts the machine lacks, from Debian's Java library packages: every such package
installs its jars and poms under `/usr/share/maven-repo`, so a package unpacked (not installed:
`envs.system` downloads it and its missing dependencies and runs no maintainer script) is one
more local Maven repository. Which package ships an artifact is guessed from Debian's naming
(`lib<artifact>-java`, `lib<group part>-<artifact>-java`, `lib<name><major>-java`, ...) and
checked against the package lists; a guess that misses costs one `apt-cache` lookup."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from pinbench.envs import system

PREFIX = "debian:"  # how an environment spec names a package to unpack (`extras`)
_GENERIC = {"org", "com", "net", "io", "de", "fr", "uk", "co", "apache", "github", "code"}


def candidates(coordinate: str) -> list[str]:
    """Debian package names that may ship `group:artifact:version`, likeliest first."""
    group, artifact, version = [*coordinate.split(":"), "", "", ""][:3]
    base = artifact.lower().removesuffix("-java")
    stem = base.split("-")[0]
    major = version.split(".")[0] if version[:1].isdigit() else ""
    parts = [p.lower() for p in group.split(".") if p.lower() not in _GENERIC]
    names = [f"lib{base}-java", f"lib{stem}-java"]
    names += [f"lib{part}-{base}-java" for part in reversed(parts)]
    names += [f"lib{part}-java" for part in reversed(parts)]
    if major:
        names += [f"lib{base}{major}-java", f"lib{stem}{major}-java"]
    unique = []
    for name in names:
        if re.fullmatch(r"lib[a-z0-9][a-z0-9.+-]*-java", name) and name not in unique:
            unique.append(name)
    return unique


def available(names: list[str]) -> list[str]:
    """Those of `names` Debian's package lists know."""
    if not names or shutil.which("apt-cache") is None:
        return []
    done = subprocess.run(
        ["apt-cache", "show", "--no-all-versions", *names],
        capture_output=True,
        text=True,
        check=False,
    )
    return sorted(set(re.findall(r"^Package: (\S+)$", done.stdout, re.M)))


def packages_for(missing: list[str]) -> list[str]:
    """The packages to try for the missing coordinates (each candidate Debian has)."""
    wanted: list[str] = []
    for coordinate in missing:
        for name in available(candidates(coordinate)):
            if name not in wanted:
                wanted.append(name)
    return wanted


def repository(packages: tuple[str, ...]) -> Path:
    """The local Maven repository of the packages, unpacked (once, shared by every
    environment that needs the same set); system.SystemError_ when they cannot be had."""
    return system.root_for(packages) / "root" / "usr" / "share" / "maven-repo"
