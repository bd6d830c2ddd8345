"""An OpenAI-compatible HTTP server for tests: answers deterministically, misbehaves on cue.

Real HTTP/1.1 with keep-alive on 127.0.0.1, so client code is tested against real sockets,
timeouts and dropped connections rather than mocks. Two ways to run it:

- in a thread of the test process (`FaultServer`, or the `fault_server` fixture in
  `tests/models/conftest.py`): scriptable, and it records every request it receives;
- in a child process (`spawn_server`, or `python tests/models/fault_server.py --port 0`), which
  prints its URL on one line and serves until terminated: for benchmarks, so that the client
  under test has a CPU and the GIL to itself. Only `delay` can be set in this mode.

Answers: `POST /v1/chat/completions` and `POST /v1/completions` return one choice whose text is
a fenced python block echoing the route, the last line of the prompt (chat: of the last message),
the seed and the temperature, e.g.

    ```python
    # route: chat
    # last: def add(a, b):
    # seed: 7
    # temperature: 0.2
    print('def add(a, b):')
    ```

with `finish_reason: "stop"` and `usage` counting whitespace-separated words.

Faults: `script(faults, marker=...)` queues misbehaviours for the next requests whose prompt text
(all message contents, or the completion prompt) contains `marker`; the empty marker matches every
request. Each request consumes one fault from the first marker (in the order they were scripted)
that matches it and still has faults left; a request with nothing left answers normally.

    server.script({"429": 2}, marker="p1")         # the first 2 requests for p1 get 429
    server.script(["500", "malformed"])             # then any request: a 500, then bad JSON
    server.script([Fault("503", retry_after="3")])  # 503 with `Retry-After: 3`

Fault kinds: an HTTP status code ("400", "401", "429", "500", ...; 429 and 503 send
`Retry-After`; 401 echoes the bearer token in its message, as OpenAI does), "malformed" (200 with a
body that is not JSON), "no_choices" (200 with a JSON object lacking `choices`), "hang" (never
answer; the connection stays open until the client gives up), "drop" (close the connection half-way
through the response body), "close" (close the connection without any response) and "slow"
(answer normally after `Fault.delay` seconds).

Models: `FaultServer(models=("m",))` serves only those models; a request for any other gets the
404 an OpenAI-compatible server sends for an unknown model (`The model `x` does not exist.`).
By default every model name is served.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

KINDS = ("malformed", "no_choices", "hang", "drop", "close", "slow")


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour: `kind` is an HTTP status code as a string or one of `KINDS`.
    `retry_after` is the `Retry-After` value sent with 429 and 503 (None: no header);
    `delay` is how long a "slow" answer waits."""

    kind: str
    retry_after: str | None = "1"
    delay: float = 0.5

    def __post_init__(self) -> None:
        if not (self.kind.isdigit() or self.kind in KINDS):
            raise ValueError(f"unknown fault {self.kind!r}: a status code or one of {KINDS}")


@dataclass(frozen=True)
class Received:
    """One request as the server saw it. `at` is `time.monotonic()` on arrival (comparable with
    the test's own clock in thread mode); `fault` is the fault applied, or None if answered
    normally."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON body, or None if it was not JSON
    at: float
    fault: str | None

    @property
    def text(self) -> str:
        """What markers are searched in: every message's content, or the completion prompt."""
        return _prompt_text(self.body)


