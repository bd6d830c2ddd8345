"""Editing pairs from meta-instances, and the transition each edit is tagged with."""

from __future__ import annotations

import pytest

from pinbench.tasks.versicode.model import EditDirection, MetaInstance, Source, Transition
from pinbench.tasks.versicode.pairs import edit_tasks


@pytest.mark.parametrize(
    ("start", "end", "transition"),
    [
        ("1.0.0", "2.0.0", Transition.MAJOR_TO_MAJOR),
        ("2", "3.0", Transition.MAJOR_TO_MAJOR),
        ("1.0", "1.4.0", Transition.MAJOR_TO_MINOR),
        ("2.0.0rc1", "2.1", Transition.MAJOR_TO_MINOR),  # pre-releases count by release numbers
        ("1.26.4", "2.0.0", Transition.MINOR_TO_MAJOR),
        ("0.22.2.post1", "1.0", Transition.MINOR_TO_MAJOR),
        ("1.3.1", "1.4.0", Transition.MINOR_TO_MINOR),
        ("0.1.0", "0.2", Transition.MINOR_TO_MINOR),  # 0.x releases are minor ones
        ("2.0.0", "1.26.4", Transition.MAJOR_TO_MINOR),  # in editing order, not version order
        ("latest", "1.0", Transition.UNKNOWN),
    ],
)
def test_transition_table(start: str, end: str, transition: Transition) -> None:
    assert Transition.between(start, end) is transition


def meta(version: str, code: str, description: str = "Sum a list.", **kw: str) -> MetaInstance:
    return MetaInstance(
        library=kw.get("library", "numpy"),
        version=version,
        description=description,
        code=code,
        source=Source.STACKOVERFLOW,
    )


def test_every_two_versions_in_both_directions_oldest_first() -> None:
    metas = [meta("2.0.0", "c"), meta("1.26.4", "b"), meta("1.0", "a"), meta("2.0", "dup")]
    tasks = edit_tasks(metas)
    pairs = [(t.old.code, t.new.code, t.direction, t.transition) for t in tasks]
    assert pairs == [
        ("a", "b", EditDirection.OLD_TO_NEW, Transition.MAJOR_TO_MINOR),
        ("a", "b", EditDirection.NEW_TO_OLD, Transition.MINOR_TO_MAJOR),
        ("a", "c", EditDirection.OLD_TO_NEW, Transition.MAJOR_TO_MAJOR),
        ("a", "c", EditDirection.NEW_TO_OLD, Transition.MAJOR_TO_MAJOR),
        ("b", "c", EditDirection.OLD_TO_NEW, Transition.MINOR_TO_MAJOR),
        ("b", "c", EditDirection.NEW_TO_OLD, Transition.MAJOR_TO_MINOR),
    ]  # '2.0' is version 2.0.0 again: the first one is kept
    first = tasks[0]
    assert (first.from_meta.code, first.to_meta.code) == ("a", "b")
    assert (tasks[1].from_meta.code, tasks[1].to_meta.code) == ("b", "a")
    assert first.source is Source.STACKOVERFLOW
    assert len({t.id for t in tasks}) == len(tasks)
    assert first.id.endswith("/1.0..1.26.4/old_to_new")


def test_only_same_library_and_description_pair_up() -> None:
    metas = [
        meta("1.0", "a"),
        meta("2.0", "b", description="  Sum   a list. "),  # same words, other spacing
        meta("3.0", "c", description="Multiply a list."),
        meta("4.0", "d", library="pandas"),
        meta("5.0", "e", library="NumPy"),  # the same distribution, spelled differently
    ]
    assert [(t.old.code, t.new.code) for t in edit_tasks(metas)[::2]] == [
        ("a", "b"),
        ("a", "e"),
        ("b", "e"),
    ]


def test_unpairable_meta_instances_are_left_out() -> None:
    metas = [
        meta("1.0", "same"),
        meta("2.0", "same"),  # nothing to edit
        meta("3.0", "x", description=" "),  # a blank description pairs anything
        meta("3.0", "y", description=" "),
        meta("latest", "z"),  # cannot be ordered
    ]
    assert edit_tasks(metas) == []
