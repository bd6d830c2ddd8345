"""Fixtures for model backends: a real OpenAI-compatible server that misbehaves on cue."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.models.fault_server import FaultServer


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    """A fresh `FaultServer` on 127.0.0.1 and a free port, stopped after the test."""
    with FaultServer() as server:
        yield server
