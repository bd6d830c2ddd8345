"""`pinbench view`'s HTTP server: the standard library's threading server, GET only, bound to
loopback by default; a JSON API of bounded pages over the store (each request reads through its
own read-only SQLite connection, so it reads while a run writes) and one static page.

Everything from the store is data: the API sends it as JSON, the page sets it as text. The
page runs under a strict Content-Security-Policy (its own script only), and a request naming
any host but this machine is refused (DNS rebinding)."""

from __future__ import annotations

import contextlib
import json
import math
import socket
import sqlite3
import sys
import threading
import traceback
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

from pinbench.store.runs import RunRow, RunStore
from pinbench.view import compare as comparing
from pinbench.view import queries, tallies
from pinbench.view.queries import Page, QueryError, SampleFilter, bad_request, not_found

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'none'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
_STATIC = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "[::1]"})
_CACHED = 64  # computed results kept (a run's tallies, plots, comparisons), least recent out


class _Cache:
    """Computed results keyed by what they depend on (a run's id, status and update time, or
    its sample count while it runs): a finished run is computed once."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()
        with self._lock:
            self._items[key] = value
            while len(self._items) > _CACHED:
                self._items.popitem(last=False)
        return value


class Viewer:
    """The API over one store: a route's path segments and query parameters to a JSON-able
    answer, or a `QueryError`."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self._cache = _Cache()
        self._drawing = threading.Lock()  # matplotlib's pyplot is not thread-safe

    def answer(self, parts: list[str], params: Mapping[str, str]) -> Any:
        if parts[:1] == ["compare"] and len(parts) == 3:
            return self._compare(parts[1], parts[2], params)
        if parts[:1] != ["runs"]:
            raise not_found("no such API route")
        if len(parts) == 1:
            with self._open() as store:
                return queries.runs_page(store, Page.parse(params))
        with self._open() as store:
            run = queries.find_run(store, parts[1])
            rest = parts[2:]
            if not rest:
                return self._run(store, run)
            if rest == ["progress"]:
                return queries.progress(store, run)
            if rest == ["samples"]:
                where, page = SampleFilter.parse(params), Page.parse(params)
                return queries.samples_page(store, run, where, page)
            if rest[0] == "samples" and len(rest) == 4:
                seed, sample = _number(rest[2], "seed"), _number(rest[3], "sample")
                return queries.sample_detail(store, run, rest[1], seed, sample)
        raise not_found("no such API route")

    def plot(self, run_id: str, name: str) -> str:
        if not name.endswith(".svg") or not name[:-4].isdigit() or len(name) > 10:
            raise not_found("no such plot")
        index = int(name[:-4])
        with self._open() as store:
            run = queries.find_run(store, run_id)
            counted = self._tallies(store, run)
        key = ("plot", *self._version(run, counted), index)

        def draw() -> str | None:
            with self._drawing:
                return tallies.plot(counted, index)

        svg: str | None = self._cache.get(key, draw)
        if svg is None:
            raise not_found(f"run {run.id} has no plot {index}")
        return svg

    def _run(self, store: RunStore, run: RunRow) -> dict[str, Any]:
        counted = self._tallies(store, run)
        version = self._version(run, counted)
        overview = self._cache.get(
            ("overview", *version),
            lambda: {
                **tallies.overview(counted),
                "progress": queries.progress(store, run),
                "requests": store.request_counts(run.id),
            },
        )
        if run.status == "running":  # records of later rounds change no tally
            overview = {**overview, "progress": queries.progress(store, run)}
        summary = dict(run.summary or {})
        summary.pop("config", None)  # the run's config is sent once, below
        return {
            "run": {
                **queries.run_headline(run),
                "config": run.config,
                "versions": run.versions,
                "machine": run.machine,
            },
            "summary": summary or None,
            "vocabulary": queries.VOCABULARY,
            **overview,
        }

    def _tallies(self, store: RunStore, run: RunRow) -> tallies.Tallies:
        if run.status == "running":  # changes with every sample: never cached
            return tallies.tally(store, run)
        key = ("tallies", run.id, run.updated, run.status)
        counted: tallies.Tallies = self._cache.get(key, lambda: tallies.tally(store, run))
        return counted

    @staticmethod
    def _version(run: RunRow, counted: tallies.Tallies) -> tuple[Any, ...]:
        """What a run's computed results depend on: while it runs, what it has recorded."""
        if run.status != "running":
            return (run.id, run.updated, run.status)
        scored = sum(n for n, _ in counted.base.values())
        return (run.id, run.updated, run.status, scored, tuple(sorted(counted.statuses.items())))

    def _compare(self, a: str, b: str, params: Mapping[str, str]) -> dict[str, Any]:
        sort = params.get("sort") or "id"
        if sort not in comparing.SORTS:
            raise bad_request(f"sort must be one of {', '.join(comparing.SORTS)}")
        q, page = params.get("q", "")[:200], Page.parse(params)
        with self._open() as store:
            run_a, run_b = queries.find_run(store, a), queries.find_run(store, b)
            ta, tb = self._tallies(store, run_a), self._tallies(store, run_b)
        key = ("compare", *self._version(run_a, ta), *self._version(run_b, tb))
        compared: comparing.Compared = self._cache.get(
            key, lambda: comparing.comparison(run_a, run_b, ta, tb)
        )
        return comparing.compare_page(compared, q, sort, page)

    def _open(self) -> RunStore:
        if not self.store.is_file():
            raise QueryError(503, f"no results store at {self.store} yet")
        return RunStore.reader(self.store)


