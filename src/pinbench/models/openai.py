"""Any OpenAI-compatible HTTP server (vLLM, TGI, Ollama, llama.cpp's server, hosted APIs) as a
`Model`.

`base_url` is the API root, as for the openai client: `/chat/completions` and `/completions` are
appended to it as given, so it normally ends in `/v1` (`http://127.0.0.1:8000/v1`).

Transient failures (429, 408, 5xx, timeouts, dropped connections, malformed answers) are retried
with exponential backoff and jitter, honouring `Retry-After`; other 4xx answers are final at once.
Either way `generate` never raises for a failed request: it returns a `Generation` whose `error`
is one line (what went wrong, a snippet of the body, how many attempts were made) and whose
`error_kind` names the failure the same way for every request that failed alike (`connection
refused`, `HTTP 401`, `timeout`, ...), so that a run can say once why its requests failed. The
API key (and a password in `base_url`) never appears in either.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import random
import socket
import ssl
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Self

import httpx

from pinbench.models.base import Generation, Mode, ModelError, Request

_SNIPPET_CHARS = 200
_PATHS = {Mode.CHAT: "/chat/completions", Mode.COMPLETION: "/completions"}


@dataclass(frozen=True, slots=True)
class _Failure:
    """Why one attempt got no answer, and whether another attempt may get one."""

    message: str
    retryable: bool
    kind: str
    retry_after: float | None = None


class _Pacer:
    """Client-side rate limit: request starts are spaced at least 1/rate apart (a token bucket
    one token deep), so retries count against a hosted API's quota like any other request."""

    def __init__(self, rate: float) -> None:
        self._interval = 1.0 / rate
        self._next = 0.0

    async def wait(self) -> None:
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self._interval  # reserved before sleeping: no lock needed
        if slot > now:
            await asyncio.sleep(slot - now)


class OpenAICompatible:
    """A client for one model on one OpenAI-compatible server.

    `api_key=None` reads the key from the environment variable `api_key_env`; an empty key (given
    or read) sends no `Authorization` header. `timeout` bounds each attempt as a whole;
    `max_retries` counts attempts after the first. `send_top_k=False` leaves out `top_k`, which
    servers built on vLLM, llama.cpp or TGI accept but some hosted APIs reject.

    At most `concurrency` requests are in flight, each on an httpx client of its own with one
    keep-alive connection, rather than one client with a pool of `concurrency` connections:
    httpx 0.28's pool scans all its connections (quadratically) on every request, which at 64
    connections costs more CPU than the rest of the request. Use within one event loop.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 64,
        max_retries: int = 6,
        timeout: float = 120.0,
        requests_per_second: float | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        send_top_k: bool = True,
        name: str | None = None,
    ) -> None:
        root = base_url.rstrip("/")
        try:
            parsed = httpx.URL(root)
        except httpx.InvalidURL:
            parsed = None
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
            raise ModelError(
                f"base_url must be an http(s) API root such as http://127.0.0.1:8000/v1, "
                f"not {base_url!r}"
            )
        if concurrency < 1 or max_retries < 0 or timeout <= 0:
            raise ModelError("concurrency must be ≥ 1, max_retries ≥ 0 and timeout > 0")
        if requests_per_second is not None and requests_per_second <= 0:
            raise ModelError("requests_per_second must be > 0 (or None for no limit)")
        if backoff_base < 0 or backoff_max < 0:
            raise ModelError("backoff_base and backoff_max must be ≥ 0")
        self.name = name or f"openai:{model}@{root}"
        self.base_url = root
        self.model = model
        self._urls = {mode: root + path for mode, path in _PATHS.items()}
        self._key = os.environ.get(api_key_env, "") if api_key is None else api_key
        self._secrets = [secret for secret in (self._key, parsed.password) if secret]
        self._max_retries = max_retries
        self._timeout = timeout
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._send_top_k = send_top_k
        self._pacer = _Pacer(requests_per_second) if requests_per_second else None
        self._headers = {"Authorization": f"Bearer {self._key}"} if self._key else None
        self._ssl_context = httpx.create_ssl_context()  # ~30 ms to build: one, shared
        self._slots = asyncio.Semaphore(concurrency)
        self._clients: list[httpx.AsyncClient] = []  # every client made, for aclose
        self._idle: list[httpx.AsyncClient] = []  # last in, first out: warm connections first

    def __repr__(self) -> str:
        return f"OpenAICompatible(name={self.name!r})"

    async def generate(self, request: Request) -> Generation:
        """One answer, retried as needed. `seconds` is the wall time of the whole call, queueing
        for a concurrency slot and the waits between attempts included."""
        started = time.perf_counter()
        url = self._urls[request.mode]
        body = self._body(request)
        attempts = 0
        while True:
            attempts += 1
            outcome = await self._attempt(url, body, request.mode)
            if isinstance(outcome, Generation):
                outcome.seconds = time.perf_counter() - started
                outcome.attempts = attempts
                return outcome
            if not outcome.retryable or attempts > self._max_retries:
                plural = "s" * (attempts != 1)
                tail = (
                    f"gave up after {attempts} attempt{plural}"
                    if outcome.retryable
                    else "not retried"
                )
                return Generation(
                    error=self._redact(f"{outcome.message} ({tail})"),
                    error_kind=outcome.kind,
                    seconds=time.perf_counter() - started,
                    attempts=attempts,
                )
            await asyncio.sleep(self._backoff(attempts, outcome.retry_after))

    async def aclose(self) -> None:
        await asyncio.gather(*(client.aclose() for client in self._clients))

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _body(self, request: Request) -> dict[str, Any]:
        s = request.sampling
        body: dict[str, Any] = {
            "model": self.model,
            "temperature": s.temperature,
            "top_p": s.top_p,
            "max_tokens": s.max_tokens,
            "n": 1,
        }
        if self._send_top_k:
            body["top_k"] = s.top_k
        if s.seed is not None:
            body["seed"] = s.seed
        if s.stop:
            body["stop"] = list(s.stop)
        if request.mode is Mode.CHAT:
            body["messages"] = [{"role": m.role, "content": m.content} for m in request.messages]
        else:
            body["prompt"] = request.prompt
        return body

    async def _attempt(self, url: str, body: dict[str, Any], mode: Mode) -> Generation | _Failure:
        """One HTTP request. The slot is held for the request only, not for the backoff after
        it, so a retrying request never keeps others from being sent."""
        async with self._slots:
            client = self._idle.pop() if self._idle else self._new_client()
            try:
                if self._pacer is not None:
                    await self._pacer.wait()
                async with asyncio.timeout(self._timeout):
                    response = await client.post(url, json=body)
            except (TimeoutError, httpx.TimeoutException):
                message = f"no answer within {self._timeout:g}s from POST {url}"
                return _Failure(message, True, "timeout")
            except httpx.RequestError as exc:  # refused, reset, closed mid-answer, bad encoding
                return _request_failure(exc, url)
            finally:
                self._idle.append(client)
        return _read(response, mode)

    def _new_client(self) -> httpx.AsyncClient:
        """A client with a single keep-alive connection, made when concurrency first needs it."""
        client = httpx.AsyncClient(
            headers=self._headers,
            timeout=self._timeout,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            verify=self._ssl_context,
        )
        self._clients.append(client)
        return client

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based): the server's
        `Retry-After` if it gave one, else exponential; jittered so that requests failed together
        do not all come back together; never more than `backoff_max`."""
        if retry_after is not None:
            wait = retry_after * random.uniform(1.0, 1.1)
        else:
            wait = self._backoff_base * 2.0 ** min(attempt - 1, 60) * random.uniform(0.5, 1.0)
        return min(wait, self._backoff_max)

    def _redact(self, message: str) -> str:
        """A server may echo the key back (in a 401 body, say): it never reaches a message."""
        for secret in self._secrets:
            message = message.replace(secret, "***")
        return message


