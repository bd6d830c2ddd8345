"""Shared fixtures: a persistent pinbench home (so uv's cache stays warm between runs)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
os.environ.setdefault("PINBENCH_HOME", str(REPO / ".pinbench"))
