"""Whether a JavaScript or TypeScript program parses, decided on the host without running it.

JavaScript: Node's own parser (`node --check`, which parses and runs nothing), as CommonJS and
else as an ES module. TypeScript: the TypeScript compiler's parser (`transpileModule` with its
syntactic diagnostics; no type information, no module resolution, nothing executed), from the
harness's pinned `typescript` in a tool environment built once like any other (the machine's
Node, else the harness's). The program is data on stdin; only these parsers run."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from pinbench.core.env import EnvError, EnvSpec

# the harness's TypeScript: its parser on the host, its checker in the sandbox
TYPESCRIPT = "typescript@5.4.5"
_TIMEOUT = 60.0

# Reads the program from stdin; prints the first syntactic diagnostic ("line:col message"), or
# nothing. Node 12-compatible, as every harness script.
_PARSE_TS = r"""
var ts = require(process.argv[1]);
var chunks = [];
process.stdin.on('data', function (c) { chunks.push(c); });
process.stdin.on('end', function () {
  var source = Buffer.concat(chunks).toString('utf8') + '\n';  // a diagnostic at the end of
  // a file without a final newline trips an assertion in transpileModule
  var out = ts.transpileModule(source, {
    fileName: 'program.ts', reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 }
  });
  var first = (out.diagnostics || [])[0];
  if (first) {
    var where = first.file && first.start !== undefined
      ? first.file.getLineAndCharacterOfPosition(first.start) : null;
    var text = ts.flattenDiagnosticMessageText(first.messageText, ' ');
    var at = where ? (where.line + 1) + ':' + (where.character + 1) + ' ' : '';
    process.stdout.write(at + text);
  }
});
"""


class ParserUnavailable(Exception):
    """No parser could be had here (no Node, or the tool environment cannot be built)."""


def javascript_error(program: str) -> str | None:
    """Node's first syntax error for the program (as CommonJS, else as an ES module), or None
    when it parses."""
    if "\x00" in program:
        return "a program has no null characters"
    node = shutil.which("node")
    if node is None:
        raise ParserUnavailable("no node on PATH to parse JavaScript")
    first = ""
    with tempfile.TemporaryDirectory(prefix="pinbench-check-") as scratch:
        for name in ("program.cjs", "program.mjs"):
            path = os.path.join(scratch, name)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(program)
            try:
                done = subprocess.run(
                    [node, "--check", path], capture_output=True, timeout=_TIMEOUT, check=False
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise ParserUnavailable(f"node --check: {exc}") from None
            if done.returncode == 0:
                return None
            first = first or _syntax_line(done.stderr.decode(errors="replace"))
    return first or "does not parse"


def _syntax_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return next((line for line in lines if "Error" in line), lines[0] if lines else "")


@functools.cache
def _typescript() -> tuple[Path, Path]:
    """(node, the typescript package) of the tool environment, built on first use."""
    from pinbench.envs.node.builder import ensure  # the builder needs the registry: only now

    try:
        env = ensure(EnvSpec(toolchain="node", version=None, pins=(TYPESCRIPT,)))
    except EnvError as exc:
        raise ParserUnavailable(f"the TypeScript parser's environment: {exc}") from None
    return env.path / "bin" / "node", env.path / "node_modules" / "typescript"


def run_with_typescript(script: str, program: str, *args: str) -> str:
    """Run a harness `script` (Node code that parses with `require(process.argv[1])`, the
    pinned TypeScript package; `args` follow it) with the program on stdin; its stdout.
    The script is pinbench's own; the program is only data to it."""
    node, package = _typescript()
    try:
        done = subprocess.run(
            [str(node), "-e", script, str(package), *args],
            input=program.encode(),
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ParserUnavailable(f"the TypeScript parser: {exc}") from None
    if done.returncode != 0:
        raise ParserUnavailable(
            f"the TypeScript parser failed: {done.stderr.decode(errors='replace')[-300:]}"
        )
    return done.stdout.decode(errors="replace")


def typescript_error(program: str) -> str | None:
    """The TypeScript parser's first syntactic diagnostic for the program, or None when it
    parses (types are the sandbox's type check's business)."""
    if "\x00" in program:
        return "a program has no null characters"
    return run_with_typescript(_PARSE_TS, program).strip() or None


def syntax_error(program: str, typescript: bool) -> str | None:
    """The program's first syntax error in its language, or None; ParserUnavailable when no
    parser can be had here."""
    return typescript_error(program) if typescript else javascript_error(program)
