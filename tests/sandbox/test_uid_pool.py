"""Each concurrent execution gets its own sandbox uid, across threads and processes."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pinbench.sandbox.isolation import UidPool


@pytest.fixture
def pool(tmp_path: Path) -> UidPool:
    pool = UidPool(base=62000, size=4)
    pool._dir = tmp_path / "uids"  # not the machine-wide directory other runs use
    return pool


def test_concurrent_leases_get_distinct_uids_and_free_them(pool: UidPool) -> None:
    with pool.lease() as a, pool.lease() as b:
        assert a != b
    with pool.lease() as again:
        assert again == a  # released, so the lowest is free again


def test_a_uid_held_by_another_process_is_skipped(pool: UidPool) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"""
import fcntl, os, sys
os.makedirs({str(pool._dir)!r}, exist_ok=True)
fd = os.open({str(pool._dir / "62000.lock")!r}, os.O_CREAT | os.O_RDWR, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
""",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    with pool.lease() as uid:
        assert uid == 62001
    holder.communicate("")


def test_the_lock_directory_is_recreated_when_removed(pool: UidPool) -> None:
    with pool.lease():
        pass
    shutil.rmtree(pool._dir)
    with pool.lease() as uid:
        assert uid == 62000 and (pool._dir / "62000.lock").exists()


def test_exhaustion_is_a_clear_error(pool: UidPool) -> None:
    with contextlib.ExitStack() as stack:
        for _ in range(4):
            stack.enter_context(pool.lease())
        with pytest.raises(RuntimeError, match="no free sandbox uid"):
            stack.enter_context(pool.lease())
