"""Content-addressed environments built with uv: same spec, same key, same directory.

Key = hash of (interpreter implementation and exact version, every pin, extras, as-of date,
platform). Builds happen in a scratch directory renamed into place only on success, under a
per-key file lock, so concurrent builders wait and a failed build leaves only its log.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sysconfig
import time
from dataclasses import dataclass, replace
from datetime import date
from functools import cache
from pathlib import Path

from filelock import FileLock
from packaging.utils import canonicalize_name
from packaging.version import Version

from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.paths import envs_dir
from pinbench.envs import system
from pinbench.envs.python import era, index, sdists, tools
from pinbench.envs.python.era import Plan
from pinbench.envs.python.imports import pinned_modules
from pinbench.envs.python.interpreters import (
    Interpreter,
    discover,
    uv_binary,
    uv_environ,
    uv_unreachable,
)

BUILDER_VERSION = 3  # 3: harness tools per interpreter, wheels-first era resolution, base floor
MANIFEST = "pinbench-env.json"
BASE_PACKAGES = era.BASE_PACKAGES  # period-correct pkg_resources for old packages that import it


@dataclass(frozen=True)
class Resolution:
    """The interpreter and as-of date chosen for a spec, and why, before any build."""

    spec: EnvSpec
    interpreter: Interpreter
    as_of: date | None
    substitution: str | None  # set when the interpreter is not the one requested

    @property
    def packages(self) -> list[str]:
        """What uv installs: the pins, then the harness's tools pinned for this interpreter."""
        python = (self.interpreter.version[0], self.interpreter.version[1])
        helpers = tools.tool_pins(tuple(sorted(set(self.spec.extras))), self.spec.pins, python)
        return [*self.spec.pins, *sorted({*helpers, *BASE_PACKAGES})]

    @property
    def key(self) -> str:
        payload = {
            "builder": BUILDER_VERSION,
            "implementation": self.interpreter.implementation,
            "python": ".".join(map(str, self.interpreter.version)),
            "pins": sorted(self.spec.pins, key=str.lower),
            "extras": sorted(self.packages[len(self.spec.pins) :]),
            "harness": list(self.spec.harness),
            "as_of": self.as_of.isoformat() if self.as_of else None,
            "platform": sysconfig.get_platform(),
        }
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        return digest[:20]


@dataclass(frozen=True)
class Environment:
    key: str
    path: Path
    resolution: Resolution
    reused: bool

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def interpreter(self) -> Path:
        """What runs the sandbox's runner in this environment."""
        return self.python

    @property
    def spec(self) -> EnvSpec:
        return self.resolution.spec

    def preload(self) -> tuple[str, ...]:
        """The top-level modules of the pinned distributions: what a warm server imports, and
        whose values cross trusted grading's channel as copies."""
        return _pinned_modules(self.path, self.resolution.spec.pins)


@cache
def _pinned_modules(path: Path, pins: tuple[str, ...]) -> tuple[str, ...]:
    return pinned_modules(path, pins)  # a built environment never changes: once per process


@cache
def interpreters() -> tuple[Interpreter, ...]:
    return tuple(discover())


def resolve(spec: EnvSpec, available: tuple[Interpreter, ...] | None = None) -> Resolution:
    """Pick the requested interpreter, or the nearest one that has wheels for every pin.

    Remembered on disk per (spec, interpreters available): upload dates never change, so a
    resolution stays right until the set of interpreters does.
    """
    candidates = interpreters() if available is None else available
    memo = _resolution_file(spec, candidates)
    try:
        stored = json.loads(memo.read_text())
        chosen = next(i for i in candidates if str(i.path) == stored["interpreter"])
        as_of = date.fromisoformat(stored["as_of"]) if stored["as_of"] else None
        return Resolution(spec, chosen, as_of, stored["substitution"])
    except (OSError, ValueError, KeyError, StopIteration):
        pass
    resolution = _resolve(spec, candidates)
    if resolution.as_of is not None or spec.as_of is not None:  # not an offline guess
        _remember(resolution, candidates)
    return resolution


def _remember(resolution: Resolution, candidates: tuple[Interpreter, ...]) -> None:
    memo = _resolution_file(resolution.spec, candidates)
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(
        json.dumps(
            {
                "interpreter": str(resolution.interpreter.path),
                "as_of": resolution.as_of.isoformat() if resolution.as_of else None,
                "substitution": resolution.substitution,
            }
        )
    )


