"""Editing tasks from meta-instances: two snippets with the same library and description on
different versions do the same thing in two API generations, so each is the other's edit target.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from pinbench.tasks.versicode.model import EditDirection, EditTask, MetaInstance, Source, edit_task


def edit_tasks(metas: Iterable[MetaInstance]) -> list[EditTask]:
    """Both directions for every two versions of each (library, description), oldest first.

    The first meta-instance of a version is kept; ones with a blank description (it would pair
    unrelated snippets), a version `packaging` cannot order (or only a constraint), or the same
    code as their partner are left out.
    """
    tasks: list[EditTask] = []
    for (library, description), by_version in _groups(metas).items():
        ordered = [by_version[v] for v in sorted(by_version)]
        for i, old in enumerate(ordered):
            for new in ordered[i + 1 :]:
                if old.code != new.code:
                    tasks.extend(_both_ways(library, description, old, new))
    return tasks


def _groups(metas: Iterable[MetaInstance]) -> dict[tuple[str, str], dict[Version, MetaInstance]]:
    groups: dict[tuple[str, str], dict[Version, MetaInstance]] = {}
    for meta in metas:
        description = " ".join(meta.description.split())
        if meta.version is None:
            continue
        try:
            version = Version(meta.version)
        except InvalidVersion:
            continue
        if description:
            key = (str(canonicalize_name(meta.library)), description)
            groups.setdefault(key, {}).setdefault(version, meta)
    return groups


def _both_ways(
    library: str, description: str, old: MetaInstance, new: MetaInstance
) -> list[EditTask]:
    digest = hashlib.sha256(description.encode()).hexdigest()[:10]
    base = f"edit/{library}/{digest}/{old.version}..{new.version}"
    source = old.source if old.source is new.source else Source.UNKNOWN
    return [
        edit_task(f"{base}/{direction}", old, new, direction, source=source)
        for direction in EditDirection
    ]
