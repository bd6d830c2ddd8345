"""A source file's functions as the IDE scenarios see them, whatever the language: where each
starts and ends, its documentation comment, its body's braces, what it takes, returns and
throws. Each language's reader (TypeScript's parser for JavaScript/TypeScript, tree-sitter for
Java) produces one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Function:
    """A function or method of a file (lines are 1-based)."""

    qualname: str
    name: str
    line: int  # its statement's first line (after any JSDoc)
    end: int
    lines: tuple[int, ...]  # where coverage may say it starts (V8: its start; JaCoCo: any)
    body: tuple[int, int] | None  # the lines of its block's `{` and `}`
    body_whole_lines: bool
    doc: str | None  # its `/** ... */` comment
    doc_lines: tuple[int, int] | None
    indent: str
    params: tuple[str, ...]
    returns: bool
    yields: bool
    throws: tuple[str, ...]
    exported: bool  # exported by its module (Java: public)
    in_class: bool
    private: bool

    @property
    def start(self) -> int:
        """The first line, its documentation comment included."""
        return self.doc_lines[0] if self.doc_lines else self.line


@dataclass(frozen=True)
class Outline:
    functions: tuple[Function, ...]
    classes: tuple[tuple[str, int, int], ...]  # (qualname, first line, last line)

    def find(self, qualname: str) -> Function | None:
        return next((f for f in self.functions if f.qualname == qualname), None)
