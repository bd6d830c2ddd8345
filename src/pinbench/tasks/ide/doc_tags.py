"""Block documentation comments with tags, as Javadoc and Doxygen write them (`/** ... */`,
`@param`, `@return`, `@throws`; Doxygen also `\\param`, `@param[in]`, `@returns`), read into
their description and tags, and the doc scenario's check of a function against them: a
description that says more than the name, every parameter named and no other, a return value
described exactly when there is one, every class the function throws."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pinbench.tasks.ide.outline import Function


@dataclass(frozen=True)
class Tags:
    description: str
    params: tuple[str, ...]
    returns: bool
    throws: tuple[str, ...]


_PARAM = {"param", "tparam"}
_RETURN = {"return", "returns", "retval", "result"}
_THROWS = {"throws", "throw", "exception"}


def read(doc: str, backslash: bool = False) -> Tags:
    """A comment's description (its text before the first tag) and its tags; `backslash`:
    Doxygen's `\\param` spelling counts too. `@param[in,out] name` names `name`; template
    parameters (`@tparam`, Javadoc's `@param <T>`) are not parameters."""
    body = doc.strip()
    body = body[3:] if body.startswith(("/**", "/*!")) else body
    body = body[:-2] if body.endswith("*/") else body
    lead = r"[@\\]" if backslash else "@"
    tag_line = re.compile(rf"^\s*(?:\*|//[/!]<?)?\s*{lead}(\w+)(\[[^\]]*\])?\s*(.*)$")
    description: list[str] = []
    params: list[str] = []
    throws: list[str] = []
    returns = False
    in_tags = False
    for raw in body.splitlines():
        tag = tag_line.match(raw)
        if tag:
            in_tags = True
            name, rest = tag.group(1), tag.group(3).split()
            if name == "param" and rest and not rest[0].startswith("<"):
                params.append(rest[0].rstrip(",.:"))
            elif name in _RETURN and rest:
                returns = True
            elif name in _THROWS and rest:
                throws.append(_class_name(rest[0]))
        elif not in_tags:
            description.append(raw.strip().lstrip("*/!").strip())
    return Tags(" ".join(d for d in description if d), tuple(params), returns, tuple(throws))


def read_xml(doc: str) -> Tags | None:
    """A C# XML documentation comment (a run of `///` lines) as tags: `<summary>`,
    `<param name>`, `<returns>`, `<exception cref>` (`T:System.ArgumentException` names
    `ArgumentException`); None when it is not well-formed XML."""
    from defusedxml import ElementTree
    from defusedxml.common import DefusedXmlException

    body = "\n".join(re.sub(r"^\s*///", "", line) for line in doc.strip().splitlines())
    try:
        root = ElementTree.fromstring(f"<doc>{body}</doc>")
    except (ElementTree.ParseError, DefusedXmlException):
        return None
    for element in root.iter():  # a reference reads as what it names
        if element.tag in ("see", "seealso", "paramref", "typeparamref") and not element.text:
            named = element.get("cref") or element.get("name") or element.get("langword") or ""
            element.text = _class_name(named.split(":", 1)[-1])
    summary = root.find("summary")
    description = " ".join("".join(summary.itertext()).split()) if summary is not None else ""
    params = tuple(p.get("name", "") for p in root.findall("param") if p.get("name"))
    returns = any("".join(r.itertext()).strip() for r in root.findall("returns"))
    throws = tuple(
        _class_name(e.get("cref", "").split(":", 1)[-1])
        for e in root.findall("exception")
        if e.get("cref")
    )
    return Tags(description, params, returns, throws)


def _class_name(text: str) -> str:
    """`java.io.IOException`, `std::invalid_argument<...>` -> the class's own name."""
    return re.split(r"\.|::", text.split("<", 1)[0])[-1]


def problems(function: Function, tags: Tags) -> tuple[str, ...]:
    """What the comment misses (empty: it passes)."""
    found = []
    words = re.findall(r"[A-Za-z]{2,}", tags.description)
    if len(words) < 2 or " ".join(words).lower() == function.name.lower():
        found.append("no description")
    for param in function.params:
        if param not in tags.params:
            found.append(f"no @param for {param}")
    for param in tags.params:
        if param not in function.params:
            found.append(f"@param {param} names no parameter")
    if function.returns and not tags.returns:
        found.append("no @return")
    if not function.returns and tags.returns:
        found.append("@return on a function that returns nothing")
    named = {_class_name(t) for t in tags.throws}
    for thrown in function.throws:
        if _class_name(thrown) not in named:
            found.append(f"no @throws for {thrown}")
    return tuple(found)
