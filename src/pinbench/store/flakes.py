"""Which problems are known flaky: `pinbench validate --repeat N` runs each reference N more
times and records here those whose outcomes disagreed; a run re-executes every sample of such
a problem and scores none whose outcomes disagree. One SQLite file beside the results store,
keyed by what decides an outcome (environment, hidden test, reference), not by a dataset's ids.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from pinbench.core.env import EnvSpec
from pinbench.core.paths import cache_root
from pinbench.core.tests import TestSpec

SCHEMA = """
CREATE TABLE IF NOT EXISTS flaky (
    key TEXT PRIMARY KEY,
    item_id TEXT NOT NULL,
    runs INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    recorded REAL NOT NULL
);
"""


def flake_key(env: EnvSpec, test: TestSpec, reference: str) -> str:
    payload = [env.model_dump(mode="json"), test.model_dump(mode="json"), reference]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:24]


class FlakeRegistry:
    """Safe to use from several threads and processes (one connection per call)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_root() / "flaky.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            with db:  # one transaction, committed on leaving
                yield db
        finally:
            db.close()

    def record(self, key: str, item_id: str, runs: int, passed: int) -> None:
        """The outcome of a repeat check: flaky when some runs passed and some did not."""
        with self._connect() as db:
            if 0 < passed < runs:
                db.execute(
                    "INSERT OR REPLACE INTO flaky VALUES (?, ?, ?, ?, ?)",
                    (key, item_id, runs, passed, time.time()),
                )
            else:  # stable now: a fixed problem or environment is no longer flaky
                db.execute("DELETE FROM flaky WHERE key = ?", (key,))

    def flaky(self, keys: list[str]) -> set[str]:
        found: set[str] = set()
        with self._connect() as db:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                rows = db.execute(f"SELECT key FROM flaky WHERE key IN ({marks})", chunk)
                found.update(key for (key,) in rows)
        return found
