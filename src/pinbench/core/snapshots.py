"""Content-addressed snapshots of repositories: the files a repository's tests need (its text,
and the binary files its tests read: images, archives, serialized objects, up to a budget),
frozen under a digest, so an IDE case names exactly the code it was collected from and the
sandbox can lay the same tree out for every execution."""

from __future__ import annotations

import base64
import codecs
import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pinbench.core.paths import cache_root

MANIFEST = "pinbench-snapshot.json"
_SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "node_modules",
    "build",
    "dist",
    ".eggs",
    ".pc",  # quilt's copies of patched files, in every Debian source package: not the project
}
_MAX_FILE_BYTES = 1 << 20
_MAX_TOTAL_BYTES = 64 << 20
_MAX_BINARY_BYTES = 8 << 20  # in all: every execution's job carries them


class SnapshotError(Exception):
    """The repository cannot be snapshotted (missing, too large, unreadable archive)."""


@dataclass(frozen=True)
class Snapshot:
    digest: str
    root: Path
    files: tuple[str, ...]  # the text files
    pythonpath: tuple[str, ...]  # directories (relative) that go first on sys.path
    skipped: tuple[str, ...]  # oversized files left out (and binary ones over the budget)
    binary: tuple[str, ...] = ()  # binary files kept: laid out, never read as text

    def read(self, path: str) -> str:
        return text_of((self.root / path).read_bytes())

    def python_files(self) -> list[str]:
        return [f for f in self.files if f.endswith(".py")]


def snapshots_dir() -> Path:
    return cache_root() / "repos"


def take(source: Path) -> Snapshot:
    """Snapshot a repository directory, or a .tar.gz/.zip archive of one."""
    source = source.expanduser().resolve()
    if source.is_file():
        return take(_unpack(source))
    if not source.is_dir():
        raise SnapshotError(f"{source}: no such repository directory or archive")
    files, binary, skipped = _collect(source)
    digest = _digest(files, skipped, binary)
    final = snapshots_dir() / digest
    if not (final / MANIFEST).exists():
        scratch = snapshots_dir() / f".tmp-{digest}-{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)
        for rel, data in {**files, **binary}.items():
            target = scratch / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        manifest = {
            "digest": digest,
            "source": str(source),
            "files": sorted(files),
            "pythonpath": _pythonpath(files),
            "skipped": skipped,
            "binary": sorted(binary),
        }
        (scratch / MANIFEST).write_text(json.dumps(manifest, indent=1))
        shutil.rmtree(final, ignore_errors=True)
        scratch.rename(final)
    return load(digest)


@lru_cache(maxsize=64)
def load(digest: str) -> Snapshot:
    root = snapshots_dir() / digest
    try:
        manifest = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise SnapshotError(f"repository snapshot {digest} is not in {snapshots_dir()}") from exc
    return Snapshot(
        digest=digest,
        root=root,
        files=tuple(manifest["files"]),
        pythonpath=tuple(manifest["pythonpath"]),
        skipped=tuple(manifest["skipped"]),
        binary=tuple(manifest.get("binary", ())),
    )


@lru_cache(maxsize=8)
def tree(digest: str) -> dict[str, str]:
    """Every file of a snapshot as text, for the sandbox to lay out (cached: read once)."""
    snap = load(digest)
    return {rel: snap.read(rel) for rel in snap.files}


def left_out_note(snap: Snapshot) -> list[str]:
    """A build's note on the files a snapshot left out (none: no note)."""
    if not snap.skipped:
        return []
    shown = ", ".join(snap.skipped[:5]) + (" ..." if len(snap.skipped) > 5 else "")
    return [
        f"left out {len(snap.skipped)} files over 1 MB (or binary files past the "
        f"{_MAX_BINARY_BYTES >> 20} MB all binary ones may hold): {shown}"
    ]


@lru_cache(maxsize=8)
def binary_tree(digest: str) -> dict[str, str]:
    """A snapshot's binary files, base64-encoded, for the sandbox to lay out beside `tree`."""
    snap = load(digest)
    return {rel: base64.b64encode((snap.root / rel).read_bytes()).decode() for rel in snap.binary}


def export(digest: str, archive: Path) -> None:
    """Write a snapshot as a .tar.gz that `take` (or `import_archive`) reads back."""
    archive.write_bytes(archive_bytes(digest))


def archive_bytes(digest: str) -> bytes:
    """A snapshot as .tar.gz bytes (for another machine: a dataset's side files, a Ray node)."""
    snap = load(digest)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel in (*snap.files, *snap.binary):
            tar.add(snap.root / rel, arcname=rel)
    return buffer.getvalue()


