"""The results store: one SQLite file (WAL) holding runs, the generation cache, every request
made, and every sample's outcome. Rows are committed as they arrive, so a run killed at any
moment resumes from exactly what was recorded."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from pinbench.core.outcome import Status
from pinbench.core.paths import cache_root
from pinbench.core.records import ItemMeta, SampleRecord
from pinbench.models.base import Generation, Request

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    config TEXT NOT NULL,
    model_name TEXT NOT NULL DEFAULT '',
    versions TEXT NOT NULL DEFAULT '{}',
    machine TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL,
    summary TEXT
);
CREATE TABLE IF NOT EXISTS generations (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    seconds REAL NOT NULL,
    attempts INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    run_id TEXT NOT NULL,
    generation_key TEXT NOT NULL,
    problem_id TEXT NOT NULL,
    sample INTEGER NOT NULL,
    round INTEGER NOT NULL,
    cached INTEGER NOT NULL,
    error TEXT,
    seconds REAL NOT NULL,
    attempts INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS requests_run ON requests(run_id);
CREATE TABLE IF NOT EXISTS problems (
    run_id TEXT NOT NULL,
    problem_id TEXT NOT NULL,
    meta TEXT NOT NULL,
    PRIMARY KEY (run_id, problem_id)
);
CREATE TABLE IF NOT EXISTS drift (
    run_id TEXT PRIMARY KEY,
    summary TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    run_id TEXT NOT NULL,
    problem_id TEXT NOT NULL,
    seed INTEGER NOT NULL,
    sample INTEGER NOT NULL,
    round INTEGER NOT NULL,
    generation_key TEXT,
    program TEXT NOT NULL,
    compiles INTEGER NOT NULL,
    status TEXT NOT NULL,
    visible_status TEXT,
    exc_type TEXT,
    message TEXT NOT NULL,
    feedback TEXT NOT NULL,
    env_key TEXT,
    deadline REAL,
    seconds REAL NOT NULL,
    metrics TEXT NOT NULL DEFAULT '{}',
    deprecations TEXT,
    reruns TEXT NOT NULL DEFAULT '[]',
    created REAL NOT NULL,
    PRIMARY KEY (run_id, problem_id, seed, sample, round)
);
-- `pinbench view`: pages of samples in key order filtered by status, and a run's tallies, read
-- from this index alone (never the rows' programs and messages)
CREATE INDEX IF NOT EXISTS samples_browse
    ON samples(run_id, problem_id, seed, sample, round, status, exc_type);
"""


class RunRow(BaseModel):
    id: str
    created: float
    updated: float
    config: dict[str, Any]
    model_name: str
    versions: dict[str, Any] = Field(default_factory=dict)
    machine: dict[str, Any] = Field(default_factory=dict)
    status: str
    summary: dict[str, Any] | None = None


