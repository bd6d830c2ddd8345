"""Outcome cache: an execution's result, keyed by everything that determines it.

Key = hash of (environment key, program, test, limits, isolation level, a digest of the
grading code): cold and warm runs of one program share it, as they must agree; a change to
the runner or the grader is a new key, so no verdict it would now refuse is served. A
re-validation or re-scoring of unchanged programs is then a lookup. Infrastructure outcomes
(environment or harness errors) are never cached: they say nothing about the program.
Both executors, local and Ray, look up and fill it through `find` and `keep`.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from pinbench.core.outcome import Execution, Limits
from pinbench.core.tests import TestSpec
from pinbench.sandbox.grade import grading_digest

SCHEMA = """
CREATE TABLE IF NOT EXISTS outcomes (
    key TEXT PRIMARY KEY,
    env_key TEXT NOT NULL,
    execution TEXT NOT NULL,
    created_at REAL NOT NULL DEFAULT (julianday('now'))
);
CREATE INDEX IF NOT EXISTS outcomes_env ON outcomes(env_key);
"""


def outcome_key(env_key: str, program: str, test: TestSpec, limits: Limits, isolation: str) -> str:
    parts = {
        "env": env_key,
        "program": hashlib.sha256(program.encode()).hexdigest(),
        "test": hashlib.sha256(test.model_dump_json().encode()).hexdigest(),
        "limits": limits.model_dump(mode="json"),
        "isolation": isolation,
        "grading": grading_digest(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


class OutcomeCache:
    """Thread-safe; one SQLite file in WAL mode, shared by concurrent pinbench processes."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Execution | None:
        """The stored outcome, marked as served from the cache."""
        with self._lock:
            row = self._db.execute(
                "SELECT execution FROM outcomes WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        hit = Execution.model_validate_json(row[0])
        hit.cached = True
        return hit

    def put(self, key: str, env_key: str, execution: Execution) -> None:
        if execution.status.is_infrastructure:
            return
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO outcomes (key, env_key, execution) VALUES (?, ?, ?)",
                (key, env_key, execution.model_dump_json()),
            )

    def find(
        self, env_key: str, program: str, test: TestSpec, limits: Limits, levels: list[str]
    ) -> Execution | None:
        """The outcome recorded for this execution under any of these isolation levels."""
        for level in levels:
            hit = self.get(outcome_key(env_key, program, test, limits, level))
            if hit is not None:
                return hit
        return None

    def keep(
        self,
        env_key: str,
        program: str,
        test: TestSpec,
        limits: Limits,
        level: str,
        execution: Execution,
    ) -> None:
        self.put(outcome_key(env_key, program, test, limits, level), env_key, execution)

    def close(self) -> None:
        with self._lock:
            self._db.close()
