"""Host-side parsing of JavaScript and TypeScript (nothing run): Node's parser and the pinned
TypeScript compiler's, as the starter check and the compile rate use them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinbench.core.outcome import Status
from pinbench.envs.node import syntax
from pinbench.envs.node.syntax import javascript_error, syntax_error, typescript_error
from pinbench.tasks.generation.problem import Problem
from pinbench.tasks.versicode.masking import _JS_USES
from pinbench.validation import _starter_check

TS_OK = "import _ from 'lodash';\nexport function f(a: number): string {\n  return '';\n}\n"
TS_STUB = "export function f(a: number): Map<string, number[]> {\n  // TODO\n}\n"


@pytest.mark.parametrize(
    ("program", "error"),
    [
        (TS_OK, None),
        (TS_STUB, None),  # a stub body parses; a missing return is the type checker's business
        ("export function f(a: number: string {}", "1:28 ',' expected."),
        ("let x: = 1", "1:8 Type expected."),
        ("class A { m(): void {} ", "'}' expected."),
        ("const s = `unterminated", "Unterminated template literal."),
    ],
)
def test_typescript_syntax(program: str, error: str | None) -> None:
    found = typescript_error(program)
    if error is None:
        assert found is None
    else:
        assert found is not None and error in found


def test_javascript_syntax_is_nodes_as_commonjs_or_es_module() -> None:
    assert javascript_error("module.exports = { f: (x) => x + 1 };") is None
    assert javascript_error("import fs from 'fs';\nexport const a = 1;\n") is None
    assert javascript_error("await Promise.resolve(1);\nexport {};\n") is None  # ESM only
    error = javascript_error("const x = ;")
    assert error is not None and "SyntaxError" in error
    # types are not JavaScript
    assert javascript_error(TS_OK) is not None
    assert syntax_error(TS_OK, typescript=True) is None


def test_nothing_is_run_while_parsing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    program = f"require('fs').writeFileSync({str(marker)!r}, 'x');\n"
    assert javascript_error(program) is None
    assert typescript_error(program) is None
    assert not marker.exists()


def _problem(language: str, starter: str, solution: str) -> Problem:
    test = {"kind": "jest", "code": "test('t', () => {});", "module": "solution"}
    return Problem.model_validate(
        {
            "id": "x-1.0-01",
            "language": language,
            "library": "lodash",
            "version": "4.17.21",
            "node_version": "20",
            "problem": "p",
            "starter_code": starter,
            "solution": solution,
            "hidden_test": test,
        }
    )


def test_starter_check_parses_stubs_and_accepts_prefixes_of_the_reference() -> None:
    reference = "export function f(a: number): string {\n  return String(a);\n}\n"
    stub = _problem("typescript", TS_STUB, reference)
    assert _starter_check(stub).status is Status.PASSED
    prefix = _problem("typescript", "export function f(a: number): string {\n", reference)
    check = _starter_check(prefix)
    assert check.status is Status.PASSED and "prefix" in check.detail
    broken = _problem("typescript", "export function f(a: number: string {\n}\n", reference)
    check = _starter_check(broken)
    assert check.status is Status.SYNTAX_ERROR and "',' expected" in check.detail
    js = _problem("javascript", "function f(a) {\n  // TODO\n}\nmodule.exports = { f };\n", "")
    assert _starter_check(js).status is Status.PASSED
    js_broken = _problem("javascript", "function f(a) {\n", "function g() {}\n")
    assert _starter_check(js_broken).status is Status.SYNTAX_ERROR


def test_the_parser_process_survives_a_failure_and_a_crash() -> None:
    """One long-lived parser answers every request; a request it fails on is one clear error,
    and a parser that died is started again for the next request."""
    assert typescript_error(TS_OK) is None
    with pytest.raises(syntax.ParserUnavailable, match="the TypeScript parser failed"):
        syntax.ask_typescript(_JS_USES, 5)  # not [library, code]: the handler throws
    assert typescript_error("let x: = 1") == "1:8 Type expected."
    server = syntax._SERVERS[syntax._PARSE_TS]
    assert server.process is not None
    first = server.process.pid
    server.process.kill()
    server.process.wait()
    assert typescript_error(TS_OK) is None
    assert server.process.pid != first
