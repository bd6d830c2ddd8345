"""Paged, read-only queries over the store for `pinbench view`. Every answer is bounded (one
page of a listing, one sample, a run's counts): never a whole run. Pages walk the samples in
key order through the `samples_browse` index, so a page deep in a run of 100 000 samples reads
index entries, not programs."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pinbench.core.outcome import NOT_SCORED, Status
from pinbench.core.records import ItemMeta
from pinbench.store.runs import RunRow, RunStore

MAX_LIMIT = 200
DEFAULT_LIMIT = 50
FIELD_CHARS = 50_000  # per text field of one sample: bounds a sample's payload
MESSAGE_CHARS = 240  # a message in a listing: its beginning
_RUN_ID = re.compile(r"[A-Za-z0-9-]{1,64}")  # ids are hex digests; `%` and `_` are LIKE wildcards
_OUTCOMES = {
    "passed": (Status.PASSED,),
    "failed": tuple(s for s in Status if s is not Status.PASSED and s not in NOT_SCORED),
    "unscored": tuple(sorted(NOT_SCORED)),
}

VOCABULARY = {"statuses": [str(s) for s in Status], "outcomes": list(_OUTCOMES)}  # filters


class QueryError(Exception):
    """What the user asked wrongly or asked for what is not there: an HTTP status and a line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def bad_request(message: str) -> QueryError:
    return QueryError(400, message)


def not_found(message: str) -> QueryError:
    return QueryError(404, message)


