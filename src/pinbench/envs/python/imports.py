"""Which top-level modules a pinned distribution provides (scikit-learn → sklearn, pillow → PIL)."""

from __future__ import annotations

from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def site_packages(env: Path) -> list[Path]:
    return sorted(env.glob("lib/python*/site-packages"))


def pinned_modules(env: Path, pins: tuple[str, ...]) -> tuple[str, ...]:
    """The top-level modules of every pinned distribution, in pin order."""
    return tuple(module for pin in pins for module in import_names(env, pin))


def import_names(env: Path, pin: str) -> list[str]:
    """Public top-level modules of the installed distribution named by `pin`, from its metadata."""
    wanted = canonicalize_name(Requirement(pin).name)
    for site in site_packages(env):
        for info in site.glob("*.dist-info"):
            if canonicalize_name(info.name.split("-", 1)[0]) != wanted:
                continue
            listed = _from_top_level(info) or _from_record(info)
            # top_level.txt may list what is no module name at all ('2to3-like' entries)
            names = [n for n in listed if all(part.isidentifier() for part in n.split("."))]
            public = [n for n in names if not n.startswith("_")]
            return sorted(public or names)
    return []


def _from_top_level(info: Path) -> list[str]:
    try:
        text = (info / "top_level.txt").read_text()
    except OSError:
        return []
    return [line.strip().replace("/", ".") for line in text.splitlines() if line.strip()]


def _from_record(info: Path) -> list[str]:
    try:
        text = (info / "RECORD").read_text()
    except OSError:
        return []
    names: set[str] = set()
    for line in text.splitlines():
        first = line.split(",", 1)[0].split("/", 1)
        head = first[0]
        if head.endswith((".dist-info", ".data")) or head in ("__pycache__", "..", ""):
            continue
        if len(first) == 1:
            if head.endswith(".py"):
                names.add(head[:-3])
            elif head.endswith(".so"):
                names.add(head.split(".", 1)[0])
        elif head.isidentifier():
            names.add(head)
    return sorted(n for n in names if n.isidentifier())


def primary_modules(env: Path, pin: str) -> list[str]:
    """The modules that must import for the distribution to count as installed: the one
    named like it (torch, not the caffe2 its wheel also ships), else all of them."""
    names = import_names(env, pin)
    wanted = canonicalize_name(Requirement(pin).name)
    named = [n for n in names if canonicalize_name(n) == wanted]
    return named or names
