"""The reference model: named after its answers, so a changed reference is never answered
from the generation cache (which is keyed by model name and prompt)."""

from __future__ import annotations

import asyncio

from pinbench.models.base import Message, Request
from pinbench.models.reference import ReferenceModel


def test_changed_references_get_another_cache_identity() -> None:
    first, again = ReferenceModel({"p": "a"}), ReferenceModel({"p": "a"})
    changed = ReferenceModel({"p": "b"})
    request = Request(problem_id="p", messages=(Message(role="user", content="x"),))
    assert first.name == again.name and first.name.startswith("reference@")
    assert request.cache_key(first.name) != request.cache_key(changed.name)
    assert asyncio.run(changed.generate(request)).text == "b"
    missing = Request(problem_id="q", messages=(Message(role="user", content="x"),))
    assert "no reference answer" in (asyncio.run(first.generate(missing)).error or "")