def _number(text: str, name: str) -> int:
    if not text.isdigit() or len(text) > 12:
        raise bad_request(f"{name} must be a non-negative integer, got {text[:40]!r}")
    return int(text)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "pinbench-view"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart

    def do_GET(self) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the browser left
            self._get()

    def _get(self) -> None:
        if not self._host_allowed():
            self._json(HTTPStatus.FORBIDDEN, {"error": "this server answers only to localhost"})
            return
        try:
            split = urllib.parse.urlsplit(self.path)
            parts = [urllib.parse.unquote(p, errors="strict") for p in split.path.split("/") if p]
            params = dict(urllib.parse.parse_qsl(split.query, max_num_fields=50, errors="strict"))
        except (ValueError, UnicodeDecodeError):
            self._json(HTTPStatus.BAD_REQUEST, {"error": "malformed URL"})
            return
        try:
            self._route(parts, params)
        except QueryError as exc:
            self._json(exc.status, {"error": exc.message})
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            status = HTTPStatus.SERVICE_UNAVAILABLE if busy else HTTPStatus.INTERNAL_SERVER_ERROR
            self._json(status, {"error": f"the store could not be read: {exc}"})
        except Exception:  # a bug: its traceback goes to the server's stderr, not the page
            traceback.print_exc(file=sys.stderr)
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "internal error (see log)"})

    def _route(self, parts: list[str], params: dict[str, str]) -> None:
        viewer = self.server.viewer
        if not parts:
            self._static("index.html")
        elif parts == ["favicon.ico"]:
            self._send(HTTPStatus.NO_CONTENT, b"", "text/plain")
        elif parts[0] == "static" and len(parts) == 2 and parts[1] in _STATIC:
            self._static(parts[1])
        elif parts[:2] == ["api", "runs"] and len(parts) == 5 and parts[3] == "plots":
            svg = viewer.plot(parts[2], parts[4])
            self._send(HTTPStatus.OK, svg.encode(), "image/svg+xml; charset=utf-8")
        elif parts[0] == "api":
            self._json(HTTPStatus.OK, viewer.answer(parts[1:], params))
        else:
            raise not_found("no such page (the app lives at /)")

    def _static(self, name: str) -> None:
        body = (resources.files("pinbench.view") / "static" / name).read_bytes()
        self._send(HTTPStatus.OK, body, _STATIC[name])

    def _host_allowed(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        name = host[: host.index("]") + 1] if host.startswith("[") and "]" in host else host
        name = name if name.startswith("[") else name.split(":", 1)[0]
        return name in self.server.hosts

    def _json(self, status: int, value: Any) -> None:
        body = json.dumps(_finite(value), separators=(",", ":"), allow_nan=False).encode()
        self._send(status, body, "application/json; charset=utf-8")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD" and status != HTTPStatus.NO_CONTENT:
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's errors (bad request lines, other methods) as JSON too."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # an unparsable request line: answer in 1.0
            self.request_version = "HTTP/1.0"
        text = message or HTTPStatus(code).phrase
        if code == HTTPStatus.NOT_IMPLEMENTED:  # a method other than GET
            code, text = HTTPStatus.METHOD_NOT_ALLOWED, "only GET is served"
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._json(code, {"error": text})

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: `run --view` shares the terminal with the run."""


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: those become null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    viewer: Viewer
    hosts: frozenset[str]


class _Server6(_Server):
    address_family = socket.AF_INET6


class ViewServer:
    """The server over a store's file, bound at construction (port 0: a free one); `start` serves
    from a daemon thread, `serve_forever` from this one. Other hosts than loopback answer only
    when bound to them by name (`--host`)."""

    def __init__(self, store: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        self.store = store
        bare = host.strip("[]")
        kind = _Server6 if ":" in bare else _Server
        self._server = kind((bare, port), _Handler)
        self._server.viewer = Viewer(store)
        named = f"[{bare}]" if ":" in bare else bare.lower()
        wildcard = bare in ("", "0.0.0.0", "::")
        self._server.hosts = _LOOPBACK if wildcard else _LOOPBACK | {named}
        self.host = "127.0.0.1" if wildcard else named
        self.port: int = self._server.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> ViewServer:
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="pinbench-view", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def __enter__(self) -> ViewServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
