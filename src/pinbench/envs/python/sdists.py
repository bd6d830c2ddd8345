"""Source distributions built into wheels in the sandbox, never on the host.

A package with no fitting wheel at any date is built once per (package, version, interpreter).
The host only handles data: it downloads the sdist (checked against the index's sha256), reads
its declared build requirements out of the archive, and installs them from wheels into a build
environment of the same interpreter. The build itself (the package's `setup.py` or build
backend: dataset content) runs as a sandboxed job: `pip wheel` over the unpacked archive, with
no network, an unprivileged uid, the syscall filter and generous limits. The host checks the
wheel it gets back (name, version, tags, a readable archive with metadata) and keeps it in a
store; environments install it from there (`--find-links`), uv still with `--no-build`. A build
that failed is remembered with its log and not retried.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import urljoin

import httpx
from filelock import FileLock
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from pinbench.core.outcome import Limits, Status
from pinbench.core.paths import cache_root
from pinbench.envs import system
from pinbench.envs.python import index, tools
from pinbench.envs.python.interpreters import Interpreter, uv_binary, uv_environ, uv_unreachable
from pinbench.sandbox.probe import detect
from pinbench.sandbox.process import run_job

BUILDS_VERSION = 1  # in the memo of a failure: a change to how builds run forgets old failures
LIMITS = Limits(
    wall_seconds=1200,
    cpu_seconds=1200,
    address_space_bytes=8 << 30,
    processes=256,
    file_size_bytes=256 << 20,
    output_bytes=256 << 10,
    open_files=1024,
    tmpfs_bytes=4 << 30,
)
_MAX_SDIST_BYTES = 512 << 20
_MAX_PYPROJECT_BYTES = 1 << 20
# The build's proof record carries the wheel, base64: a third larger than the file limit.
_RECORD_BYTES = (LIMITS.file_size_bytes * 4) // 3 + (1 << 20)
_DEFAULT_BACKEND = ("setuptools>=40.8.0",)  # PEP 517's fallback for a project without one
_ALWAYS = ("wheel", "pip")  # bdist_wheel for old setuptools; pip runs the build


class BuildFailed(Exception):
    """A source build that could not be done; `log` holds what it printed, when it ran."""

    def __init__(self, message: str, log: Path | None = None, *, lasting: bool = True) -> None:
        super().__init__(message)
        self.log = log
        self.lasting = lasting  # False: the network's or the machine's fault, tried again later


@dataclass(frozen=True)
class Built:
    name: str
    version: Version
    wheel: Path


def choose(
    name: str,
    python: tuple[int, int],
    *,
    pinned: Version | None,
    cutoff: date | None,
    needed: SpecifierSet | None = None,
) -> index.DistFile:
    """The sdist to build: the pinned version's; else the newest final release inside what
    the resolution needs (`needed`, from uv's words) that admits this Python, before the
    cutoff when one such exists."""
    files = index.project_files(name, yanked=pinned is not None)
    fitting = [f for f in files if f.tags is None and f.supports(python)]
    if pinned is not None:
        sdists = [f for f in fitting if f.version == pinned]
    else:
        inside = [
            f
            for f in fitting
            if not f.version.is_prerelease and (needed is None or needed.contains(f.version))
        ]
        sdists = [f for f in inside if _before(f, cutoff)] or inside
    if not sdists:
        which = f"{name}=={pinned}" if pinned is not None else f"{name}{needed or ''}"
        raise BuildFailed(f"{which} has neither a fitting wheel nor a source distribution")
    return max(sdists, key=lambda f: (f.version, f.filename.endswith(".tar.gz")))


def _before(file: index.DistFile, cutoff: date | None) -> bool:
    return cutoff is None or file.uploaded is None or file.uploaded.date() < cutoff


def wheel_for(name: str, sdist: index.DistFile, interpreter: Interpreter) -> Built:
    """The wheel of `sdist` for `interpreter`, from the store or built now in the sandbox."""
    minor = (interpreter.version[0], interpreter.version[1])
    key = f"{canonicalize_name(name)}-{sdist.version}-cp{minor[0]}{minor[1]}"
    store = store_dir() / f"cp{minor[0]}{minor[1]}"
    found = _stored(store, name, sdist.version)
    if found is not None:
        return Built(canonicalize_name(name), sdist.version, found)
    memo = _failure_memo(key)
    if memo.is_file():
        raise BuildFailed(
            f"building {name}=={sdist.version} from source failed before "
            f"[a remembered failure: remove {memo} to try again]",
            memo,
        )
    store.mkdir(parents=True, exist_ok=True)
    with FileLock(str(store / f".{key}.lock")):
        found = _stored(store, name, sdist.version)
        if found is not None:
            return Built(canonicalize_name(name), sdist.version, found)
        work = store_dir() / f".build-{key}-{os.getpid()}"
        shutil.rmtree(work, ignore_errors=True)
        try:
            wheel = _build(name, sdist, interpreter, work)
        except BuildFailed as exc:
            _remember(memo, exc)
            raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
        target = store / wheel[0]
        tmp = store / f".{wheel[0]}.{os.getpid()}.tmp"
        tmp.write_bytes(wheel[1])
        tmp.replace(target)
    return Built(canonicalize_name(name), sdist.version, target)


def store_dir() -> Path:
    return cache_root() / "wheels"


def gc(*, everything: bool) -> list[Path]:
    """Leftover build directories of builds no longer running; with `everything`, the store's
    wheels and remembered failures too (the next environment that needs one builds it again)."""
    removed: list[Path] = []
    store = store_dir()
    for work in store.glob(".build-*") if store.is_dir() else ():
        pid = work.name.rsplit("-", 1)[-1]
        if not pid.isdigit() or not Path(f"/proc/{pid}").exists():  # not a running build
            shutil.rmtree(work, ignore_errors=True)
            removed.append(work)
    if everything and store.is_dir():
        for path in [*store.glob("cp*/*.whl"), *store.glob(".failed/*.log")]:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _stored(store: Path, name: str, version: Version) -> Path | None:
    for wheel in store.glob("*.whl") if store.is_dir() else ():
        got_name, got_version = parse_wheel_filename(wheel.name)[:2]
        if got_name == canonicalize_name(name) and got_version == version:
            return wheel
    return None


def _failure_memo(key: str) -> Path:
    return store_dir() / ".failed" / f"{key}-v{BUILDS_VERSION}.log"


def _remember(memo: Path, exc: BuildFailed) -> None:
    """Keep the failure's log out of the build directory (which goes); a lasting failure as
    the memo that stops the next try, any other only as a log."""
    kept = memo if exc.lasting else memo.parent.parent / ".logs" / memo.name
    kept.parent.mkdir(parents=True, exist_ok=True)
    log = exc.log.read_text(errors="replace") if exc.log and exc.log.is_file() else ""
    kept.write_text(f"{exc}\n\n{log}")
    exc.log = kept


def _build(
    name: str, sdist: index.DistFile, interpreter: Interpreter, work: Path
) -> tuple[str, bytes]:
    minor = (interpreter.version[0], interpreter.version[1])
    env = work / "env"
    archive = env / "sdist" / sdist.filename
    archive.parent.mkdir(parents=True)  # inside the build environment: the sandbox sees it
    _download(name, sdist, archive)
    requires = build_requirements(archive)
    log = work / "build.log"  # read into the failure's memo before `work` goes
    _build_environment(interpreter, env, requires, log)
    packages = system.packages_for([name])
    if packages:  # the system libraries its build links (rtree's libspatialindex)
        try:
            (env / system.LINK).symlink_to(system.root_for(packages))
        except (system.SystemError_, OSError) as exc:
            raise BuildFailed(f"{name} needs system packages {' '.join(packages)}: {exc}") from exc
    job: dict[str, object] = {
        "mode": "build",
        "sdist": str(archive),
        "files": {},
        "record_bytes": _RECORD_BYTES,
    }
    done = run_job(env / "bin" / "python", job, LIMITS, detect())
    log.write_text(f"{done.stdout}\n{done.stderr}\n{done.message}\n{done.trace}")
    failed = BuildFailed(
        f"building {name}=={sdist.version} from source in the sandbox failed "
        f"({done.status.value}: {done.message[:300]})",
        log,
        # the build's own failure lasts; a deadline, a limit or the sandbox's trouble may not
        lasting=done.status in (Status.FAILED, Status.PASSED),
    )
    if done.status is not Status.PASSED:
        raise failed
    filename, data = done.details.get("wheel"), done.details.get("data")
    if not isinstance(filename, str) or not isinstance(data, str):
        raise failed
    try:
        payload = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BuildFailed(f"the build of {name} sent back no readable wheel", log) from exc
    _check_wheel(filename, payload, name, sdist.version, minor, log)
    return filename, payload


def _download(name: str, sdist: index.DistFile, target: Path) -> None:
    url = urljoin(f"{index.index_url().rstrip('/')}/{canonicalize_name(name)}/", sdist.url)
    digest = hashlib.sha256()
    try:
        with (
            httpx.stream("GET", url, follow_redirects=True, timeout=120) as response,
            target.open("wb") as fh,
        ):
            response.raise_for_status()
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > _MAX_SDIST_BYTES:
                    raise BuildFailed(f"{sdist.filename} is larger than {_MAX_SDIST_BYTES} bytes")
                digest.update(chunk)
                fh.write(chunk)
    except httpx.HTTPError as exc:
        raise BuildFailed(f"cannot download {sdist.filename}: {exc}", lasting=False) from exc
    if sdist.sha256 and digest.hexdigest() != sdist.sha256:
        raise BuildFailed(f"{sdist.filename} does not match the index's sha256")
    target.chmod(0o644)


def build_requirements(archive: Path) -> list[str]:
    """What the sdist's `pyproject.toml` declares its build needs (PEP 518), read as data; the
    PEP 517 default without one. Direct references are refused: they would fetch or build
    what no index vouches for."""
    text = _top_level_file(archive, "pyproject.toml")
    declared: list[str] = list(_DEFAULT_BACKEND)
    if text is not None:
        try:
            system_table = tomllib.loads(text).get("build-system", {})
        except tomllib.TOMLDecodeError as exc:
            raise BuildFailed(f"{archive.name}: pyproject.toml does not parse: {exc}") from exc
        requires = system_table.get("requires") if isinstance(system_table, dict) else None
        if isinstance(requires, list):
            declared = [str(r) for r in requires]
    checked: list[str] = []
    for text_req in declared:
        try:
            req = Requirement(text_req)
        except InvalidRequirement as exc:
            raise BuildFailed(f"{archive.name}: build requirement {text_req!r}: {exc}") from exc
        if req.url:
            raise BuildFailed(f"{archive.name}: build requirement {req.name} is a direct reference")
        checked.append(str(req))
    names = {canonicalize_name(Requirement(r).name) for r in checked}
    return checked + [tool for tool in _ALWAYS if tool not in names]


def _top_level_file(archive: Path, name: str) -> str | None:
    """`<project>/<name>` from an sdist, without unpacking it (the build unpacks, confined)."""
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as bundle:
                for info in bundle.infolist():
                    if _is_top_level(info.filename, name) and info.file_size < _MAX_PYPROJECT_BYTES:
                        return bundle.read(info).decode("utf-8", errors="replace")
            return None
        with tarfile.open(archive) as bundle:
            for member in bundle:
                if member.isfile() and _is_top_level(member.name, name):
                    if member.size >= _MAX_PYPROJECT_BYTES:
                        return None
                    fh = bundle.extractfile(member)
                    return fh.read().decode("utf-8", errors="replace") if fh else None
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError) as exc:
        raise BuildFailed(f"{archive.name} is not a readable archive: {exc}") from exc
    return None


def _is_top_level(member: str, name: str) -> bool:
    parts = member.strip("/").split("/")
    return len(parts) == 2 and parts[1] == name


def _build_environment(interpreter: Interpreter, env: Path, requires: list[str], log: Path) -> None:
    """A venv of the interpreter with the build requirements, installed from wheels only, by uv
    pointed at the base interpreter (`--prefix`): nothing of the new environment runs here."""
    uv = uv_binary()
    base = str(interpreter.path)
    # Today's build tools, as pip's build isolation would fetch them.
    exclude = ["--exclude-newer", tools.TOOLS_DATE.isoformat()]
    env_vars = uv_environ(env.parent)
    for cmd in (
        [
            uv,
            "venv",
            "--relocatable",
            "--no-project",
            "--allow-existing",
            "--python",
            base,
            str(env),
        ],
        [
            uv,
            "pip",
            "install",
            "--python",
            base,
            "--prefix",
            str(env),
            "--no-build",
            *exclude,
            *requires,
        ],
    ):
        done = subprocess.run(cmd, capture_output=True, text=True, env=env_vars, check=False)
        if done.returncode != 0:
            log.write_text(f"$ {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
            tail = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise BuildFailed(
                f"the build requirements {' '.join(requires)} cannot be installed: {tail}",
                log,
                lasting=not uv_unreachable(done.stderr),
            )


def _check_wheel(
    filename: str, payload: bytes, name: str, version: Version, python: tuple[int, int], log: Path
) -> None:
    """The build's wheel is the package asked for, for this Python, and a wheel at all."""
    try:
        got_name, got_version = parse_wheel_filename(filename)[:2]
    except ValueError as exc:
        raise BuildFailed(f"the build of {name} sent back {filename!r}: {exc}", log) from exc
    if "/" in filename or got_name != canonicalize_name(name) or got_version != version:
        raise BuildFailed(f"the build of {name}=={version} sent back {filename!r}", log)
    if not index.wheel_fits(filename, python):
        raise BuildFailed(
            f"the build of {name} made {filename}, not for Python {python[0]}.{python[1]}", log
        )
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as bundle:
            names = bundle.namelist()
    except zipfile.BadZipFile as exc:
        raise BuildFailed(f"the build of {name} sent back a broken wheel: {exc}", log) from exc
    if not any(n.endswith(".dist-info/METADATA") for n in names):
        raise BuildFailed(f"the build of {name} sent back a wheel without metadata", log)
