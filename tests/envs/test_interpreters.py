"""Interpreters are discovered, never assumed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pinbench.envs.python.interpreters import discover


def test_user_setting_adds_an_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    monkeypatch.setenv("HOME", str(tmp_path))
    link = tmp_path / "bin" / "python3"
    link.parent.mkdir()
    link.symlink_to(sys.executable)
    monkeypatch.setenv("PINBENCH_PYTHONS", str(link.parent))
    found = discover()
    assert Path(sys.executable).resolve() in {i.path for i in found}
    assert any(i.version[:2] == sys.version_info[:2] for i in found)


def test_pyenv_style_directories_are_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("PINBENCH_PYTHONS", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    bindir = tmp_path / "pyenv" / "versions" / "9.9.9" / "bin"
    bindir.mkdir(parents=True)
    (bindir / "python").symlink_to(sys.executable)
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    assert Path(sys.executable).resolve() in {i.path for i in discover()}


def test_broken_candidates_are_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))
    fake = tmp_path / "python3.99"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PINBENCH_PYTHONS", str(fake))
    assert all(i.path != fake for i in discover())
