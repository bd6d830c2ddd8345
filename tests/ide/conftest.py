"""A tiny repository with known contents, built once per session (real uv environment, real
sandboxed baseline), and the cases collected from it."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pinbench.core import snapshots
from pinbench.envs.python.builder import Environment
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide.build import build_repo
from pinbench.tasks.ide.cases import Case, Kind
from pinbench.tasks.ide.collect import collect
from pinbench.tasks.ide.repo import RepoBuild
from pinbench.tasks.ide.selection import Context, Quotas

SHAPES = '''\
"""Plane shapes."""

import math


def area(width, height):
    """Area of a rectangle.

    Args:
        width: the horizontal side.
        height: the vertical side.

    Returns:
        The product of both sides.

    Raises:
        ValueError: when a side is negative.
    """
    if width < 0 or height < 0:
        raise ValueError("negative side")
    product = width * height
    return product


def perimeter(width, height):
    if width < 0 or height < 0:
        raise ValueError("negative side")
    total = 2 * (width + height)
    return total


def scale(points, factor):
    unused = len(points)
    result = []
    for x, y in points:
        result.append((x * factor, y * factor))
    return result


def circle_area(radius):
    """Area of a circle of the given radius, by pi r squared.

    Args:
        radius: the radius.

    Returns:
        The area.

    Raises:
        ValueError: when the radius is negative.
    """
    if radius < 0:
        raise ValueError("negative radius")
    squared = radius * radius
    value = math.pi * squared
    return value
'''

TESTS = """\
import pytest

from pkg.shapes import area, circle_area, perimeter


def test_area():
    assert area(2, 3) == 6
    assert area(0, 5) == 0


def test_area_negative():
    with pytest.raises(ValueError):
        area(-1, 2)


def test_perimeter():
    assert perimeter(2, 3) == 10


def test_circle():
    assert round(circle_area(1.0), 5) == 3.14159
"""

WORKSPACE = """[
  {"query": "How is the area of a circle computed?", "keywords": ["circle_area", "pi"],
   "relevant": ["pkg/shapes.py::circle_area"]}
]
"""


@dataclass(frozen=True)
class Built:
    build: RepoBuild
    env: Environment
    snapshot: snapshots.Snapshot
    service: ExecutionService
    cases: dict[Kind, list[Case]]

    def case(self, kind: Kind, **where: str) -> Case:
        for case in self.cases[kind]:
            if all(getattr(case, k, None) == v for k, v in where.items()):
                return case
        raise LookupError(f"no {kind} case with {where}")


def write_repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / ".pinbench").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shapes.py").write_text(SHAPES)
    (root / "tests" / "test_shapes.py").write_text(TESTS)
    (root / ".pinbench" / "workspace.json").write_text(WORKSPACE)
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [project]
            name = "shapes"
            version = "0.1"
            requires-python = ">=3.8"
            dependencies = []
            """
        )
    )
    return root


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    root = write_repo(tmp_path_factory.mktemp("ide") / "shapes")
    service = ExecutionService(jobs=2)
    try:
        build, env = build_repo(root, service)
        snap = snapshots.load(build.snapshot)
        context = Context(build, env, snap, service, Quotas())
        collection = collect(context, list(Kind))
        by_kind: dict[Kind, list[Case]] = {kind: [] for kind in Kind}
        for case in collection.cases:
            by_kind[case.scenario].append(case)
        yield Built(build, env, snap, service, by_kind)
    finally:
        service.close()
