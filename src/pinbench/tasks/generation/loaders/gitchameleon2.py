"""GitChameleon 2.0: dataset.jsonl plus hidden_tests/, visible_tests/ and a solutions file.

The mapping onto Problem, and the id scheme, are documented in docs/dataset-format.md. The
loader accepts the dataset directory or its dataset.jsonl; tests are looked up beside that file.
"""

from __future__ import annotations

from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from pinbench.core.datasets import DatasetError, LoadIssue, first_row, json_row
from pinbench.core.tests import TestKind, TestSpec
from pinbench.tasks.generation.loaders.base import LoadResult, load_jsonl
from pinbench.tasks.generation.normalize import (
    is_blank,
    join_program,
    normalize_change,
    normalize_release_date,
    split_pins,
)
from pinbench.tasks.generation.problem import Problem

name = "gitchameleon2"

DATASET_FILE = "dataset.jsonl"
SOLUTIONS_FILE = "ground_truth_solutions.jsonl"
HIDDEN_DIR = "hidden_tests"
VISIBLE_DIR = "visible_tests"
REQUIRED_FIELDS = ("example_id", "library", "version", "problem", "starting_code", "solution")

_TRUE = frozenset({"1", "true", "yes", "y", "t"})
_FALSE = frozenset({"0", "false", "no", "n", "f", ""})


def sniff(path: Path) -> bool:
    """A directory holding dataset.jsonl, or a .jsonl file, whose first row is a GC2 example."""
    dataset = _dataset_file(path)
    if dataset is None:
        return False
    row = first_row(dataset)
    return row is not None and {"example_id", "starting_code"} <= row.keys()


def load(path: Path, *, solutions: Path | None = None) -> LoadResult:
    """Every readable example; `solutions` overrides the ground_truth_solutions.jsonl beside it.

    A solutions file named explicitly must exist; the default one is used only when present.
    """
    dataset = _dataset_file(path)
    if dataset is None:
        raise DatasetError(f"{path}: no {DATASET_FILE} (pass the dataset directory or the file)")
    root = dataset.parent
    if not (root / HIDDEN_DIR).is_dir():
        raise DatasetError(f"{root}: no {HIDDEN_DIR}/ directory beside {dataset.name}")
    if solutions is not None and not solutions.is_file():
        raise DatasetError(f"{solutions}: no such solutions file")
    result = LoadResult()
    answers = _answers(solutions or root / SOLUTIONS_FILE, result.issues)
    # Floats kept as text: a python_version written 3.10 must not become '3.1'.
    return load_jsonl(
        dataset,
        lambda row, origin: _problem(row, root, answers, origin),
        result,
        parse_float=str,
    )


def _dataset_file(path: Path) -> Path | None:
    if path.is_dir():
        candidate = path / DATASET_FILE
        return candidate if candidate.is_file() else None
    return path if path.is_file() and path.suffix == ".jsonl" else None


def _answers(path: Path, issues: list[LoadIssue]) -> dict[str, str]:
    """example_id -> complete reference program; bad rows are issues of the solutions file."""
    answers: dict[str, str] = {}
    if not path.is_file():
        return answers
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json_row(line)
            except ValueError as exc:
                issues.append(LoadIssue(path, lineno, str(exc)))
                continue
            if not (
                isinstance(row, dict)
                and isinstance(row.get("answer"), str)
                and isinstance(row.get("example_id"), str | int)
            ):
                issues.append(LoadIssue(path, lineno, "not an {example_id, answer} row"))
                continue
            example_id = str(row["example_id"]).strip()
            if example_id in answers:
                reason = f"duplicate answer for example_id {example_id!r}; the first is kept"
                issues.append(LoadIssue(path, lineno, reason))
                continue
            answers[example_id] = _code(row["answer"])
    return answers


def _problem(row: dict[str, object], root: Path, answers: dict[str, str], origin: str) -> Problem:
    missing = [key for key in REQUIRED_FIELDS if row.get(key) is None]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    example_id = _text(row, "example_id").strip()
    module = f"sample_{example_id}"
    hidden = f"{HIDDEN_DIR}/test_{module}.py"
    if not (root / hidden).is_file():
        raise ValueError(f"hidden test {hidden} missing")
    raw_date = _text(row, "release_date")
    release_date = normalize_release_date(raw_date)
    if release_date is None and not is_blank(raw_date):
        raise ValueError(f"release_date {raw_date.strip()!r} is not a recognisable date")
    starter = _code(_text(row, "starting_code"))
    solution = answers.get(example_id) or join_program(starter, _code(_text(row, "solution")))
    python_version = _text(row, "python_version").strip()
    return Problem(
        id=f"gc2-{example_id}",
        library=_text(row, "library").strip(),
        version=_text(row, "version").strip(),
        python_version=python_version or None,
        extra_pins=_pins(row),
        harness_pins=_harness_pins(row, python_version),
        problem=_text(row, "problem").strip(),
        starter_code=starter,
        solution=solution,
        visible_test=_visible_test(row, root, module),
        hidden_test=TestSpec(kind=TestKind.PYTEST, code=_read(root / hidden), module=module),
        change=normalize_change(_text(row, "type_of_change")),
        release_date=release_date,
        docs="\n".join(_texts(row, "docs")),
        tags=_tags(row),
        origin=origin,
    )