def _request_failure(exc: httpx.RequestError, url: str) -> _Failure:
    """What went wrong before any answer, named by its cause: a refused connection, a host
    that does not resolve and a TLS failure read alike whatever httpx and anyio wrap them in."""
    detail = str(exc) or "no detail"
    if isinstance(exc, httpx.ConnectError):
        cause: BaseException | None = exc
        while cause is not None:
            if isinstance(cause, ConnectionRefusedError):
                return _Failure(f"connection refused: POST {url}", True, "connection refused")
            if isinstance(cause, socket.gaierror):
                host = httpx.URL(url).host
                return _Failure(f"unknown host {host} ({detail}): POST {url}", True, "unknown host")
            if isinstance(cause, ssl.SSLError):
                return _Failure(f"TLS failed ({detail}): POST {url}", True, "TLS failed")
            cause = cause.__cause__ or cause.__context__
        return _Failure(f"cannot connect ({detail}): POST {url}", True, "cannot connect")
    name = type(exc).__name__
    return _Failure(f"{name} ({detail}) from POST {url}", True, name)


def _read(response: httpx.Response, mode: Mode) -> Generation | _Failure:
    where = f"from POST {response.request.url}"
    status = response.status_code
    if not 200 <= status < 300:
        retryable = status in (408, 429) or status >= 500
        retry_after = _retry_after(response.headers.get("retry-after")) if retryable else None
        message = f"HTTP {status} {where}: {_snippet(response.text)}"
        return _Failure(message, retryable, f"HTTP {status}", retry_after)
    try:
        payload = json.loads(response.content)
    except ValueError:  # invalid JSON or not UTF-8
        message = f"malformed answer (not JSON) {where}: {_snippet(response.text)}"
        return _Failure(message, True, "malformed answer")
    answer = _parse(payload, mode)
    if isinstance(answer, str):
        message = f"malformed answer ({answer}) {where}: {_snippet(response.text)}"
        return _Failure(message, True, "malformed answer")
    return answer


def _parse(payload: object, mode: Mode) -> Generation | str:
    """The answer in an OpenAI-shaped payload, or what is wrong with the payload."""
    if not isinstance(payload, dict):
        return "not a JSON object"
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return "no choices"
    choice = choices[0]
    if mode is Mode.CHAT:
        message = choice.get("message")
        if not isinstance(message, dict):
            return "no choices[0].message"
        text = message.get("content")
        text = "" if text is None else text  # e.g. a reasoning model that ran out of tokens
    else:
        text = choice.get("text")
    if not isinstance(text, str):
        return "the answer's text is not a string"
    finish_reason = choice.get("finish_reason")
    usage = payload.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return Generation(
        text=text,
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _retry_after(value: str | None) -> float | None:
    """`Retry-After` in seconds: either delay-seconds or an HTTP-date (RFC 9110 §10.2.3)."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _snippet(text: str) -> str:
    """The start of a body on one line: enough to name the problem, never a whole page."""
    flat = " ".join(text.split())
    if not flat:
        return "(empty body)"
    return flat if len(flat) <= _SNIPPET_CHARS else flat[:_SNIPPET_CHARS] + "…"