def _resolution_file(spec: EnvSpec, candidates: tuple[Interpreter, ...]) -> Path:
    # The builder's version too: a fallback remembered by an older builder (one that could not
    # build on the requested interpreter) must not outlive the fix that makes it build there.
    interpreters = [[str(i.path), list(i.version)] for i in candidates]
    payload = json.dumps([BUILDER_VERSION, spec.model_dump(mode="json"), interpreters])
    return envs_dir() / ".resolutions" / f"{hashlib.sha256(payload.encode()).hexdigest()}.json"


def _resolve(spec: EnvSpec, candidates: tuple[Interpreter, ...]) -> Resolution:
    pool = [i for i in candidates if i.implementation == "CPython"]
    if not pool:
        raise EnvError("no Python interpreter found (set PINBENCH_PYTHONS to point at some)")
    wanted = _parse_minor(spec.version) if spec.version else None
    try:
        fits = [i for i in pool if _installable(spec, i)]
        from_source = not fits
        if from_source:  # no interpreter has wheels for every pin: some pin must be built
            fits = [i for i in pool if _installable(spec, i, from_source=True)]
        offline = None
    except index.IndexUnavailable as exc:
        fits, offline, from_source = pool, str(exc), False
    if not fits:
        raise EnvError(
            f"no interpreter among {', '.join(i.minor for i in pool)} can install "
            f"{' '.join(spec.pins)} (no fitting wheel or source distribution)"
        )
    if wanted is None:
        chosen = _of_the_era(spec, fits) if offline is None else max(fits)
        substitution = None
    else:
        chosen = min(fits, key=lambda i: (abs(i.version[1] - wanted[1]), i.version))
        substitution = None
        if chosen.version[:2] != wanted:
            have = any(i.version[:2] == wanted for i in pool)
            why = "cannot install the pins" if have else "is not installed"
            substitution = (
                f"requested Python {spec.version} {why}; using {chosen.minor}, "
                "the nearest interpreter that can install the pins"
            )
    if from_source:
        built = "source builds for pins without a fitting wheel"
        substitution = f"{substitution}; {built}" if substitution else built
    as_of = spec.as_of
    if as_of is None and offline is None:
        try:
            as_of = index.as_of_date(spec.pins, (chosen.version[0], chosen.version[1]))
        except index.IndexUnavailable:
            as_of = None
    return Resolution(spec, chosen, as_of, substitution)


def _of_the_era(spec: EnvSpec, fits: list[Interpreter]) -> Interpreter:
    """With no Python asked for: the newest interpreter that existed when the pins were
    released (a pure-Python wheel of networkx 1.11 installs on 3.13 but cannot import there),
    else the oldest that can install them."""
    try:
        released = index.release_date(spec.pins)
    except index.IndexUnavailable:
        released = None
    if released is None:
        return max(fits)
    existing = [i for i in fits if era.PYTHON_RELEASED.get(i.version[:2], date.max) <= released]
    return max(existing) if existing else min(fits)


