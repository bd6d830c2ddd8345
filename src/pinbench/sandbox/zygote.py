"""The Node zygote (inside/_pinbench_zygote.js and its addon, inside/pinbench_zygote.c): built
once per pinbench version into `$PINBENCH_HOME/node/zygote/<digest>/` with the host's C
compiler, a directory every warm server of a Node environment keeps visible, so each execution
forks a warm Node for the program and another for the grader instead of starting two.

The addon is pinbench's own code (never dataset content), built by `cc` on the host as any
package's extension would be. Without a C compiler, or with `PINBENCH_NODE_ZYGOTE=0`, Node
executions start fresh processes as before: the same sandbox and verdicts, slower. Each zygote
maps Node's own code on huge pages (`--use-largepages`) unless `PINBENCH_NODE_LARGE_PAGES=0`."""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from filelock import FileLock

from pinbench.core.paths import cache_root

_INSIDE = Path(__file__).parent / "inside"
ADDON = "pinbench_zygote.node"
SOURCE = "pinbench_zygote.c"
# The scripts a zygote loads or runs, copied beside the addon: the child runs the harness's
# scripts from here, so their shared modules are the ones the zygote loaded already.
SCRIPTS = (
    "_pinbench_zygote.js",
    "_pinbench_jest.js",
    "_pinbench_program.js",
    "_pinbench_channel.js",
    "_pinbench_deprecations.js",
    "_pinbench_warm.mjs",
    "_pinbench_warm.cjs",
)
_log = logging.getLogger(__name__)


def _digest() -> str:
    hasher = hashlib.sha256()
    for name in (SOURCE, *SCRIPTS):
        hasher.update(name.encode() + b"\0" + (_INSIDE / name).read_bytes() + b"\0")
    return hasher.hexdigest()[:20]


def enabled() -> bool:
    return os.environ.get("PINBENCH_NODE_ZYGOTE", "1") != "0"


def large_pages() -> bool:
    """Whether zygotes map Node's code on huge pages (read as a warm server starts)."""
    return os.environ.get("PINBENCH_NODE_LARGE_PAGES", "1") != "0"


@functools.cache
def zygote_dir() -> Path | None:
    """The built zygote's directory, or None (disabled, or it cannot be built here: the reason
    is logged once)."""
    if not enabled():
        return None
    target = cache_root() / "node" / "zygote" / _digest()
    if (target / ADDON).exists():
        return target
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    compiler = compiler or shutil.which("clang")
    if not compiler:
        _log.warning("no C compiler: Node executions start fresh processes (slower)")
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if (target / ADDON).exists():
            return target
        with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
            built = Path(scratch) / "tree"
            built.mkdir()
            for name in SCRIPTS:
                shutil.copyfile(_INSIDE / name, built / name)
            argv = [compiler, "-O2", "-shared", "-fPIC", "-fvisibility=hidden"]
            argv += ["-o", str(built / ADDON), str(_INSIDE / SOURCE)]
            done = subprocess.run(argv, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                _log.warning(
                    "the Node zygote does not build (%s): Node executions start fresh "
                    "processes (slower)\n%s",
                    compiler,
                    done.stderr[-2000:],
                )
                return None
            os.chmod(built, 0o755)
            os.replace(built, target)
    return target


def for_environment(env_root: Path) -> Path | None:
    """The zygote's directory when `env_root` is a Node environment (it has the harness's
    Node), else None."""
    if not (env_root / "bin" / "harness-node").exists():
        return None
    return zygote_dir()
