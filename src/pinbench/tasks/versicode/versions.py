"""VersiCode's `version` fields, read as pins or constraints, and the release a constraint
stands for when its code must run.

Most items pin (`"==1.2.3"`), but VersiCode also publishes constraints: bounds (`"<0.25"`,
`">0.11"`, `">=1.2"`, `"<=3.2"`), wildcards written with `x` (`"==1.x"`, `"==2.0.x"`,
`">2.0.x"`), ranges (`">=1.2,<2"`) and bare versions (`"1.2.3"`). `parse` reads each into a
PEP 440 form without the package index: a bare version or `==V` is a pin, anything else a
`SpecifierSet`. String metrics need no more than that. Executing an item's code needs one
release; `newest_within` asks the index (pinbench's cached view of it, `envs.index`) for the
newest release inside the constraint.

Repairs, each applied wherever it occurs: blanks around and inside are dropped; a JSON number
is its text; `x`, `X` and `*` release components are wildcards (`==1.x` is `==1.*`; after an
ordering operator the wildcard components are dropped: `>2.0.x` is `>2.0`, `>=1.x` is `>=1`);
an empty release component (`0.4..0`) is read as a doubled dot; `;` and `&` separate clauses
like `,`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

_CLAUSE = re.compile(r"(===|==|!=|~=|<=|>=|<|>)?(.*)")
_WILDCARD = re.compile(r"(?:\.(?:[xX*]))+$|^[xX*]$")
_ORDERING = ("<", ">", "<=", ">=")


@dataclass(frozen=True)
class Requirement:
    """A published version field: exactly one of `pin` (a bare version, as written) and
    `constraint` (a normalized PEP 440 specifier set, e.g. '<0.25', '==1.*', '<2,>=1.2')."""

    pin: str | None = None
    constraint: str | None = None


def parse(raw: str) -> Requirement:
    """The pin or constraint a VersiCode version field holds; ValueError when it holds
    neither (no version in it, or one `packaging` cannot read even after the repairs)."""
    text = re.sub(r"\s+", "", raw)
    if not text:
        raise ValueError("is empty")
    clauses = [c for c in re.split(r"[,;&]", text) if c]
    if not clauses:
        raise ValueError("holds no version")
    normalized = [_clause(clause) for clause in clauses]
    if len(normalized) == 1:
        operator, version = normalized[0]
        if operator in ("", "==", "===") and not version.endswith(".*"):
            return Requirement(pin=_bare(clauses[0]))
    specifier = ",".join(f"{operator or '=='}{version}" for operator, version in normalized)
    try:
        return Requirement(constraint=str(SpecifierSet(specifier)))
    except InvalidSpecifier as exc:  # e.g. '~=1' (needs two components)
        raise ValueError(f"is not a version constraint ({exc})") from None


def _clause(clause: str) -> tuple[str, str]:
    """(operator, version) of one clause, the version repaired and checked."""
    match = _CLAUSE.fullmatch(clause)
    assert match is not None  # both groups match the empty string
    operator, version = match[1] or "", match[2]
    version = re.sub(r"\.{2,}", ".", version.removeprefix("v").removeprefix("V"))
    wildcard = _WILDCARD.search(version)
    if wildcard is not None:
        version = version[: wildcard.start()]
        if not version:
            raise ValueError("names no release (only a wildcard)")
        if operator not in _ORDERING:
            version += ".*"
            operator = "!=" if operator == "!=" else "=="
    try:
        Version(version.removesuffix(".*"))
    except InvalidVersion:
        raise ValueError(f"{version!r} is not a version") from None
    return operator, version


def _bare(clause: str) -> str:
    """A pin's version as written, operator and leading 'v' dropped, a doubled dot repaired."""
    version = clause.lstrip("=").removeprefix("v").removeprefix("V")
    return re.sub(r"\.{2,}", ".", version)


def newest_within(versions: list[Version], constraint: str) -> Version | None:
    """The newest of `versions` inside `constraint` (pre-releases only when the constraint names
    one or nothing else fits, as PEP 440 says); None when none is."""
    inside = list(SpecifierSet(constraint).filter(versions))
    return max(inside) if inside else None


def newest_release(library: str, constraint: str) -> str:
    """The newest release of `library` on the package index inside `constraint`.

    Raises LookupError when the index cannot be asked or has no release inside it."""
    from pinbench.envs.python import index

    try:
        files = index.project_files(library)
    except index.IndexUnavailable as exc:
        raise LookupError(str(exc)) from exc
    newest = newest_within(sorted({f.version for f in files}), constraint)
    if newest is None:
        raise LookupError(f"no release of {library} on {index.index_url()} is {constraint}")
    return str(newest)
