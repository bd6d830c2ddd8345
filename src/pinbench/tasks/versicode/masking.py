"""Completion tasks from a meta-instance: find the version-sensitive API use with the AST and mask
it as a token, a line or a block.

JavaScript and TypeScript snippets are read the same way with the TypeScript compiler's parser
(`_js_uses.js`, run on the host: it parses and runs nothing): `require` and `import` bindings,
member chains, calls of the module itself (`moment()`), and an options object's keys standing
for keyword arguments (`qs.stringify({allowDots})`).

Text search cannot tell `np.linalg.norm` from a local `norm`, nor see that `la.norm` is the same
API after `from numpy import linalg as la`; the AST can. Imports anywhere in the snippet bind
names for the whole snippet (function-local imports are common in short programs); a library's
top-level module used without an import (documentation snippets do this) counts as imported.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from pinbench.envs.node.syntax import ParserUnavailable, ask_typescript
from pinbench.tasks.versicode.model import CompletionTask, Granularity, MetaInstance

# Distributions whose import name is not their own name (the rest: name with '-' -> '_').
_IMPORT_NAMES: dict[str, tuple[str, ...]] = {
    "absl-py": ("absl",),
    "attrs": ("attr", "attrs"),
    "beautifulsoup4": ("bs4",),
    "opencv-python": ("cv2",),
    "pillow": ("PIL",),
    "protobuf": ("google.protobuf",),
    "python-dateutil": ("dateutil",),
    "pyyaml": ("yaml",),
    "scikit-image": ("skimage",),
    "scikit-learn": ("sklearn",),
    "tensorflow-gpu": ("tensorflow",),
}
_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line ends `ast` counts (str.splitlines knows more)
_IDENTIFIER = re.compile(r"[^\W\d]\w*")


class UseKind(StrEnum):
    IMPORT = "import"  # a name in `from <library...> import name`
    CALL = "call"  # the callee of a call
    REFERENCE = "reference"  # any other load of a name or attribute
    KEYWORD = "keyword"  # a keyword argument's name in a call


@dataclass(frozen=True)
class ApiUse:
    """One use of an API in a snippet, with the three spans masking may hide (character offsets).

    `resolved`: the AST ties it to the library. An attribute of a receiver it cannot tie to
    anything (a parameter `df` in `df.applymap`) is kept unresolved: only an explicit API name or
    the diff between two versions may pick it.
    """

    qualname: str  # 'numpy.linalg.norm', '?.applymap', 'sklearn...OneHotEncoder(sparse_output=)'
    name: str  # the identifier token: 'norm', 'applymap', 'sparse_output'
    kind: UseKind
    resolved: bool
    lineno: int  # 1-based line of the token
    token: tuple[int, int]
    line: tuple[int, int]  # the physical line, indentation and trailing blanks left out
    block: tuple[int, int]  # the statement list around the use, a leading docstring left out


@dataclass
class MaskResult:
    """What `completion_tasks` made, and why each missing granularity is missing."""

    tasks: list[CompletionTask] = field(default_factory=list)
    skipped: dict[Granularity, str] = field(default_factory=dict)


def module_names(library: str) -> frozenset[str]:
    """The modules a distribution is imported as (scikit-learn -> sklearn)."""
    canonical = canonicalize_name(library)
    return frozenset(_IMPORT_NAMES.get(canonical, (canonical.replace("-", "_"),)))


def find_api_uses(code: str, library: str, language: str = "python") -> list[ApiUse]:
    """Every use of `library` in `code`, plus unresolved attributes, in source order.

    Raises SyntaxError when the code does not parse, even with its common indentation removed
    (snippets cut from a class body are indented); for JavaScript and TypeScript
    (`language`), ParserUnavailable when no parser can be had here.
    """
    if language != "python":
        return sorted(_js_uses(code, library), key=_position)
    tree, margin = _parse(code)
    return sorted(_Collector(code, tree, margin, module_names(library)).uses, key=_position)


_JS_USES = Path(__file__).with_name("_js_uses.js")


@functools.lru_cache(maxsize=1024)
def _js_parsed(library: str, code: str) -> Any:
    """The parser's reading of a snippet (its uses, or its syntax error); masking asks for the
    same snippets several times."""
    return ask_typescript(_JS_USES, [library, code])


def _js_uses(code: str, library: str) -> list[ApiUse]:
    found = _js_parsed(library, code)
    if "error" in found:
        where, _, message = str(found["error"]).partition(" ")
        line, _, column = where.partition(":")
        raise SyntaxError(message, ("snippet", int(line), int(column), ""))
    index = _utf16_index(code)  # the parser counts UTF-16 units, Python code points
    starts = [0] + [m.end() for m in _NEWLINE.finditer(code)]
    uses = []
    for use in found["uses"]:
        token = (index[use["token"][0]], index[use["token"][1]])
        lineno = bisect.bisect_right(starts, token[0])
        start = starts[lineno - 1]
        end = starts[lineno] if lineno < len(starts) else len(code)
        text = _NEWLINE.sub("", code[start:end])
        span = (start + len(text) - len(text.lstrip()), start + len(text.rstrip()))
        uses.append(
            ApiUse(
                qualname=use["qualname"],
                name=use["name"],
                kind=UseKind(use["kind"]),
                resolved=bool(use["resolved"]),
                lineno=lineno,
                token=token,
                line=span,
                block=(index[use["block"][0]], index[use["block"][1]]),
            )
        )
    return uses


def _utf16_index(code: str) -> list[int]:
    """For each UTF-16 offset into `code` (and its end), the code-point offset."""
    index: list[int] = []
    for position, char in enumerate(code):
        index.extend([position] * (2 if ord(char) > 0xFFFF else 1))
    index.append(len(code))
    return index


def changed_lines(code: str, other: str) -> set[int]:
    """The 1-based lines of `code` that differ from `other` (where the versions differ)."""
    matcher = difflib.SequenceMatcher(
        None, _NEWLINE.split(other), _NEWLINE.split(code), autojunk=False
    )
    return {
        line + 1
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
        for line in range(j1, j2)
    }


@dataclass(frozen=True)
class Target:
    """The use to mask; `token_ok` is False when its name is the same in both versions (masking
    that name alone would test nothing version-specific)."""

    use: ApiUse
    token_ok: bool


def choose_target(
    uses: Sequence[ApiUse],
    library: str,
    *,
    api: str | None = None,
    code: str | None = None,
    other: str | None = None,
    language: str = "python",
) -> Target | str:
    """The use to mask, or why there is none.

    `api` (a name or dotted name) picks the last use of that API. Otherwise, given the `other`
    version's code, only uses on lines that differ count, best first: a library API whose name
    the other version lacks, a keyword it lacks, an unresolved attribute it lacks, a library API
    it reaches by another path, then any library use or unresolved call. Without either: the
    last library call, else the last library reference.
    """
    if api is not None:
        named = [u for u in uses if u.qualname == api or u.name == api.rsplit(".", 1)[-1]]
        if not named:
            return f"no use of API {api!r}"
        best = _last(named)
        return Target(best, other is None or best.name not in _names(other, library, language))
    if other is not None and code is not None:
        return _diff_target(uses, library, code, other, language)
    calls = [u for u in uses if u.resolved and u.kind is UseKind.CALL]
    references = [u for u in uses if u.resolved and u.kind is UseKind.REFERENCE]
    if not calls and not references:
        return f"no call or attribute of {library} found"
    return Target(_last(calls or references), token_ok=True)


def mask(code: str, use: ApiUse, granularity: Granularity) -> tuple[str, str]:
    """(masked code, answer) hiding one span of `use`; putting the answer back restores `code`."""
    start, end = {
        Granularity.TOKEN: use.token,
        Granularity.LINE: use.line,
        Granularity.BLOCK: use.block,
    }[granularity]
    return code[:start] + granularity.mask + code[end:], code[start:end]


def completion_tasks(
    meta: MetaInstance,
    task_id: str,
    *,
    other: str | None = None,
    api: str | None = None,
    granularities: Iterable[Granularity] = tuple(Granularity),
) -> MaskResult:
    """One task per granularity masking the version-sensitive use in `meta.code`.

    The API is `api`; else the one the diff with `other` (the other version's code) points at;
    else `meta.api`; else the default of `choose_target`. The diff outranks `meta.api`: a label
    names an API, the diff shows where the versions part. Task ids are `<task_id>/<granularity>`.
    """
    wanted = list(granularities)
    reason = _cannot_mask(meta.code)
    if reason is None:
        try:
            uses = find_api_uses(meta.code, meta.library, meta.language)
        except SyntaxError as exc:
            reason = f"code does not parse: {exc.msg} (line {exc.lineno})"
        except ParserUnavailable as exc:
            reason = str(exc)
    if reason is not None:
        return MaskResult(skipped=dict.fromkeys(wanted, reason))
    named = api if api is not None or other is not None else meta.api
    target = choose_target(
        uses, meta.library, api=named, code=meta.code, other=other, language=meta.language
    )
    if isinstance(target, str):
        return MaskResult(skipped=dict.fromkeys(wanted, target))
    result = MaskResult()
    for granularity in wanted:
        reason = _unfit(target, granularity)
        if reason is None:
            result.tasks.append(_task(meta, f"{task_id}/{granularity}", target.use, granularity))
        else:
            result.skipped[granularity] = reason
    return result


def _unfit(target: Target, granularity: Granularity) -> str | None:
    """Why masking `target` at `granularity` would not make a task of its own, if it would not."""
    if granularity is Granularity.TOKEN and not target.token_ok:
        return f"{target.use.name!r} is named the same in both versions"
    if granularity is Granularity.BLOCK and target.use.block == target.use.line:
        return "the enclosing block is the masked line alone"
    return None


def _task(
    meta: MetaInstance, task_id: str, use: ApiUse, granularity: Granularity
) -> CompletionTask:
    masked_code, answer = mask(meta.code, use, granularity)
    line_start, line_end = use.line
    return CompletionTask(
        id=task_id,
        meta=meta,
        granularity=granularity,
        masked_code=masked_code,
        answer=answer,
        api=use.name,
        masked_line=meta.code[line_start:line_end],
    )


def _cannot_mask(code: str) -> str | None:
    markers = [g.mask for g in Granularity if g.mask in code]
    if markers:
        return f"code already contains {markers[0]}"
    return None


def _diff_target(
    uses: Sequence[ApiUse], library: str, code: str, other: str, language: str = "python"
) -> Target | str:
    changed = changed_lines(code, other)
    if not changed:
        return "the two versions' code is the same"
    on_diff = [u for u in uses if u.lineno in changed]
    names = _names(other, library, language)
    qualnames = _qualnames(other, library, language)
    renamed = [u for u in on_diff if u.name not in names]
    # Each tier only adds what the earlier ones left out, so the comments name what is new.
    tiers: tuple[tuple[list[ApiUse], bool], ...] = (
        ([u for u in renamed if u.resolved and _is_api(u)], True),  # a renamed library API
        ([u for u in renamed if u.resolved], True),  # a renamed keyword of a library call
        ([u for u in renamed if _is_api(u)], True),  # a renamed unresolved attribute
        (renamed, True),  # a renamed keyword of an unresolved call
        ([u for u in on_diff if u.resolved and u.qualname not in qualnames], False),  # moved
        ([u for u in on_diff if u.resolved and _is_api(u)], False),  # any library use
        ([u for u in on_diff if u.kind is UseKind.CALL], False),  # any unresolved call
    )
    for candidates, token_ok in tiers:
        if candidates:
            return Target(_last(candidates), token_ok)
    return f"no API use of {library} on the lines where the versions differ"


def _is_api(use: ApiUse) -> bool:
    return use.kind is not UseKind.KEYWORD


def _names(code: str, library: str, language: str = "python") -> set[str]:
    """The API names `code` uses; every identifier when it does not parse."""
    try:
        return {u.name for u in find_api_uses(code, library, language)}
    except (SyntaxError, ParserUnavailable):
        return set(_IDENTIFIER.findall(code))


def _qualnames(code: str, library: str, language: str = "python") -> set[str]:
    try:
        return {u.qualname for u in find_api_uses(code, library, language)}
    except (SyntaxError, ParserUnavailable):
        return set()


_KIND_RANK = {UseKind.IMPORT: 0, UseKind.KEYWORD: 1, UseKind.REFERENCE: 2, UseKind.CALL: 3}


def _last(uses: Sequence[ApiUse]) -> ApiUse:
    """Deterministic pick: a call over a reference over a keyword over an import, then the last."""
    return max(uses, key=lambda u: (_KIND_RANK[u.kind], _position(u)))


def _position(use: ApiUse) -> tuple[int, int]:
    return use.token


def _parse(code: str) -> tuple[ast.Module, str]:
    """The tree, and the margin removed from every non-blank line to get it (usually '')."""
    try:
        return ast.parse(code), ""
    except SyntaxError as first:
        lines = _NEWLINE.split(code)
        indents = [line[: len(line) - len(line.lstrip(" \t"))] for line in lines if line.strip()]
        margin = _common_prefix(indents)
        if not margin:
            raise
        dedented = "\n".join(line[len(margin) :] if line.strip() else "" for line in lines)
        try:
            return ast.parse(dedented), margin
        except SyntaxError:
            raise first from None


def _common_prefix(strings: Sequence[str]) -> str:
    if not strings:
        return ""
    low, high = min(strings), max(strings)
    size = next((i for i, (a, b) in enumerate(zip(low, high, strict=False)) if a != b), len(low))
    return low[:size]


class _Collector:
    """Import bindings first (an import anywhere binds for the whole snippet), then every use
    with its three spans."""

    def __init__(self, code: str, tree: ast.Module, margin: str, modules: frozenset[str]) -> None:
        self.code = code
        self.margin = len(margin)
        self.modules = modules
        self.implicit = {m.split(".")[0] for m in modules}  # usable without an import
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(code)]
        self.parents = {
            child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)
        }
        self.bindings: dict[str, str] = {}
        self.module_aliases: set[str] = set()
        self._bind_imports(tree)
        self.uses: list[ApiUse] = []
        for node in ast.walk(tree):
            self._visit(node)

    def _bind_imports(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.bindings[local] = alias.name if alias.asname else local
                    self.module_aliases.add(local)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        self.bindings[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def _visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                qualname = f"{node.module}.{alias.name}"
                if alias.name != "*" and self._in_library(qualname):
                    self._add(qualname, alias.name, UseKind.IMPORT, True, node, alias)
        elif isinstance(node, ast.Attribute) or (
            isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        ):
            self._visit_reference(node)  # setting an attribute uses it too: app.json.sort_keys = 0
        elif isinstance(node, ast.Call):
            self._visit_keywords(node)

    def _visit_reference(self, node: ast.Name | ast.Attribute) -> None:
        parent = self.parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return  # the longer chain is the use
        kind = UseKind.CALL if isinstance(parent, ast.Call) and parent.func is node else None
        qualname = self._qualname(node)
        name = node.id if isinstance(node, ast.Name) else node.attr
        stmt = self._statement(node)
        if qualname is None:
            if isinstance(node, ast.Attribute):
                self._add(f"?.{name}", name, kind or UseKind.REFERENCE, False, stmt, node)
        elif self._in_library(qualname) and not (
            isinstance(node, ast.Name) and node.id in self.module_aliases
        ):
            self._add(qualname, name, kind or UseKind.REFERENCE, True, stmt, node)

    def _visit_keywords(self, node: ast.Call) -> None:
        callee = self._qualname(node.func)
        resolved = callee is not None
        if callee is None and isinstance(node.func, ast.Attribute):
            callee = f"?.{node.func.attr}"
        if callee is None or (resolved and not self._in_library(callee)):
            return  # a local, builtin or other library's function
        stmt = self._statement(node)
        for keyword in node.keywords:
            if keyword.arg is not None:
                qualname = f"{callee}({keyword.arg}=)"
                self._add(qualname, keyword.arg, UseKind.KEYWORD, resolved, stmt, keyword)

    def _qualname(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in self.bindings:
                return self.bindings[node.id]
            return node.id if node.id in self.implicit else None
        if isinstance(node, ast.Attribute):
            base = self._qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call):
            base = self._qualname(node.func)
            return f"{base}()" if base else None
        return None

    def _in_library(self, qualname: str) -> bool:
        return any(qualname == m or qualname.startswith((f"{m}.", f"{m}(")) for m in self.modules)

    def _statement(self, node: ast.AST) -> ast.stmt:
        while not isinstance(node, ast.stmt):
            node = self.parents[node]
        return node

    def _add(
        self,
        qualname: str,
        name: str,
        kind: UseKind,
        resolved: bool,
        stmt: ast.stmt,
        node: ast.expr | ast.keyword | ast.alias,
    ) -> None:
        token = self._token(node, name)
        if token is None:
            return
        lineno = self._lineno(token[0])
        self.uses.append(
            ApiUse(
                qualname=qualname,
                name=name,
                kind=kind,
                resolved=resolved,
                lineno=lineno,
                token=token,
                line=self._line_span(lineno, lineno),
                block=self._block_span(stmt),
            )
        )

    def _token(self, node: ast.expr | ast.keyword | ast.alias, name: str) -> tuple[int, int] | None:
        """The identifier's span; None when the source does not hold it where the AST says."""
        if isinstance(node, ast.Attribute):
            assert node.end_lineno is not None and node.end_col_offset is not None
            end = self._offset(node.end_lineno, node.end_col_offset)
            start = end - len(name)
        else:
            start = self._offset(node.lineno, node.col_offset)
            end = start + len(name)
        return (start, end) if self.code[start:end] == name else None

    def _offset(self, lineno: int, byte_col: int) -> int:
        """Character offset of an AST position (UTF-8 byte column, margin removed)."""
        start = self.starts[lineno - 1] + self.margin
        text = self.code[start : self.starts[lineno] if lineno < len(self.starts) else None]
        return start + len(text.encode()[:byte_col].decode(errors="ignore"))

    def _lineno(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def _line_text(self, lineno: int) -> tuple[int, str]:
        start = self.starts[lineno - 1]
        end = self.starts[lineno] if lineno < len(self.starts) else len(self.code)
        return start, _NEWLINE.sub("", self.code[start:end])

    def _line_span(self, first: int, last: int) -> tuple[int, int]:
        """From the first line's first non-blank to the last line's last non-blank character."""
        start, text = self._line_text(first)
        end, last_text = self._line_text(last)
        return start + len(text) - len(text.lstrip()), end + len(last_text.rstrip())

    def _block_span(self, stmt: ast.stmt) -> tuple[int, int]:
        body = self._body(stmt)
        first, last = body[0], body[-1]
        lines = [d.lineno for d in getattr(first, "decorator_list", ())] + [first.lineno]
        assert last.end_lineno is not None
        start, end = self._line_span(min(lines), last.end_lineno)
        own = self._offset(first.lineno, first.col_offset)
        if not getattr(first, "decorator_list", None) and own > start:
            start = own  # the block begins on its header's line: `if x: y()`
        return start, end

    def _body(self, stmt: ast.stmt) -> list[ast.stmt]:
        """The statement list holding `stmt`, without a leading docstring."""
        parent = self.parents.get(stmt)
        body: list[ast.stmt] = [stmt]
        for value in ast.iter_fields(parent) if parent is not None else ():
            if isinstance(value[1], list) and any(item is stmt for item in value[1]):
                body = value[1]
        if _is_docstring(parent, body) and body[0] is not stmt:
            body = body[1:]
        return body


def _is_docstring(parent: ast.AST | None, body: list[ast.stmt]) -> bool:
    documented = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    first = body[0]
    return (
        isinstance(parent, documented)
        and parent.body is body
        and isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