class FaultServer:
    """The server in a background thread with its own event loop. Use as a context manager, or
    `start()` / `stop()`. `delay` (settable at any time) makes every normal answer wait that long,
    for concurrency tests; `max_in_flight` is the most requests it was handling at once."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        delay: float = 0.0,
        models: Sequence[str] | None = None,
        answers: Mapping[str, str] | None = None,
    ) -> None:
        self.host = host
        self.answers = dict(answers or {})
        self.port = port
        self.delay = delay
        self.models = None if models is None else tuple(models)
        self._lock = threading.Lock()
        self._plans: dict[str, deque[Fault]] = {}
        self._received: list[Received] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        """The API root to give a client, e.g. `http://127.0.0.1:41234/v1`."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def requests(self) -> list[Received]:
        """Every request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._received)

    def received(self, marker: str = "") -> list[Received]:
        """The requests whose prompt text contains `marker`."""
        return [r for r in self.requests if marker in r.text]

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    def script(
        self, faults: Mapping[str, int] | Sequence[str | Fault], *, marker: str = ""
    ) -> None:
        """Queue faults for the next requests matching `marker`: a mapping of kind to count
        (applied in its order) or a sequence of kinds / `Fault`s. Adds to what is already queued."""
        if isinstance(faults, Mapping):
            plan = [Fault(kind) for kind, count in faults.items() for _ in range(count)]
        else:
            plan = [f if isinstance(f, Fault) else Fault(f) for f in faults]
        with self._lock:
            self._plans.setdefault(marker, deque()).extend(plan)

    def reset(self) -> None:
        """Forget scripted faults, recorded requests and the in-flight maximum."""
        with self._lock:
            self._plans.clear()
            self._received.clear()
            self._max_in_flight = self._in_flight

    def start(self) -> Self:
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            try:
                asyncio.run(self._serve(ready))
            except BaseException as exc:  # reported to start(), which re-raises it
                failure.append(exc)
                ready.set()

        self._thread = threading.Thread(target=run, name="fault-server", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def _serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        server = await asyncio.start_server(self._connection, self.host, self.port, backlog=1024)
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        async with server:
            await self._stopping.wait()
            server.close()
            for task in list(self._handlers):  # hung requests and idle keep-alive connections
                task.cancel()
            await asyncio.gather(*self._handlers, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            while await self._exchange(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went away: nothing to answer
        except asyncio.CancelledError:
            pass  # stop(): ending normally spares asyncio's 3.11 streams a spurious traceback
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Read one request and answer it; False when the connection is to be closed."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False  # the client closed an idle keep-alive connection
        request_line, *lines = head.decode("latin-1").rstrip("\r\n").split("\r\n")
        method, path, version = request_line.split(" ", 2)
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        keep_alive = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        fault = self._take_fault(body)
        with self._lock:
            self._received.append(
                Received(
                    method, path, headers, body, time.monotonic(), fault.kind if fault else None
                )
            )
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        try:
            answer = self._answer(method, path, headers, body, fault, reader, writer)
            return await answer and keep_alive
        finally:
            with self._lock:
                self._in_flight -= 1

    def _take_fault(self, body: Any) -> Fault | None:
        text = _prompt_text(body)
        with self._lock:
            for marker, plan in self._plans.items():
                if plan and marker in text:
                    return plan.popleft()
        return None

    async def _answer(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str],
        body: Any,
        fault: Fault | None,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        kind = fault.kind if fault else None
        if fault is not None and fault.kind.isdigit():
            status = int(fault.kind)
            extra = {}
            if status in (429, 503) and fault.retry_after is not None:
                extra["Retry-After"] = fault.retry_after
            message = f"injected {status}"
            if status == 401:  # like OpenAI, echo the key back: clients must not pass it on
                key = headers.get("authorization", "").removeprefix("Bearer ")
                message = f"Incorrect API key provided: {key}"
            error = {"error": {"message": message, "type": "fault", "code": status}}
            await _send(writer, status, json.dumps(error).encode(), extra)
            return True
        if kind == "hang":
            await reader.read()  # until the client closes the connection
            return False
        if kind == "close":
            return False
        if method != "POST":
            await _send(writer, 405, b'{"error": {"message": "POST only"}}')
            return True
        route = {"/v1/chat/completions": "chat", "/v1/completions": "completion"}.get(path)
        if route is None:
            await _send(writer, 404, b'{"error": {"message": "no such route"}}')
            return True
        if not isinstance(body, dict):
            await _send(writer, 400, b'{"error": {"message": "the body must be a JSON object"}}')
            return True
        if self.models is not None and body.get("model") not in self.models:
            message = f"The model `{body.get('model')}` does not exist."
            error = {"error": {"message": message, "type": "NotFoundError", "code": 404}}
            await _send(writer, 404, json.dumps(error).encode())
            return True
        delay = fault.delay if fault is not None and kind == "slow" else self.delay
        if delay > 0:
            await asyncio.sleep(delay)
        if kind == "malformed":
            await _send(writer, 200, b'{"choices": [{"message": ')
            return True
        if kind == "no_choices":
            await _send(writer, 200, b'{"object": "chat.completion", "model": "fault"}')
            return True
        payload = json.dumps(_completion(route, body, self.answers)).encode()
        if kind == "drop":
            head = _head(200, len(payload))
            writer.write(head + payload[: len(payload) // 2])
            await writer.drain()
            return False
        await _send(writer, 200, payload)
        return True


def _prompt_text(body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    messages = body.get("messages")
    if isinstance(messages, list):
        return "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
    return str(body.get("prompt", ""))


def _completion(
    route: str, body: dict[str, Any], answers: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The deterministic answer: the text of the first of `answers` whose marker the prompt
    contains, else a python block echoing what tests need to check routing."""
    if route == "chat":
        messages = body.get("messages") or [{}]
        prompt = str(messages[-1].get("content", ""))
    else:
        prompt = str(body.get("prompt", ""))
    last = prompt.rstrip("\n").rsplit("\n", 1)[-1]
    chosen = [text for marker, text in (answers or {}).items() if marker in _prompt_text(body)]
    text = (
        chosen[0]
        if chosen
        else (
            f"```python\n# route: {route}\n# last: {last}\n# seed: {body.get('seed')}\n"
            f"# temperature: {body.get('temperature')}\nprint({last!r})\n```"
        )
    )
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop"}
    if route == "chat":
        choice["message"] = {"role": "assistant", "content": text}
    else:
        choice["text"] = text
    usage = {
        "prompt_tokens": len(_prompt_text(body).split()),
        "completion_tokens": len(text.split()),
    }
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {"id": "fault", "model": body.get("model"), "choices": [choice], "usage": usage}


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}


def _head(status: int, length: int, extra: Mapping[str, str] | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Fault')}"]
    lines += ["Content-Type: application/json", f"Content-Length: {length}"]
    lines += [f"{name}: {value}" for name, value in (extra or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _send(
    writer: asyncio.StreamWriter, status: int, body: bytes, extra: Mapping[str, str] | None = None
) -> None:
    writer.write(_head(status, len(body), extra) + body)
    await writer.drain()


@contextlib.contextmanager
def spawn_server(*, delay: float = 0.0) -> Iterator[str]:
    """Run the server in a child process for as long as the block lasts; yields its API root
    URL. No scripting or recording in this mode: it is for load, not for faults."""
    command = [sys.executable, str(Path(__file__).resolve()), "--port", "0", "--delay", str(delay)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        if not url:
            raise RuntimeError(f"the fault server did not start (exit {process.wait()})")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description="OpenAI-compatible fault server (answers only)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with FaultServer(host=args.host, port=args.port, delay=args.delay) as server:
        print(server.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while not done.wait(1.0):
                pass


if __name__ == "__main__":
    main()