def _visible_test(row: dict[str, object], root: Path, module: str) -> TestSpec | None:
    """The visible test as GitChameleon's harness runs it: the row's `test` script appended to
    the program (it uses names only the program imports). The visible_tests/ file, a script
    importing `sample_<id>`, stands in only where the row has no script."""
    script = _code(_text(row, "test"))
    if script.strip():
        return TestSpec(kind=TestKind.SCRIPT, code=script)
    path = root / VISIBLE_DIR / f"test_{module}.py"
    if path.is_file():
        return TestSpec(kind=TestKind.SCRIPT, code=_read(path), module=module)
    return None


def _pins(row: dict[str, object]) -> tuple[str, ...]:
    """additional_dependencies, then the extra_dependencies that are pins of a new package.

    additional_dependencies is documented as pins, so an unparseable entry fails the row.
    extra_dependencies is looser: only entries with a version specifier are taken (a bare name
    there may be a system library such as ffmpeg). The two overlap in the real data
    ('numpy==1.16.0' in both); the first mention of a package wins, so an environment never
    receives two pins for one name.
    """
    pins: list[str] = []
    seen: set[str] = set()
    for pin in split_pins(" ".join(_texts(row, "additional_dependencies"))):
        try:
            requirement = Requirement(pin)
        except InvalidRequirement as exc:
            raise ValueError(f"additional_dependencies: {pin!r} is not a requirement") from exc
        seen.add(canonicalize_name(requirement.name))
        pins.append(pin)
    for pin in split_pins(" ".join(_texts(row, "extra_dependencies"))):
        try:
            requirement = Requirement(pin)
        except InvalidRequirement:
            continue
        package = canonicalize_name(requirement.name)
        if requirement.specifier and package not in seen:
            seen.add(package)
            pins.append(pin)
    return tuple(pins)


# What GitChameleon 2.0's harness installs into every environment (its create_venvs.py), per
# Python version, unless the problem's library is that package or a dependency names it: its
# tests import numpy and scipy without pinning them.
_AUTHORS_HARNESS = {
    "pytest": {"3.7": "pytest==6.2.5", "3.9": "pytest==7.1.2", "3.10": "pytest==7.2.0"},
    "numpy": {"3.7": "numpy==1.21.6", "3.9": "numpy==1.21.6", "3.10": "numpy==1.23"},
    "scipy": {"3.7": "scipy==1.7.1", "3.9": "scipy==1.9.1", "3.10": "scipy==1.10.1"},
}


def _harness_pins(row: dict[str, object], python_version: str) -> tuple[str, ...]:
    """The authors' per-interpreter installs, with their rule for skipping one: a package is
    left out when it is the library or when its name occurs in any dependency entry."""
    library = _text(row, "library").strip().lower()
    deps = " ".join(_texts(row, "additional_dependencies") + _texts(row, "extra_dependencies"))
    entries = [dep.lower() for dep in deps.split()]
    pins = []
    for package, by_python in _AUTHORS_HARNESS.items():
        pin = by_python.get(python_version)
        if pin and library != package and all(package not in dep for dep in entries):
            pins.append(pin)
    return tuple(pins)


def _tags(row: dict[str, object]) -> tuple[str, ...]:
    """Breakdown labels: the domain flags, the API the problem targets, the calls it needs."""
    tags = [flag for flag in ("webdev", "functional") if _flag(row, flag)]
    target = _text(row, "name_of_class_or_func").strip()
    if not is_blank(target):
        tags.append(f"target:{target}")
    calls = (call.strip() for call in _texts(row, "api_calls"))
    tags.extend(dict.fromkeys(f"api:{call}" for call in calls if call))
    return tuple(tags)


def _flag(row: dict[str, object], key: str) -> bool:
    """GitChameleon writes its 0/1 flags as ints, and sometimes as strings."""
    value = row.get(key)
    if value is None or isinstance(value, bool | int):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    try:
        return float(text) != 0
    except ValueError:
        raise ValueError(f"{key} {value!r} is not a 0/1 flag") from None


def _text(row: dict[str, object], key: str) -> str:
    """A scalar field as text ('' when absent); ids and versions may arrive as numbers."""
    value = row.get(key)
    if value is None:
        return ""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"{key} is a {type(value).__name__}, expected text")


def _texts(row: dict[str, object], key: str) -> list[str]:
    """A list-of-text field (docs, api_calls); a lone string counts as a list of one."""
    value = row.get(key)
    if value is None:
        return []
    if isinstance(value, list):
        return [str(item) for item in value if item is not None]
    return [_text(row, key)]


def _code(text: str) -> str:
    """Code as written, with Windows line ends (some starters have them) made Unix."""
    return text.replace("\r\n", "\n")


def _read(path: Path) -> str:
    return _code(path.read_text(encoding="utf-8"))
