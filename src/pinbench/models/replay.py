"""`replay:PATH` re-scores generations saved in files, so published outputs can be scored
without a model: pinbench's own export, GitChameleon `{example_id, answer}` rows, per-model
result files (JSONL, a JSON list, or a JSON object of id -> answer(s)), and VersiCode's result
files as published (`{"data": [...]}` or a bare list).

A row names its problem (`problem_id`, `example_id`, `task_id` or `id`) and carries the text
(`response`, `answer`, `completion`, `generation`, `output`, `code`, `program`; a list of them
means several samples); `sample` and `round` are optional (rows of one problem without a
sample index are its samples in file order).

VersiCode's result files are its dataset items with the model's samples added in
`model_output`: a JSON list of strings, or (as their scripts write it) the text of a Python
list, read with `ast.literal_eval` and nothing else; element i is sample i. Their `answer` is
the gold answer, so in a file where any row is a VersiCode item (`model_output`, `masked_code`
or `old_code`) `model_output` is the only field read as the reply, and rows without one have
no answer. An item without an `id` is named as VersiCode's loader names it, `<file
stem>_<index>`."""

from __future__ import annotations

import ast
import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from pinbench.core.datasets import DatasetError, located_items
from pinbench.models.base import Generation, ModelError, Request

ID_FIELDS = ("problem_id", "example_id", "task_id", "id")
TEXT_FIELDS = ("response", "answer", "completion", "generation", "output", "code", "program")
OUTPUT_FIELD = "model_output"  # VersiCode's result files; their `answer` is the gold answer
_PREFIXES = ("gc1-", "gc2-")  # pinbench's ids for GitChameleon rows; files use the bare id


class ReplayModel:
    def __init__(self, path: Path, ids: list[str]) -> None:
        self.path = path
        self._answers = read_answers(path, ids)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.is_file() else ""
        self.name = f"replay:{path.name}@{digest}"

    async def generate(self, request: Request) -> Generation:
        key = (request.problem_id, request.sample, request.round)
        text = self._answers.get(key)
        if text is None:
            where = f"sample {request.sample}, round {request.round}"
            return Generation(error=f"{self.path}: no answer for {request.problem_id} ({where})")
        return Generation(text=text, finish_reason="replay")

    async def aclose(self) -> None:
        return None

    def problems_answered(self) -> set[str]:
        return {problem for problem, _, _ in self._answers}


def read_answers(path: Path, ids: list[str]) -> dict[tuple[str, int, int], str]:
    """(problem id, sample, round) -> text; rows naming unknown problems are skipped, a file
    with none that match is an error (probably the wrong dataset)."""
    if not path.is_file():
        raise ModelError(f"replay file {path} does not exist")
    resolve = _id_resolver(ids)
    answers: dict[tuple[str, int, int], str] = {}
    next_sample: dict[tuple[str, int], int] = defaultdict(int)
    rows = _rows(path)
    versicode = any(_is_versicode_row(row) for _, row in rows)
    for where, row in rows:
        problem_id = resolve(row)
        texts = _outputs(row, where) if versicode else _texts(row, where)
        if problem_id is None or texts is None:
            continue
        round_ = _int(row.get("round"), where, "round")
        request = row.get("request")  # pinbench's export: the request's own sample index
        sample = request.get("sample") if isinstance(request, dict) else None
        if sample is None:
            sample = row.get("sample", row.get("sample_index"))
        start = _int(sample, where, "sample")
        if start is None:
            start = next_sample[(problem_id, round_ or 0)]
        for offset, text in enumerate(texts):
            answers[(problem_id, start + offset, round_ or 0)] = text
        next_sample[(problem_id, round_ or 0)] = start + len(texts)
    if versicode and not any(row.get(OUTPUT_FIELD) is not None for _, row in rows):
        raise ModelError(f"{path}: VersiCode items without model outputs (no {OUTPUT_FIELD})")
    if rows and not answers:
        raise ModelError(f"{path}: no row names a problem of this dataset")
    return answers