class RunStore:
    """Used from one thread (the runner's event loop); other processes may read concurrently."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL survives kill -9
        self._db.executescript(SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(samples)")}
        if "metrics" not in columns:  # stores written before string metrics existed
            self._db.execute("ALTER TABLE samples ADD COLUMN metrics TEXT NOT NULL DEFAULT '{}'")
        if "deprecations" not in columns:  # ... and before deprecation capture
            self._db.execute("ALTER TABLE samples ADD COLUMN deprecations TEXT")
        if "reruns" not in columns:  # ... and before flaky problems were re-executed
            self._db.execute("ALTER TABLE samples ADD COLUMN reruns TEXT NOT NULL DEFAULT '[]'")

    @classmethod
    def reader(cls, path: Path) -> RunStore:
        """A read-only store over its own connection, changing nothing (no schema, no
        migration): `pinbench view` opens one per request while a run may be writing."""
        store = cls.__new__(cls)
        store.path = path
        uri = f"{path.resolve().as_uri()}?mode=ro"
        store._db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
        return store

    @property
    def connection(self) -> sqlite3.Connection:
        """For readers' own queries (`pinbench.view.queries`)."""
        return self._db

    @classmethod
    def at(cls, results: Path | None) -> RunStore:
        """The store of a results directory ($PINBENCH_HOME/results unless told)."""
        return cls(cls.path_at(results))

    @staticmethod
    def path_at(results: Path | None) -> Path:
        """Where `at` keeps a results directory's store, without opening (or creating) it."""
        return (results or cache_root() / "results") / "pinbench.sqlite"

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # runs

    def start_run(self, run_id: str, config: dict[str, Any], **meta: Any) -> bool:
        """Record a run; True when it is new, False when resuming one already recorded."""
        now = time.time()
        existing = self._db.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone()
        if existing:
            self._db.execute(
                "UPDATE runs SET status = 'running', updated = ? WHERE id = ?", (now, run_id)
            )
            return False
        self._db.execute(
            "INSERT INTO runs (id, created, updated, config, model_name, versions, machine,"
            " status) VALUES (?, ?, ?, ?, ?, ?, ?, 'running')",
            (
                run_id,
                now,
                now,
                json.dumps(config),
                meta.get("model_name", ""),
                json.dumps(meta.get("versions", {})),
                json.dumps(meta.get("machine", {})),
            ),
        )
        return True

    def finish_run(self, run_id: str, status: str, summary: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE runs SET status = ?, summary = ?, updated = ? WHERE id = ?",
            (status, json.dumps(summary), time.time(), run_id),
        )

    def runs(self) -> list[RunRow]:
        rows = self._db.execute("SELECT * FROM runs ORDER BY created").fetchall()
        return [_run_row(r) for r in rows]

    def run(self, run_id: str) -> RunRow | None:
        """A run by id, unique id prefix, or `latest`."""
        args: tuple[str, ...] = ()
        if run_id == "latest":
            query = "SELECT * FROM runs ORDER BY updated DESC LIMIT 2"
        else:
            query, args = "SELECT * FROM runs WHERE id LIKE ? || '%' LIMIT 2", (run_id,)
        rows = self._db.execute(query, args).fetchall()
        if not rows or (len(rows) > 1 and run_id != "latest" and rows[0][0] != run_id):
            return None
        return _run_row(rows[0])

    # problems

    def record_problems(self, run_id: str, problems: list[ItemMeta]) -> None:
        with self._transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO problems VALUES (?, ?, ?)",
                [(run_id, p.id, p.model_dump_json()) for p in problems],
            )

    def problems(self, run_id: str) -> dict[str, ItemMeta]:
        rows = self._db.execute("SELECT meta FROM problems WHERE run_id = ?", (run_id,))
        metas = (ItemMeta.model_validate_json(meta) for (meta,) in rows)
        return {m.id: m for m in metas}

    def prompts(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """generation key -> the request (prompt) that produced it."""
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT key, request FROM generations WHERE key IN ({marks})"
            for key, request in self._db.execute(query, chunk):
                found[key] = json.loads(request)
        return found

    # version confusion (`pinbench drift`)

    def record_drift(self, run_id: str, summary: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO drift VALUES (?, ?)", (run_id, json.dumps(summary))
        )

    def drift(self, run_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT summary FROM drift WHERE run_id = ?", (run_id,)).fetchone()
        return json.loads(row[0]) if row else None

    # generations (a cache shared by all runs)

    def generation(self, key: str) -> Generation | None:
        row = self._db.execute(
            "SELECT text, finish_reason, prompt_tokens, completion_tokens, seconds, attempts"
            " FROM generations WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        text, finish, prompt_tokens, completion_tokens, seconds, attempts = row
        return Generation(
            text=text,
            finish_reason=finish,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            seconds=seconds,
            attempts=attempts,
        )

    def record_generation(
        self, run_id: str, key: str, model: str, request: Request, gen: Generation, cached: bool
    ) -> None:
        """Every request is logged; only answers (not failures) enter the cache, so a resumed
        run asks again what failed before."""
        now = time.time()
        with self._transaction():
            if not cached and gen.error is None:
                self._db.execute(
                    "INSERT OR IGNORE INTO generations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        key,
                        model,
                        request.model_dump_json(),
                        gen.text,
                        gen.finish_reason,
                        gen.prompt_tokens,
                        gen.completion_tokens,
                        gen.seconds,
                        gen.attempts,
                        now,
                    ),
                )
            self._db.execute(
                "INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    key,
                    request.problem_id,
                    request.sample,
                    request.round,
                    int(cached),
                    gen.error,
                    0.0 if cached else gen.seconds,
                    0 if cached else gen.attempts,
                    now,
                ),
            )

    def request_counts(self, run_id: str) -> dict[str, int]:
        row = self._db.execute(
            "SELECT COUNT(*), SUM(cached), SUM(error IS NOT NULL), SUM(attempts)"
            " FROM requests WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        total, cached, errors, attempts = (int(v or 0) for v in row)
        return {"requests": total, "cached": cached, "errors": errors, "attempts": attempts}

    # samples

    def record_sample(self, run_id: str, record: SampleRecord) -> None:
        values = record.model_dump()
        values["compiles"] = int(record.compiles)
        values["metrics"] = json.dumps(record.metrics)
        if record.deprecations is not None:
            values["deprecations"] = record.deprecations.model_dump_json()
        values["reruns"] = json.dumps([status.value for status in record.reruns])
        columns = ", ".join(["run_id", *values])
        marks = ", ".join("?" * (len(values) + 2))
        self._db.execute(
            f"INSERT OR REPLACE INTO samples ({columns}, created) VALUES ({marks})",
            (run_id, *values.values(), time.time()),
        )

    def samples(self, run_id: str) -> list[SampleRecord]:
        return list(self.iter_samples(run_id))

    def iter_samples(self, run_id: str) -> Iterator[SampleRecord]:
        fields = list(SampleRecord.model_fields)
        cursor = self._db.execute(
            f"SELECT {', '.join(fields)} FROM samples WHERE run_id = ?"
            " ORDER BY problem_id, seed, sample, round",
            (run_id,),
        )
        for row in cursor:
            values = dict(zip(fields, row, strict=True))
            values["compiles"] = bool(values["compiles"])
            values["metrics"] = json.loads(values["metrics"])
            if values["deprecations"] is not None:
                values["deprecations"] = json.loads(values["deprecations"])
            values["reruns"] = json.loads(values["reruns"])
            yield SampleRecord.model_validate(values)

    def export_rows(self, run_id: str) -> Iterator[dict[str, Any]]:
        """Samples joined with their prompt and raw response: what `runs export` writes, and
        what `replay:` reads back."""
        cursor = self._db.execute(
            "SELECT s.problem_id, s.seed, s.sample, s.round, s.status, s.visible_status,"
            " s.exc_type, s.message, s.compiles, s.program, g.text, g.request, s.env_key,"
            " s.deadline FROM samples s LEFT JOIN generations g ON g.key = s.generation_key"
            " WHERE s.run_id = ? ORDER BY s.problem_id, s.seed, s.sample, s.round",
            (run_id,),
        )
        names = (
            *("problem_id", "seed", "sample", "round", "status", "visible_status", "exc_type"),
            *("message", "compiles", "program", "response", "request", "env_key", "deadline"),
        )
        for row in cursor:
            values = dict(zip(names, row, strict=True))
            values["passed"] = values["status"] == Status.PASSED
            values["compiles"] = bool(values["compiles"])
            values["request"] = json.loads(values["request"]) if values["request"] else None
            yield values

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """BEGIN/COMMIT around a group of statements (the connection is in autocommit mode)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN")

    def __exit__(self, kind: object, *_: object) -> None:
        self._db.execute("ROLLBACK" if kind else "COMMIT")


def _run_row(row: tuple[Any, ...]) -> RunRow:
    keys = ("id", "created", "updated", "config", "model_name", "versions", "machine")
    values = dict(zip((*keys, "status", "summary"), row, strict=True))
    for key in ("config", "versions", "machine", "summary"):
        values[key] = json.loads(values[key]) if values[key] else None
    values["versions"] = values["versions"] or {}
    values["machine"] = values["machine"] or {}
    return RunRow.model_validate(values)