def _parse_minor(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def _installable(spec: EnvSpec, interp: Interpreter, *, from_source: bool = False) -> bool:
    minor = (interp.version[0], interp.version[1])
    return all(index.installable_on(pin, minor, from_source=from_source) for pin in spec.pins)


def ensure(spec: EnvSpec, fallbacks: int = 2) -> Environment:
    """The environment for `spec`, built now if it does not exist yet.

    Wheels for the pins do not guarantee that their dependencies *as of that date* have wheels
    for the chosen interpreter too; when the build fails, the next nearest interpreters are
    tried, and the one that worked is remembered (and recorded as a substitution)."""
    remembered = _remembered_failure(spec)
    if remembered is not None:
        raise remembered
    try:
        return _ensure(spec, fallbacks)
    except EnvError as exc:
        _remember_failure(spec, exc)
        raise


def _ensure(spec: EnvSpec, fallbacks: int) -> Environment:
    candidates = interpreters()
    resolution = resolve(spec, candidates)
    try:
        return build(resolution)
    except EnvError as first:
        failed = [resolution.interpreter]
        for _ in range(fallbacks):
            remaining = tuple(i for i in candidates if i not in failed)
            try:
                alternative = _resolve(spec, remaining)
            except EnvError:
                break
            try:
                env = build(alternative)
            except EnvError:
                failed.append(alternative.interpreter)
                continue
            note = (
                f"Python {resolution.interpreter.minor} could not build the environment "
                f"({first}); using {alternative.interpreter.minor}"
            )
            worked = replace(alternative, substitution=note)
            _remember(worked, candidates)
            return replace(env, resolution=worked)
        raise


def _failure_file(spec: EnvSpec) -> Path:
    payload = json.dumps([BUILDER_VERSION, spec.model_dump(mode="json")], sort_keys=True)
    digest = hashlib.sha256(payload.encode()).hexdigest()[:24]
    return envs_dir() / ".failed" / f"{digest}.json"


def _remember_failure(spec: EnvSpec, error: EnvError) -> None:
    """A build that failed for a reason of its own fails the same way next time: keep it, so
    no later run spends half an hour compiling it again (removing the file forgets it)."""
    log = error.log.read_text(errors="replace").lower() if error.log else ""
    if uv_unreachable(log) or "package index" in str(error):
        return
    memo = _failure_file(spec)
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(
        json.dumps({"message": str(error), "log": str(error.log or ""), "at": time.time()})
    )


def _remembered_failure(spec: EnvSpec) -> EnvError | None:
    memo = _failure_file(spec)
    try:
        stored = json.loads(memo.read_text())
        message, log = str(stored["message"]), str(stored["log"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    note = f"{message} [a remembered failure: remove {memo} to try again]"
    return EnvError(note, Path(log) if log else None)


def build(resolution: Resolution) -> Environment:
    key = resolution.key
    root = envs_dir()
    final = root / key
    root.mkdir(parents=True, exist_ok=True)
    if (final / MANIFEST).exists() and _has_system_record(final):
        _touch(final)
        return Environment(key, final, resolution, reused=True)
    with FileLock(str(root / f".{key}.lock")):
        if (final / MANIFEST).exists():  # another builder finished while we waited
            if not _has_system_record(final):  # built before system packages were provided
                _attach_system(final)
            return Environment(key, final, resolution, reused=True)
        scratch = root / f".build-{key}-{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)
        started = time.monotonic()
        try:
            plan = _install(resolution, scratch)
        except EnvError:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        manifest: dict[str, object] = {
            "key": key,
            "python": str(resolution.interpreter.path),
            "python_version": ".".join(map(str, resolution.interpreter.version)),
            "requested_python": resolution.spec.version,
            "substitution": resolution.substitution,
            "pins": list(resolution.spec.pins),
            "extras": resolution.packages[len(resolution.spec.pins) :],
            "as_of": resolution.as_of.isoformat() if resolution.as_of else None,
            "era": plan.describe(),
            "built_at": time.time(),
            "build_seconds": round(time.monotonic() - started, 3),
        }
        linked, compiled = _bytecode(scratch, resolution.interpreter)
        manifest["bytecode"] = {"linked": linked, "compiled": compiled}
        (scratch / MANIFEST).write_text(json.dumps(manifest, indent=2))
        _attach_system(scratch)
        shutil.rmtree(final, ignore_errors=True)
        scratch.rename(final)
    return Environment(key, final, resolution, reused=False)


_MAX_ATTEMPTS = 24  # each failed attempt is a resolution only: about a second


def _install(resolution: Resolution, target: Path) -> Plan:
    """Create the venv and install into it from wheels only; returns the plan that worked.

    uv is pointed at the base interpreter and the venv as a prefix: it never starts the new
    environment's interpreter, whose startup would run the `.pth` files and `sitecustomize`
    of the packages just installed, on the host. A package that has no wheel at any date is
    built in the sandbox (`sdists`) and offered to uv from a directory of such wheels."""
    uv = uv_binary()
    env = uv_environ(target.parent)
    python = str(resolution.interpreter.path)
    minor = (resolution.interpreter.version[0], resolution.interpreter.version[1])
    log_lines: list[str] = []

    def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        log_lines.extend([f"$ {' '.join(cmd)}", done.stdout, done.stderr])
        return done

    venv = run([uv, "venv", "--relocatable", "--no-project", "--python", python, str(target)])
    if venv.returncode != 0:
        raise _failure(resolution, venv.stderr, log_lines)
    spec = resolution.spec
    plan = Plan(as_of=resolution.as_of)
    exempt = tools.exempt_packages((*spec.extras, *spec.harness), spec.pins)
    plan.cutoffs.update(dict.fromkeys(exempt, tools.TOOLS_DATE))
    plan.floor_base_packages(minor)
    links = target / ".pinbench-wheels"  # the wheels built for this environment, for uv
    install = [uv, "pip", "install", "--python", python, "--prefix", str(target)]
    # The pins first; then a dataset harness's own installs, as that harness makes them.
    for step in (resolution.packages, list(spec.harness)):
        attempts = 0
        while step:
            found = ["--find-links", str(links)] if plan.wheels else []
            done = run([*install, *plan.uv_args(), *found, *step])
            if done.returncode == 0:
                break
            attempts += 1
            if attempts == _MAX_ATTEMPTS or not plan.learn(done.stderr, minor):
                raise _failure(resolution, done.stderr, log_lines)
            _build_pending(plan, resolution, links, log_lines)
    shutil.rmtree(links, ignore_errors=True)
    _relocate_scripts(target, resolution.interpreter.path)
    return plan


def _build_pending(plan: Plan, resolution: Resolution, links: Path, log: list[str]) -> None:
    """Build, in the sandbox, the wheels of the packages the plan found no wheel for."""
    minor = (resolution.interpreter.version[0], resolution.interpreter.version[1])
    pinned: dict[str, Version] = {}
    for pin in resolution.spec.pins:
        exact = index.pinned_version(pin)
        if exact is not None:
            pinned[canonicalize_name(exact[0])] = exact[1]
    for name, needed in sorted(plan.pending.items()):
        try:  # the pin's version, else the newest inside what uv's resolution needs
            sdist = sdists.choose(
                name, minor, pinned=pinned.get(name), cutoff=plan.cutoff(name), needed=needed
            )
            built = sdists.wheel_for(name, sdist, resolution.interpreter)
        except (sdists.BuildFailed, index.IndexUnavailable) as exc:
            log.append(f"source build of {name}: {exc}")
            raise EnvError(
                f"{' '.join(resolution.spec.pins)}: {exc}",
                getattr(exc, "log", None) or _write_log(resolution.key, log),
            ) from exc
        log.append(f"built in the sandbox: {built.wheel.name}")
        links.mkdir(exist_ok=True)
        linked = links / built.wheel.name
        if not linked.exists():
            try:
                os.link(built.wheel, linked)
            except OSError:  # the store on another filesystem
                shutil.copyfile(built.wheel, linked)
        if name in plan.wheels and plan.wheels[name].name != built.wheel.name:
            (links / plan.wheels[name].name).unlink(missing_ok=True)  # the version it replaces
        plan.wheels[name], plan.built[name] = built.wheel, built.version
    plan.pending.clear()


# How a relocatable venv's console script finds its interpreter: beside itself.
_RELOCATABLE = (
    b"#!/bin/sh\n"
    b'\'\'\'exec\' "$(dirname -- "$(realpath -- "$0")")"/\'python\' "$0" "$@"\n'
    b"' '''\n"
)


def _relocate_scripts(env: Path, base: Path) -> None:
    """Installed with `--prefix`, console scripts start the base interpreter; give them the
    environment's own, found relative to the script (as a relocatable venv's scripts do)."""
    shebang = b"#!" + str(base).encode()
    for script in (env / "bin").iterdir():
        if script.is_symlink() or not script.is_file():
            continue
        with script.open("rb") as fh:
            first = fh.readline()
        if first.rstrip(b"\r\n") == shebang:
            script.write_bytes(_RELOCATABLE + script.read_bytes()[len(first) :])


def _failure(resolution: Resolution, stderr: str, log_lines: list[str]) -> EnvError:
    log = _write_log(resolution.key, log_lines)
    return EnvError(f"{' '.join(resolution.spec.pins)}: {_uv_reason(stderr)}", log)


def _has_system_record(env: Path) -> bool:
    try:
        return "system" in json.loads((env / MANIFEST).read_text())
    except (OSError, ValueError):
        return False


def _attach_system(env: Path) -> None:
    """Give the environment the system packages its installed distributions need at run time
    (`envs.system`); one that cannot be had is recorded, and the tests that need it will say
    what is missing."""
    dists = env.glob("lib/python*/site-packages/*.dist-info")
    packages = system.packages_for(d.name.split("-")[0] for d in dists)
    manifest = json.loads((env / MANIFEST).read_text())
    record: dict[str, object] = {"packages": list(packages)}
    if packages:
        try:
            (env / system.LINK).symlink_to(system.root_for(packages))
        except (system.SystemError_, OSError) as exc:
            record["error"] = str(exc)
    manifest["system"] = record
    (env / MANIFEST).write_text(json.dumps(manifest, indent=2))


def _bytecode(env: Path, interpreter: Interpreter) -> tuple[int, int]:
    """Give every module of the environment its .pyc, compiling only what no environment has.

    uv hardlinks package files from its cache, so the same wheel's sources are the same inodes
    in every environment, and their bytecode (keyed by interpreter, inode, mtime and size) is
    the same bytes. Each .pyc is hardlinked from a store; only sources never seen before are
    compiled. Returns (linked, compiled).
    """
    store = envs_dir() / ".bytecode"
    store.mkdir(parents=True, exist_ok=True)
    tag = f"cpython-{interpreter.version[0]}{interpreter.version[1]}"
    missing: list[tuple[Path, Path, Path]] = []
    linked = 0
    for source in env.glob("lib/python*/site-packages/**/*.py"):
        st = source.stat()
        stored = store / f"{tag}-{st.st_dev}-{st.st_ino}-{st.st_mtime_ns}-{st.st_size}.pyc"
        pyc = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        if stored.exists():
            pyc.parent.mkdir(exist_ok=True)
            with contextlib.suppress(FileExistsError):
                os.link(stored, pyc)
            linked += 1
        else:
            missing.append((source, pyc, stored))
    if missing:
        _compile(env, [source for source, _, _ in missing])
        for _, pyc, stored in missing:
            with contextlib.suppress(OSError):  # unreadable source, or another filesystem
                os.link(pyc, stored)
    return linked, len(missing)


def _compile(env: Path, sources: list[Path]) -> None:
    """Compile `sources` with the environment's own interpreter, in parallel."""
    subprocess.run(
        # -S: no site, so no installed package's `.pth` or `sitecustomize` runs on the host
        [str(env / "bin" / "python"), "-S", "-m", "compileall", "-q", "-j", "0", "-i", "-"],
        input="\n".join(map(str, sources)),
        text=True,
        capture_output=True,
        check=False,  # a module that does not compile on this interpreter is not our failure
    )


def _uv_reason(stderr: str) -> str:
    """The line of uv's error output a person needs first."""
    lines = [line.strip(" ×╰─▶│").strip() for line in stderr.splitlines() if line.strip()]
    causes = [
        line.removeprefix("cause:").strip()
        for line in lines
        if line.lower().startswith(("cause:", "because", "caused by"))
    ]
    errors = [line for line in lines if line.lower().startswith(("error", "failed"))]
    picked = causes[:1] or errors[:1] or lines[-1:] or ["uv failed without a message"]
    return picked[0][:400]


def _write_log(key: str, lines: list[str]) -> Path:
    log_dir = envs_dir() / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"{key}.log"
    log.write_text("\n".join(lines))
    return log


def _touch(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.utime(path / MANIFEST)


def list_envs() -> list[dict[str, object]]:
    """Manifests of the built environments, with their size and last use."""
    rows: list[dict[str, object]] = []
    root = envs_dir()
    if not root.is_dir():
        return rows
    for manifest in sorted(root.glob(f"*/{MANIFEST}")):
        try:
            row: dict[str, object] = json.loads(manifest.read_text())
        except (OSError, ValueError):
            continue
        row["path"] = str(manifest.parent)
        row["last_used"] = manifest.stat().st_mtime
        rows.append(row)
    return rows


def find(key_prefix: str) -> Path:
    matches = [Path(str(r["path"])) for r in list_envs() if str(r["key"]).startswith(key_prefix)]
    if len(matches) != 1:
        raise EnvError(
            f"{'no' if not matches else 'more than one'} environment matches {key_prefix!r}"
        )
    return matches[0]


def gc(older_than_days: float | None = None) -> list[Path]:
    """Remove environments unused for `older_than_days` (all when None) and leftover scratch."""
    root = envs_dir()
    removed = sdists.gc(everything=older_than_days is None)
    if not root.is_dir():
        return removed
    cutoff = time.time() - older_than_days * 86400 if older_than_days is not None else None
    for row in list_envs():
        if cutoff is None or float(str(row["last_used"])) < cutoff:
            path = Path(str(row["path"]))
            with FileLock(str(root / f".{path.name}.lock")):
                shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    for scratch in root.glob(".build-*"):
        pid = scratch.name.rsplit("-", 1)[-1]
        if not pid.isdigit() or not Path(f"/proc/{pid}").exists():
            shutil.rmtree(scratch, ignore_errors=True)
            removed.append(scratch)
    if older_than_days is None:  # everything goes, remembered build failures too
        for memo in (root / ".failed").glob("*.json"):
            memo.unlink(missing_ok=True)
    for pyc in (root / ".bytecode").glob("*.pyc"):
        with contextlib.suppress(OSError):
            if pyc.stat().st_nlink == 1:  # no environment links it any more
                pyc.unlink()
    return removed