def restore(data: bytes, digest: str) -> Snapshot:
    """Restore a snapshot from `archive_bytes` output, unless this machine has it already."""
    try:
        return load(digest)
    except SnapshotError:
        pass
    with tempfile.TemporaryDirectory(prefix="pinbench-snapshot-") as tmp:
        archive = Path(tmp) / f"{digest}.tar.gz"
        archive.write_bytes(data)
        return import_archive(archive, digest)


def import_archive(archive: Path, digest: str) -> Snapshot:
    """Restore an exported snapshot; its contents must hash to the digest a dataset names."""
    try:
        return load(digest)
    except SnapshotError:
        pass
    snap = take(archive)
    if snap.digest != digest:
        raise SnapshotError(f"{archive}: holds snapshot {snap.digest}, expected {digest}")
    return snap


def _unpack(archive: Path) -> Path:
    target = snapshots_dir() / ".unpacked" / hashlib.sha256(archive.read_bytes()).hexdigest()
    if target.is_dir():
        return _single_top(target)
    scratch = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    try:
        shutil.unpack_archive(str(archive), str(scratch), filter="data")
    except (shutil.ReadError, tarfile.TarError, ValueError, OSError) as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        raise SnapshotError(f"{archive}: cannot unpack ({exc})") from exc
    scratch.rename(target)
    return _single_top(target)


def _single_top(directory: Path) -> Path:
    """An archive usually holds one top directory (`project-1.0/`); that is the repository."""
    entries = list(directory.iterdir())
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else directory


def _collect(source: Path) -> tuple[dict[str, bytes], dict[str, bytes], list[str]]:
    """(text files, binary files, files left out): a file over 1 MB is left out, and a
    binary file once the binary ones reach their budget."""
    files: dict[str, bytes] = {}
    binary: dict[str, bytes] = {}
    skipped: list[str] = []
    total = binary_total = 0
    for dirpath, dirnames, filenames in os.walk(source):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in _SKIP_DIRS
            and not d.endswith(".egg-info")
            and not (here / d / "pyvenv.cfg").exists()
        )
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(source).as_posix()
            if path.is_symlink() or not path.is_file() or name.endswith((".pyc", ".pyo")):
                continue
            data = path.read_bytes()
            if len(data) > _MAX_FILE_BYTES:
                skipped.append(rel)
                continue
            if not _is_text(data):
                binary_total += len(data)
                if binary_total > _MAX_BINARY_BYTES:
                    skipped.append(rel)
                else:
                    binary[rel] = data
                continue
            total += len(data)
            if total > _MAX_TOTAL_BYTES:
                raise SnapshotError(f"{source}: more than {_MAX_TOTAL_BYTES >> 20} MB of text")
            files[rel] = data
    if not files:
        raise SnapshotError(f"{source}: no text files")
    return files, binary, skipped


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# control bytes that text does not hold (tab, newlines, form feed and escape are text)
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def _is_text(data: bytes) -> bool:
    """Text in any encoding a source file is written in: UTF-8, UTF-16 with its byte-order
    mark, or a legacy 8-bit code page (Latin-1, Windows-1252: common in older C# and Java
    sources); a NUL in the first 8 KB without a UTF-16 mark, or more than 1 % control bytes,
    is binary."""
    if data.startswith(_UTF16_BOMS):
        try:
            data.decode("utf-16")
        except UnicodeDecodeError:
            return False
        return True
    head = data[:8192]
    return b"\0" not in head and len(head.translate(None, _CONTROL)) >= 0.99 * len(head)


def _as_latin1(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    return error.object[error.start : error.end].decode("latin-1"), error.end


codecs.register_error("pinbench-latin1", _as_latin1)


def text_of(data: bytes) -> str:
    """A kept file's text: UTF-8, else UTF-16 by its mark, else Windows-1252 (Latin-1 for
    the five bytes it leaves undefined); every line stays where it was."""
    if data.startswith(_UTF16_BOMS):
        return data.decode("utf-16")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="pinbench-latin1")


def _digest(files: dict[str, bytes], skipped: list[str], binary: dict[str, bytes]) -> str:
    """Over every kept file, and the names of those left out (tests may miss them)."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).digest())
    for rel in sorted(binary):
        digest.update(b"binary\0" + rel.encode() + b"\0" + hashlib.sha256(binary[rel]).digest())
    for rel in sorted(skipped):
        digest.update(b"skipped\0" + rel.encode())
    return digest.hexdigest()[:20]


def _pythonpath(files: dict[str, bytes]) -> list[str]:
    """The repository root, and `src/` for a src layout (a package directly under it)."""
    src_packages = any(
        rel.startswith("src/") and rel.count("/") == 2 and rel.endswith("/__init__.py")
        for rel in files
    )
    return ["src", ""] if src_packages else [""]