def _rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    text = path.read_text(encoding="utf-8-sig")
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if stripped.startswith("[") or "\n{" not in stripped:
                raise ModelError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
            return _jsonl_rows(path, text)  # one object a line
        if isinstance(data, dict) and _is_versicode_document(data):
            return _list_rows(path, data["data"])
        if isinstance(data, list):
            return _list_rows(path, data)
        if isinstance(data, dict) and not any(f in data for f in ID_FIELDS):
            return [(f"{path}: key {k}", {"id": k, "answer": v}) for k, v in data.items()]
        return [(str(path), _as_row(data, str(path)))]
    return _jsonl_rows(path, text)


def _jsonl_rows(path: Path, text: str) -> list[tuple[str, dict[str, Any]]]:
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            rows.append((where, _as_row(json.loads(line), where)))
        except json.JSONDecodeError as exc:
            raise ModelError(f"{where}: not valid JSON: {exc.msg}") from None
    return rows


def _is_versicode_document(data: dict[str, Any]) -> bool:
    """`{"data": [item, ...]}` (VersiCode's files, `count` beside it), not id -> answers."""
    items = data.get("data")
    if not isinstance(items, list) or any(f in data for f in ID_FIELDS):
        return False
    return not items or any(isinstance(item, dict) for item in items)


def _list_rows(path: Path, items: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a JSON list (the document or its `data`), located by line and item."""
    try:
        lines = [line for line, _ in located_items(path)[0]]
    except DatasetError:  # cannot happen for a document json.loads read; lines are a courtesy
        lines = []
    rows = []
    for index, item in enumerate(items):
        where = (
            f"{path}:{lines[index]}: item {index}"
            if index < len(lines)
            else f"{path}: item {index}"
        )
        row = _as_row(item, where)
        if _is_versicode_row(row) and not any(f in row for f in ID_FIELDS if f != "id"):
            # named as VersiCode's loader names it: the `id` stripped, else stem and index
            item_id = str(row.get("id") or "").strip() or f"{path.stem}_{index}"
            row = {**row, "id": item_id}
        rows.append((where, row))
    return rows


def _as_row(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ModelError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _id_resolver(ids: list[str]) -> Any:
    known: dict[str, str] = {}
    for item_id in ids:
        known[item_id] = item_id
        for prefix in _PREFIXES:
            if item_id.startswith(prefix):
                known.setdefault(item_id.removeprefix(prefix), item_id)

    def resolve(row: dict[str, Any]) -> str | None:
        for field in ID_FIELDS:
            if field in row and row[field] is not None:
                return known.get(str(row[field]))
        return None

    return resolve


def _texts(row: dict[str, Any], where: str) -> list[str] | None:
    for field in TEXT_FIELDS:
        value = row.get(field)
        if isinstance(value, str):
            return [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
    if any(field in row for field in TEXT_FIELDS):
        raise ModelError(f"{where}: the answer is neither text nor a list of texts")
    return None


def _is_versicode_row(row: dict[str, Any]) -> bool:
    """A VersiCode item (its `answer` is the gold answer), with or without model outputs."""
    return OUTPUT_FIELD in row or "masked_code" in row or "old_code" in row


def _outputs(row: dict[str, Any], where: str) -> list[str] | None:
    """A VersiCode row's samples: `model_output` as a JSON list of strings or the text of one."""
    value = row.get(OUTPUT_FIELD)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
            reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)[:80]
            reason = reason or type(exc).__name__
            raise ModelError(
                f"{where}: {OUTPUT_FIELD} is not the text of a Python list of strings ({reason})"
            ) from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        what = type(value).__name__
        if isinstance(value, list):
            what = "a list holding " + ", ".join(
                sorted({type(v).__name__ for v in value if not isinstance(v, str)})
            )
        raise ModelError(f"{where}: {OUTPUT_FIELD} must be a list of strings, got {what}")
    return value


def _int(value: object, where: str, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ModelError(f"{where}: {field} must be an integer")
    try:
        return int(value)
    except ValueError:
        raise ModelError(f"{where}: {field} must be an integer, got {value!r}") from None
