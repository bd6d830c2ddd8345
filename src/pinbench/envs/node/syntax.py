"""Whether a JavaScript or TypeScript program parses, decided on the host without running it.

JavaScript: Node's own parser (`node --check`, which parses and runs nothing), as CommonJS and
else as an ES module. TypeScript: the TypeScript compiler's parser (`transpileModule` with its
syntactic diagnostics; no type information, no module resolution, nothing executed), from the
harness's pinned `typescript` in a tool environment built once like any other (the machine's
Node, else the harness's), in one long-lived parser process per handler. The program is data
in a request; only these parsers run."""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pinbench.core.env import EnvError, EnvSpec

# the harness's TypeScript: its parser on the host, its checker in the sandbox
TYPESCRIPT = "typescript@5.4.5"
# the host's tool environment: TypeScript, and the linters and JSDoc checker of the IDE
# scenarios (ESLint with its recommended rules, typescript-eslint's parser, eslint-plugin-jsdoc)
HOST_TOOLS = (
    TYPESCRIPT,
    "eslint@9.39.1",
    "@eslint/js@9.39.1",
    "eslint-plugin-jsdoc@50.6.17",
    "@typescript-eslint/parser@8.46.4",
    "typescript-eslint@8.46.4",
    "globals@15.15.0",
)
_TIMEOUT = 60.0

# The parser server: loads the pinned TypeScript package and one handler module (a harness
# file exporting `function (ts, modules) { return function (request) { ... } }`, `modules` the
# tool environment's node_modules), then answers one JSON request per stdin line with one JSON
# line. Node 12-compatible, as every harness script.
_SERVE = r"""
var ts = require(require('path').join(process.argv[1], 'typescript'));
var handle = require(process.argv[2])(ts, process.argv[1]);
require('readline').createInterface({ input: process.stdin }).on('line', function (line) {
  var answer;
  try { answer = { ok: handle(JSON.parse(line)) }; }
  catch (err) { answer = { error: String((err && err.stack) || err).slice(0, 2000) }; }
  process.stdout.write(JSON.stringify(answer) + '\n');
});
"""
_PARSE_TS = Path(__file__).with_name("_parse_ts.js")


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
def _tools() -> tuple[Path, Path]:
    """(node, node_modules) of the host's tool environment, built on first use."""
    from pinbench.envs.node.builder import ensure  # the builder needs the registry: only now

    try:
        env = ensure(EnvSpec(toolchain="node", version=None, pins=HOST_TOOLS))
    except EnvError as exc:
        raise ParserUnavailable(f"the TypeScript parser's environment: {exc}") from None
    return env.path / "bin" / "node", env.path / "node_modules"


class _Server:
    """One long-lived parser process per handler (loading TypeScript costs ~0.2 s; a request
    then costs milliseconds), restarted after a failure or a request past its deadline.
    Thread-safe: requests are answered one at a time."""

    def __init__(self, handler: Path) -> None:
        self.handler = handler
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        self.buffer = b""  # what the process wrote past the last answer

    def ask(self, request: Any) -> Any:
        with self.lock:
            try:
                return self._ask(json.dumps(request).encode() + b"\n")
            except ParserUnavailable:
                self._stop()
                raise

    def _ask(self, line: bytes) -> Any:
        process = self._started()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(line)
            process.stdin.flush()
        except OSError as exc:
            raise ParserUnavailable(f"the TypeScript parser: {exc}") from None
        answer = self._line(process.stdout.fileno(), time.monotonic() + _TIMEOUT)
        try:
            decoded = json.loads(answer)
        except ValueError:
            raise ParserUnavailable("the TypeScript parser answered no JSON") from None
        if "error" in decoded:
            raise ParserUnavailable(f"the TypeScript parser failed: {decoded['error'][-300:]}")
        return decoded.get("ok")

    def _started(self) -> subprocess.Popen[bytes]:
        if self.process is None or self.process.poll() is not None:
            node, package = _tools()
            self.process = subprocess.Popen(
                [str(node), "-e", _SERVE, str(package), str(self.handler)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            )
            self.buffer = b""
        return self.process

    def _line(self, fd: int, deadline: float) -> bytes:
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise ParserUnavailable(f"the TypeScript parser took over {_TIMEOUT:.0f} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise ParserUnavailable("the TypeScript parser ended")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def _stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


_SERVERS: dict[Path, _Server] = {}
_SERVERS_LOCK = threading.Lock()


def ask_typescript(handler: Path, request: Any) -> Any:
    """The answer of a harness `handler` (a module given the pinned TypeScript package; see
    `_SERVE`) to a JSON request, from its long-lived parser process. The handler is pinbench's
    own; the programs in a request are only data to it. ParserUnavailable when no parser can
    be had or it fails."""
    with _SERVERS_LOCK:
        server = _SERVERS.setdefault(handler, _Server(handler))
    return server.ask(request)


def typescript_error(program: str) -> str | None:
    """The TypeScript parser's first syntactic diagnostic for the program, or None when it
    parses (types are the sandbox's type check's business)."""
    if "\x00" in program:
        return "a program has no null characters"
    answer = ask_typescript(_PARSE_TS, program)
    return str(answer) if answer else None


def syntax_error(program: str, typescript: bool) -> str | None:
    """The program's first syntax error in its language, or None; ParserUnavailable when no
    parser can be had here."""
    return typescript_error(program) if typescript else javascript_error(program)