def integer(params: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    """A query parameter that must be an integer in [low, high]."""
    text = params.get(name)
    if text is None or text == "":
        return default
    if not re.fullmatch(r"-?[0-9]{1,12}", text):
        raise bad_request(f"{name} must be an integer, got {text[:40]!r}")
    value = int(text)
    if not low <= value <= high:
        raise bad_request(f"{name} must be between {low} and {high}, got {value}")
    return value


@dataclass(frozen=True)
class Page:
    offset: int = 0
    limit: int = DEFAULT_LIMIT

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> Page:
        return cls(
            offset=integer(params, "offset", 0, 0, 10**12),
            limit=integer(params, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
        )

    def of(self, total: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {"total": total, "offset": self.offset, "limit": self.limit, "rows": rows}


@dataclass(frozen=True)
class SampleFilter:
    """Which samples a page lists: an exact status, an outcome (passed, failed: scored and not
    passed, unscored: infrastructure or not executed), a problem id substring, a library, a
    round."""

    status: str | None = None
    outcome: str | None = None
    q: str = ""
    library: str | None = None
    round: int | None = None

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> SampleFilter:
        status = params.get("status") or None
        if status is not None and status not in set(Status):
            raise bad_request(f"unknown status {status[:40]!r} ({', '.join(Status)})")
        outcome = params.get("outcome") or None
        if outcome is not None and outcome not in _OUTCOMES:
            raise bad_request(f"unknown outcome {outcome[:40]!r} ({', '.join(_OUTCOMES)})")
        q = params.get("q", "")
        if len(q) > 200:
            raise bad_request("q is longer than 200 characters")
        round_ = integer(params, "round", -1, -1, 10_000)
        return cls(
            status, outcome, q, params.get("library") or None, None if round_ < 0 else round_
        )

    def where(self, run_id: str) -> tuple[str, list[Any]]:
        """The WHERE clause (on `samples`, unaliased) and its arguments."""
        clauses: list[str] = ["run_id = ?"]
        args: list[Any] = [run_id]
        if self.status is not None:
            clauses.append("status = ?")
            args.append(self.status)
        if self.outcome is not None:
            chosen = _OUTCOMES[self.outcome]
            clauses.append(f"status IN ({', '.join('?' * len(chosen))})")
            args.extend(chosen)
        if self.q:
            clauses.append("instr(problem_id, ?) > 0")
            args.append(self.q)
        if self.library is not None:
            clauses.append(
                "problem_id IN (SELECT problem_id FROM problems WHERE run_id = ?"
                " AND json_extract(meta, '$.library') = ?)"
            )
            args.extend([run_id, self.library])
        if self.round is not None:
            clauses.append("round = ?")
            args.append(self.round)
        return " AND ".join(clauses), args


def find_run(store: RunStore, run_id: str) -> RunRow:
    """A run by id, unique prefix or `latest`; 400 for an id that cannot be one, 404 for none."""
    if not _RUN_ID.fullmatch(run_id):
        raise bad_request(f"not a run id: {run_id[:80]!r}")
    run = store.run(run_id)
    if run is None:
        raise not_found(f"no run {run_id!r} (or the prefix names several)")
    return run


def config_int(run: RunRow, name: str, default: int) -> int:
    value = run.config.get(name, default)
    return value if isinstance(value, int) else default


def runs_page(store: RunStore, page: Page) -> dict[str, Any]:
    """The runs, most recently updated first, with their headline scores."""
    db = store.connection
    (total,) = db.execute("SELECT COUNT(*) FROM runs").fetchone()
    ids = [
        row[0]
        for row in db.execute(
            "SELECT id FROM runs ORDER BY updated DESC LIMIT ? OFFSET ?",
            (page.limit, page.offset),
        )
    ]
    rows = []
    for run_id in ids:
        run = store.run(run_id)
        if run is not None:
            rows.append(run_headline(run))
    return page.of(total, rows)


def run_headline(run: RunRow) -> dict[str, Any]:
    config = run.config
    scores = (run.summary or {}).get("scores") or {}
    rounds = scores.get("rounds") or []
    return {
        "id": run.id,
        "model_name": run.model_name,
        "model": config.get("model"),
        "status": run.status,
        "created": run.created,
        "updated": run.updated,
        "task": config.get("task", "generation"),
        "dataset": config.get("dataset"),
        "split": config.get("split"),
        "n": config.get("n"),
        "seeds": config.get("seeds"),
        "feedback_rounds": config.get("feedback_rounds", 0),
        "problems": scores.get("problems"),
        "samples": scores.get("samples"),
        "pass_at_1": _pass_at_1(rounds[0]) if rounds else None,
        "pass_at_1_feedback": _pass_at_1(rounds[-1]) if len(rounds) > 1 else None,
    }


def _pass_at_1(round_score: dict[str, Any]) -> float | None:
    for entry in round_score.get("pass_at") or []:
        if entry.get("k") == 1:
            value = entry.get("mean")
            return value if isinstance(value, float | int) else None
    return None


def progress(store: RunStore, run: RunRow) -> dict[str, Any]:
    """What a live page polls: samples recorded so far (round 0 chains and every round's
    record), passed at round 0, and the total the run will reach when its problems are known."""
    db = store.connection
    records, chains, passed = db.execute(
        "SELECT COUNT(*), COALESCE(SUM(round = 0), 0),"
        " COALESCE(SUM(round = 0 AND status = 'passed'), 0) FROM samples WHERE run_id = ?",
        (run.id,),
    ).fetchone()
    (problems,) = db.execute("SELECT COUNT(*) FROM problems WHERE run_id = ?", (run.id,)).fetchone()
    expected = problems * config_int(run, "n", 1) * config_int(run, "seeds", 1) or None
    return {
        "id": run.id,
        "status": run.status,
        "updated": run.updated,
        "records": records,
        "samples": chains,
        "passed": passed,
        "expected": expected,
    }


_LISTED = (
    "problem_id", "seed", "sample", "round", "status", "visible_status", "exc_type", "compiles",
    "seconds",
)  # fmt: skip


def samples_page(store: RunStore, run: RunRow, where: SampleFilter, page: Page) -> dict[str, Any]:
    """One page of samples in key order, and how many match. The page's keys come from the
    index alone; only those rows are then read."""
    clause, args = where.where(run.id)
    db = store.connection
    (total,) = db.execute(f"SELECT COUNT(*) FROM samples WHERE {clause}", args).fetchone()
    columns = ", ".join(f"s.{name}" for name in _LISTED)
    cursor = db.execute(
        f"SELECT {columns}, substr(s.message, 1, ?), json_extract(p.meta, '$.library')"
        " FROM (SELECT rowid AS id FROM samples WHERE "
        f"{clause} ORDER BY problem_id, seed, sample, round LIMIT ? OFFSET ?) AS k"
        " JOIN samples s ON s.rowid = k.id"
        " LEFT JOIN problems p ON p.run_id = s.run_id AND p.problem_id = s.problem_id"
        " ORDER BY s.problem_id, s.seed, s.sample, s.round",
        [MESSAGE_CHARS, *args, page.limit, page.offset],
    )
    rows = []
    for row in cursor:
        values = dict(zip(_LISTED, row, strict=False))
        values["compiles"] = bool(values["compiles"])
        message = row[len(_LISTED)] or ""
        values["message"] = message.splitlines()[0] if message.strip() else ""
        values["library"] = row[len(_LISTED) + 1] or ""
        rows.append(values)
    return page.of(total, rows)


def sample_detail(
    store: RunStore, run: RunRow, problem_id: str, seed: int, sample: int
) -> dict[str, Any]:
    """Every round of one sample: its prompt, the model's answer, the program and its diff to
    the previous round's, status, message and feedback; and the item's problem and tests."""
    cursor = store.connection.execute(
        "SELECT s.round, s.status, s.visible_status, s.exc_type, s.compiles, s.message,"
        " s.feedback, s.program, s.seconds, s.env_key, s.deadline, s.metrics,"
        " s.generation_key, g.request, g.text, g.finish_reason, s.deprecations"
        " FROM samples s LEFT JOIN generations g ON g.key = s.generation_key"
        " WHERE s.run_id = ? AND s.problem_id = ? AND s.seed = ? AND s.sample = ?"
        " ORDER BY s.round",
        (run.id, problem_id, seed, sample),
    )
    rounds: list[dict[str, Any]] = []
    previous: str | None = None
    for row in cursor:
        (
            round_, status, visible, exc_type, compiles, message, feedback, program,
            seconds, env_key, deadline, metrics, key, request, response, finish, deprecations,
        ) = row  # fmt: skip
        rounds.append(
            {
                "round": round_,
                "status": status,
                "visible_status": visible,
                "exc_type": exc_type,
                "compiles": bool(compiles),
                "message": clip(message),
                "feedback": clip(feedback),
                "program": clip(program),
                "diff": None if previous is None else clip(program_diff(previous, program)),
                "seconds": seconds,
                "env_key": env_key,
                "deadline": deadline,
                "metrics": json.loads(metrics or "{}"),
                "generation_key": key,
                "prompt": prompt_messages(request),
                "response": None if response is None else clip(response),
                "finish_reason": finish,
                "deprecations": json.loads(deprecations) if deprecations else None,
            }
        )
        previous = program
    if not rounds:
        raise not_found(f"no sample {problem_id!r} seed {seed} sample {sample} in run {run.id}")
    meta = store.connection.execute(
        "SELECT meta FROM problems WHERE run_id = ? AND problem_id = ?", (run.id, problem_id)
    ).fetchone()
    item = None
    if meta is not None:
        parsed = ItemMeta.model_validate_json(meta[0]).model_dump(mode="json")
        item = {k: clip(v) if isinstance(v, str) else v for k, v in parsed.items()}
    return {
        "run_id": run.id,
        "problem_id": problem_id,
        "seed": seed,
        "sample": sample,
        "item": item,
        "rounds": rounds,
    }


def program_diff(before: str, after: str) -> str:
    """A unified diff of one round's program against the previous round's."""
    lines = difflib.unified_diff(
        clip(before).splitlines(),
        clip(after).splitlines(),
        "previous round",
        "this round",
        lineterm="",
    )
    return "\n".join(lines)


def prompt_messages(request: str | None) -> list[dict[str, str]] | None:
    """The prompt as (role, content) messages; a completion prompt is one `prompt` message."""
    if request is None:
        return None
    data = json.loads(request)
    messages = data.get("messages") or []
    if messages:
        return [
            {"role": str(m.get("role", "")), "content": clip(str(m.get("content", "")))}
            for m in messages
        ]
    return [{"role": "prompt", "content": clip(str(data.get("prompt", "")))}]


def clip(text: str | None) -> str:
    text = text or ""
    if len(text) <= FIELD_CHARS:
        return text
    return text[:FIELD_CHARS] + f"\n[… {len(text) - FIELD_CHARS} more characters not shown]"
