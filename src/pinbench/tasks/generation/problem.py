"""The generation task's item: one version-pinned coding problem, whatever its source format."""

from __future__ import annotations

import ast
import builtins
import re
import warnings
from datetime import date
from enum import StrEnum
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pinbench.core.env import EnvSpec
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.node.builder import split_pin
from pinbench.envs.node.syntax import TYPESCRIPT
from pinbench.envs.python.spec import pinned_spec, requirement_pins

_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")  # PEP 508's distribution name
_NPM_NAME = re.compile(r"(@[a-z0-9][\w.~-]*/)?[a-z0-9][\w.~-]*")  # npm's package name
_SEMVER = re.compile(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?")
_NODE_VERSION = re.compile(r"\d+(\.\d+){0,2}")
NODE_LIBRARY = "node"  # a problem about Node's own standard library: `version` is Node's
# What the harness adds to every Node environment: Jest's `expect` (its API since Jest 23,
# running on Node 10+), and for TypeScript programs the checker unless the problem pins one
JS_HARNESS = ("expect@26.6.2",)
TS_HARNESS = (TYPESCRIPT,)


class Language(StrEnum):
    """The language a problem's program is written in (its tests are in the toolchain's)."""

    PYTHON = "python"
    JAVASCRIPT = "javascript"
    TYPESCRIPT = "typescript"

    @property
    def toolchain(self) -> str:
        return "python" if self is Language.PYTHON else "node"

    @property
    def fence(self) -> str:
        return self.value

    @property
    def display_name(self) -> str:
        """How a prompt names it: 'Python', 'JavaScript (Node.js)', 'TypeScript (Node.js)'."""
        if self is Language.PYTHON:
            return "Python"
        return ("JavaScript" if self is Language.JAVASCRIPT else "TypeScript") + " (Node.js)"


class ChangeCategory(StrEnum):
    """The four kinds of version change a problem exercises (GitChameleon's taxonomy)."""

    ARGUMENT = "argument_or_attribute_change"
    NAME = "function_name_change"
    SEMANTICS = "semantics_or_behaviour_change"
    FEATURE = "new_feature_or_additional_dependency"
    UNKNOWN = "unknown"


class ChangeType(BaseModel):
    """A normalised change category with the dataset's raw wording kept for audit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: ChangeCategory
    raw: str = ""


def _version(value: str) -> str:
    try:
        Version(value)
    except InvalidVersion:
        raise ValueError(f"version {value!r} is not a version (PEP 440)") from None
    return value


def _pins(value: tuple[str, ...]) -> tuple[str, ...]:
    for pin in value:
        try:
            Requirement(pin)
        except InvalidRequirement as exc:
            raise ValueError(f"extra pin {pin!r} is not a requirement: {exc}") from exc
    return value


class Contrast(BaseModel):
    """Another version of the same library, where the reference solution must fail: it proves a
    problem depends on the version it pins (`validate --discriminative`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str
    python_version: str | None = Field(default=None, description="default: the problem's")
    node_version: str | None = Field(default=None, description="default: the problem's")
    extra_pins: tuple[str, ...] = Field(default=(), description="default: the problem's")
    solution: str | None = Field(
        default=None, description="a complete program solving the problem on this version"
    )


class Problem(BaseModel):
    """One version-pinned coding problem."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    language: Language = Language.PYTHON
    library: str
    version: str
    python_version: str | None = Field(
        default=None, description="'3.9'-style; None lets the environment layer choose"
    )
    node_version: str | None = Field(
        default=None,
        description="JavaScript/TypeScript: the Node release ('18.20.4', or '18' for the newest "
        "of a line); None: the machine's",
    )
    extra_pins: tuple[str, ...] = ()
    harness_pins: tuple[str, ...] = Field(
        default=(),
        description="what the dataset's own harness installs beside the pins (its pytest, "
        "numpy, ...): installed too, but not part of the era the pins set",
    )
    problem: str
    starter_code: str = ""
    solution: str = Field(description="the reference program, complete (starter code included)")
    visible_test: TestSpec | None = None
    hidden_test: TestSpec
    extra_tests: dict[str, TestSpec] = Field(
        default_factory=dict,
        description="further tests `validate` runs the reference against (never shown or scored)",
    )
    change: ChangeType = ChangeType(category=ChangeCategory.UNKNOWN)
    release_date: str | None = Field(default=None, description="'YYYY-MM' or None when unknown")
    docs: str = ""
    tags: tuple[str, ...] = ()
    source: str = Field(default="", description="the changelog entry or release note it is from")
    contrast: Contrast | None = None
    origin: str = Field(default="", description="file:line the problem was read from")

    @model_validator(mode="before")
    @classmethod
    def _node_tests(cls, data: Any) -> Any:
        """A TypeScript problem's tests meet a `.ts` program (type-checked, then run)."""
        if not isinstance(data, dict) or data.get("language") != Language.TYPESCRIPT.value:
            return data
        update: dict[str, Any] = {"program_suffix": ".ts"}
        data = dict(data)
        for key in ("visible_test", "hidden_test"):
            data[key] = _updated(data.get(key), update)
        if isinstance(data.get("extra_tests"), dict):
            data["extra_tests"] = {k: _updated(v, update) for k, v in data["extra_tests"].items()}
        return data

    @model_validator(mode="before")
    @classmethod
    def _starter_builtins(cls, data: Any) -> Any:
        """A Python script test run appended to the program meets the builtins its starter
        redefines as the program's (`TestSpec.program_builtins`), as its authors wrote it."""
        if not isinstance(data, dict) or data.get("language", Language.PYTHON.value) != "python":
            return data
        names = starter_builtins(str(data.get("starter_code") or ""))
        if not names:
            return data
        data = dict(data)
        for key in ("visible_test", "hidden_test"):
            data[key] = _with_builtins(data.get(key), names)
        if isinstance(data.get("extra_tests"), dict):
            data["extra_tests"] = {
                k: _with_builtins(v, names) for k, v in data["extra_tests"].items()
            }
        return data

    @model_validator(mode="after")
    def _names_and_versions(self) -> Problem:
        """PyPI names and PEP 440 versions for Python; npm names, semver versions and
        `name@version` pins for JavaScript and TypeScript (the contrast's too)."""
        if self.language is Language.PYTHON:
            _check_python(self.library, self.version, (*self.extra_pins, *self.harness_pins))
            if self.node_version is not None:
                raise ValueError("node_version is for JavaScript and TypeScript problems")
            if self.contrast is not None:
                _check_python(self.library, self.contrast.version, self.contrast.extra_pins)
            return self
        _check_npm(self.library, self.version, (*self.extra_pins, *self.harness_pins))
        if self.python_version is not None:
            raise ValueError(f"python_version is for Python problems, not {self.language}")
        for text in (self.node_version, self.contrast.node_version if self.contrast else None):
            if text is not None and not _NODE_VERSION.fullmatch(text):
                raise ValueError(f"node_version {text!r} is not like '18.20.4' or '18'")
        if self.library == NODE_LIBRARY and self.node_version not in (None, self.version):
            raise ValueError(
                "a problem about Node itself runs on its `version`: node_version differs"
            )
        tests = (self.visible_test, self.hidden_test, *self.extra_tests.values())
        if any(t is not None and t.kind is not TestKind.JEST for t in tests):
            raise ValueError(f"{self.language} problems' tests are of kind 'jest'")
        if self.contrast is not None:
            _check_npm(self.library, self.contrast.version, self.contrast.extra_pins)
        return self

    @field_validator("python_version")
    @classmethod
    def _python_version_shape(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d+\.\d+(\.\d+)?", value):
            raise ValueError(f"python_version {value!r} is not like '3.9'")
        return value

    @field_validator("release_date")
    @classmethod
    def _release_date_shape(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", value):
            raise ValueError(f"release_date {value!r} is not 'YYYY-MM'")
        return value

    @property
    def toolchain_version(self) -> str | None:
        """The Python or Node version the program runs on (None: the environment chooses)."""
        if self.language is Language.PYTHON:
            return self.python_version
        return self.version if self.library == NODE_LIBRARY else self.node_version

    @property
    def direct_references(self) -> list[str]:
        """Requirements that name a file, URL or repository rather than an index release:
        building them would run dataset content on the host (refused unless allowed)."""
        if self.language is not Language.PYTHON:
            return []  # npm pins are `name@version` of the registry: checked at load
        contrast = self.contrast.extra_pins if self.contrast else ()
        pins = (*self.extra_pins, *self.harness_pins, *contrast)
        return [pin for pin in pins if Requirement(pin).url is not None]

    @property
    def pins(self) -> tuple[str, ...]:
        """Every requirement of the problem: the library pin first, then the extra pins (for
        Node's own standard library, the Node release, then the extra pins)."""
        if self.language is Language.PYTHON:
            return requirement_pins(self.library, self.version, self.extra_pins)
        if self.library == NODE_LIBRARY:
            return (f"node@{self.version}", *self.extra_pins)
        others = tuple(p for p in self.extra_pins if split_pin(p)[0] != self.library)
        return (f"{self.library}@{self.version}", *others)

    @property
    def packages(self) -> tuple[str, ...]:
        """What the environment installs: the pins, less Node itself."""
        if self.language is not Language.PYTHON and self.library == NODE_LIBRARY:
            return self.pins[1:]
        return self.pins


def _updated(test: Any, update: dict[str, Any]) -> Any:
    if isinstance(test, TestSpec):
        return test.model_copy(update=update)
    if isinstance(test, dict):
        return {**test, **update}
    return test


def starter_builtins(starter: str) -> tuple[str, ...]:
    """The builtin names a Python starter binds at module level (a def, class, assignment or
    import), sorted. A starter is often a prefix that stops mid-statement: what follows the
    first line that does not parse is left out, as many times as it takes."""
    lines = starter.replace("\r\n", "\n").split("\n")
    while lines:
        try:
            with warnings.catch_warnings():  # a starter's odd escape is not the host's warning
                warnings.simplefilter("ignore")
                tree = ast.parse("\n".join(lines))
            break
        except SyntaxError as exc:
            cut = max(0, min(len(lines), exc.lineno or len(lines)) - 1)
            # the statement the error is in started at its first unindented line
            while cut > 0 and lines[cut][:1] in (" ", "\t", ""):
                cut -= 1
            lines = lines[:cut]
    else:
        return ()
    bound: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return tuple(sorted(name for name in bound if hasattr(builtins, name)))


def _with_builtins(test: Any, names: tuple[str, ...]) -> Any:
    """The test, taking `names` from the program if it runs appended to it."""
    if isinstance(test, TestSpec):
        appended = test.kind is TestKind.SCRIPT and test.module is None
        if appended and not test.program_builtins:
            return test.model_copy(update={"program_builtins": names})
        return test
    if not isinstance(test, dict) or test.get("kind") != TestKind.SCRIPT.value:
        return test
    if test.get("module") or test.get("program_builtins"):
        return test
    return {**test, "program_builtins": names}


def _check_python(library: str, version: str, pins: tuple[str, ...]) -> None:
    if not _NAME.fullmatch(library):
        raise ValueError(f"library {library!r} is not a distribution name")
    _version(version)
    _pins(pins)


def _check_npm(library: str, version: str, pins: tuple[str, ...]) -> None:
    if library != NODE_LIBRARY and not _NPM_NAME.fullmatch(library):
        raise ValueError(f"library {library!r} is not an npm package name")
    pattern = _NODE_VERSION if library == NODE_LIBRARY else _SEMVER
    if not pattern.fullmatch(version):
        raise ValueError(f"version {version!r} is not an exact version like '1.2.3'")
    for pin in pins:
        split_pin(pin)  # ValueError: not like 'name@1.2.3'


def node_env_spec(
    packages: tuple[str, ...], node: str | None, language: Language, as_of: date | None = None
) -> EnvSpec:
    """A JavaScript or TypeScript program's environment: Node at `node`, the npm `packages`,
    and the harness's tools the packages do not pin themselves (Jest's `expect`; TypeScript)."""
    pinned = {split_pin(p)[0] for p in packages}
    harness = (*JS_HARNESS, *(TS_HARNESS if language is Language.TYPESCRIPT else ()))
    return EnvSpec(
        toolchain="node",
        version=node,
        pins=packages,
        extras=tuple(p for p in harness if split_pin(p)[0] not in pinned),
        as_of=as_of,
    )


def env_spec_for(problem: Problem, as_of: date | None = None) -> EnvSpec:
    """The environment a problem needs; `as_of` comes from the pins' upload dates when known."""
    if problem.language is not Language.PYTHON:
        return node_env_spec(problem.packages, problem.toolchain_version, problem.language, as_of)
    return pinned_spec(
        problem.pins,
        problem.python_version,
        (problem.visible_test, problem.hidden_test),
        harness_pins=problem.harness_pins,
        as_of=as_of,
    )
