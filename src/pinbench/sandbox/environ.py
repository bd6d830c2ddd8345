"""What a sandboxed program sees of the host: the only environment variables it gets, and the
only directories it can see (its environment, that environment's base interpreter and system
packages)."""

from __future__ import annotations

import functools
from pathlib import Path

from pinbench.core import sysroot

# Only these variables reach a sandboxed program; nothing from the host's environment does.
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def sandbox_environ(python: Path) -> dict[str, str]:
    bins, libs = sysroot.sandbox_paths(python.absolute().parent.parent)
    env = {
        "PATH": ":".join([str(python.parent), *bins, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": "/tmp/pinbench-work",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "NO_COLOR": "1",
    }
    env.update(dict.fromkeys(_THREAD_VARS, "1"))
    if libs:  # an environment's own system packages (envs.system), loaded and found by name
        env["LD_LIBRARY_PATH"] = env["LIBRARY_PATH"] = ":".join(libs)
    return env


def visible_paths(python: Path) -> list[str]:
    """The directories the sandbox must see: the environment and its base interpreter."""
    return list(_visible_paths(python))


@functools.lru_cache(maxsize=256)
def _visible_paths(python: Path) -> tuple[str, ...]:
    # Resolving symlinks costs ~0.15 ms, a tenth of the host's share of a warm execution; an
    # environment's interpreter link does not change while pinbench runs.
    env_prefix = python.absolute().parent.parent
    base_prefix = python.resolve().parent.parent
    link = env_prefix / sysroot.LINK
    roots = [str(link.resolve())] if link.is_symlink() else []
    return tuple(sorted({str(env_prefix), str(base_prefix), *roots}))
