"""An item's identity (the run id's `problems_digest`) is its data, not where it was read from."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from pinbench.core.item import Item, items_digest
from pinbench.tasks.base import Settings
from pinbench.tasks.generation.loaders import load_dataset
from pinbench.tasks.generation.task import item_of
from pinbench.tasks.registry import load


def test_a_problem_s_identity_is_what_it_was_before_items_existed() -> None:
    problems = load_dataset(Path("builtin")).problems[:5]
    digest = hashlib.sha256()
    for problem in problems:  # the run id's digest before items: runs named then resume now
        digest.update(problem.model_dump_json(exclude={"origin"}).encode())
    assert items_digest([item_of(p) for p in problems]) == digest.hexdigest()[:16]


def _edit(item: Item[Any], **update: Any) -> Item[Any]:
    task = item.payload
    old = task.old.model_copy(update=update.get("old", {}))
    new = task.new.model_copy(update=update.get("new", {}))
    payload = task.model_copy(update={"old": old, "new": new, **update.get("task", {})})
    return replace(item, payload=payload)


def test_where_an_item_was_read_from_is_not_its_identity() -> None:
    items = load("editing", Settings(dataset=Path("builtin"), split="quick")).items
    moved = [
        _edit(i, task={"origin": "x:1"}, old={"origin": "x:2"}, new={"origin": "x:3"})
        for i in items
    ]
    assert moved[0].payload.old.origin == "x:2" != items[0].payload.old.origin
    assert items_digest(moved) == items_digest(items)
    edited = [_edit(moved[0], new={"code": "pass\n"}), *moved[1:]]
    assert items_digest(edited) != items_digest(items)
