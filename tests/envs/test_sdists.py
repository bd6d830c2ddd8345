"""Source builds and environment builds run no dataset content on the host.

A source distribution's build script runs in the sandbox (no network, no host files, none of
the host's secrets); the wheel it sends back is checked before it is kept; installed packages'
startup hooks (`.pth`, `sitecustomize`) never run on the host while an environment is built.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import io
import json
import shutil
import socket
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.version import Version

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Status
from pinbench.core.paths import uv_cache_dir
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs.python import builder, index, sdists
from pinbench.envs.python.interpreters import Interpreter, discover
from pinbench.sandbox.execute import execute
from pinbench.sandbox.probe import detect
from pinbench.sandbox.warm import WarmPools

pytestmark = pytest.mark.integration

_HOSTILE_SETUP = """
import json, os, socket
from setuptools import setup

seen = {}
target = open("target.txt").read().strip()
try:
    open(target, "w").write("the build wrote on the host")
    seen["wrote_host_file"] = True
except OSError as exc:
    seen["wrote_host_file"] = False
seen["secret"] = os.environ.get("PINBENCH_TEST_SECRET")
sock = socket.socket()
sock.settimeout(2)
seen["reached_host_port"] = sock.connect_ex(("127.0.0.1", int(open("port.txt").read()))) == 0
seen["home"] = os.environ.get("HOME")
os.makedirs("hostile", exist_ok=True)
with open("hostile/__init__.py", "w") as fh:
    fh.write("SEEN = %r\\n" % (json.dumps(seen),))
setup(name="hostile", version="1.0", packages=["hostile"])
"""


def _sdist(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as bundle:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"hostile-1.0/{name}")
            info.size = len(data)
            bundle.addfile(info, io.BytesIO(data))
    return path


def _interpreter(minor: str = "3.11") -> Interpreter:
    for interp in discover():
        if interp.minor == minor:
            return interp
    pytest.skip(f"no Python {minor} here")


def _offer(monkeypatch: pytest.MonkeyPatch, archive: Path) -> index.DistFile:
    """The index is PyPI; a hostile sdist cannot be published there for a test, so the
    download is a copy of a local archive, checked against its sha256 as a download is."""
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()

    def copy(name: str, sdist: index.DistFile, target: Path) -> None:
        shutil.copyfile(archive, target)
        assert hashlib.sha256(target.read_bytes()).hexdigest() == sdist.sha256

    monkeypatch.setattr(sdists, "_download", copy)
    return index.DistFile(archive.name, Version("1.0"), None, None, None, sha256=digest)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("UV_CACHE_DIR", str(uv_cache_dir()))
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))
    return tmp_path


def test_a_build_script_runs_confined_and_its_wheel_is_kept(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PINBENCH_TEST_SECRET", "hunter2")
    marker = home / "written-by-the-build"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    archive = _sdist(
        home / "hostile-1.0.tar.gz",
        {"setup.py": _HOSTILE_SETUP, "target.txt": str(marker), "port.txt": str(port)},
    )
    try:
        built = sdists.wheel_for("hostile", _offer(monkeypatch, archive), _interpreter())
    finally:
        listener.close()
    assert not marker.exists()  # the host's files are not the build's
    with zipfile.ZipFile(built.wheel) as wheel:
        seen = wheel.read("hostile/__init__.py").decode()
    facts = json.loads(ast.literal_eval(seen.removeprefix("SEEN = ")))
    assert facts["wrote_host_file"] is False
    assert facts["secret"] is None  # no host variable reaches it
    assert facts["reached_host_port"] is False  # no network, not even the host's loopback
    assert facts["home"] == "/tmp/pinbench-work"
    assert built.wheel.parent.parent == sdists.store_dir() and built.version == Version("1.0")
    # Kept: asked again, the store answers and nothing is built.
    monkeypatch.setattr(sdists, "_build", lambda *a: pytest.fail("built twice"))
    assert sdists.wheel_for("hostile", _offer(monkeypatch, archive), _interpreter()) == built


def test_a_failed_build_is_one_clear_error_remembered_with_its_log(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = (
        "import sys\nprint('compiling hostile.c ... error: no compiler for this')\nsys.exit(1)\n"
    )
    archive = _sdist(home / "hostile-1.0.tar.gz", {"setup.py": setup})
    with pytest.raises(sdists.BuildFailed, match=r"building hostile==1\.0 .* sandbox failed") as e:
        sdists.wheel_for("hostile", _offer(monkeypatch, archive), _interpreter())
    assert e.value.log is not None and "no compiler for this" in e.value.log.read_text()
    monkeypatch.setattr(sdists, "_build", lambda *a: pytest.fail("a remembered failure ran"))
    with pytest.raises(sdists.BuildFailed, match="remembered failure"):
        sdists.wheel_for("hostile", _offer(monkeypatch, archive), _interpreter())


@pytest.mark.parametrize(
    ("filename", "reason"),
    [
        ("other-1.0-py3-none-any.whl", "sent back 'other"),  # another package
        ("hostile-2.0-py3-none-any.whl", "sent back 'hostile-2.0"),  # another version
        ("hostile-1.0-cp27-cp27m-win32.whl", "not for Python"),  # not installable here
        ("hostile-1.0-py3-none-any.whl", "broken wheel"),  # not a zip
    ],
)
def test_a_wheel_the_build_sends_back_is_checked(
    filename: str, reason: str, tmp_path: Path
) -> None:
    with pytest.raises(sdists.BuildFailed, match=reason):
        sdists._check_wheel(filename, b"not a zip", "hostile", Version("1.0"), (3, 11), tmp_path)


def test_build_requirements_are_read_as_data_and_direct_references_refused(tmp_path: Path) -> None:
    declared = '[build-system]\nrequires = ["setuptools>=61", "cython<3"]\n'
    archive = _sdist(tmp_path / "a.tar.gz", {"pyproject.toml": declared})
    assert sdists.build_requirements(archive) == ["setuptools>=61", "cython<3", "wheel", "pip"]
    bare = _sdist(tmp_path / "b.tar.gz", {"setup.py": "raise SystemExit('never run here')"})
    assert sdists.build_requirements(bare) == ["setuptools>=40.8.0", "wheel", "pip"]
    direct = '[build-system]\nrequires = ["evil @ file:///tmp/evil"]\n'
    with pytest.raises(sdists.BuildFailed, match="direct reference"):
        sdists.build_requirements(_sdist(tmp_path / "c.tar.gz", {"pyproject.toml": direct}))


def _digest(text: str) -> str:
    raw = hashlib.sha256(text.encode()).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _wheel_with_startup_hook(directory: Path, marker: Path) -> Path:
    """A wheel whose `.pth` runs code at every interpreter start: on the host it would write
    `marker`; in the sandbox it leaves a variable the program can see."""
    write = f"try:\n open({str(marker)!r}, 'w').write('ran on the host')\nexcept OSError: pass"
    hook = f"import os; os.environ['PINBENCH_EVIL_PTH'] = 'ran'; exec({write!r})\n"
    files = {
        "evil_hook.pth": hook,
        "evil-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
        "evil-1.0.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = [f"{name},sha256={_digest(text)},{len(text.encode())}" for name, text in files.items()]
    files["evil-1.0.dist-info/RECORD"] = "\n".join([*record, "evil-1.0.dist-info/RECORD,,"]) + "\n"
    wheel = directory / "evil-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as bundle:
        for name, text in files.items():
            bundle.writestr(name, text)
    return wheel


def test_an_installed_packages_startup_hook_never_runs_on_the_host(home: Path) -> None:
    marker = home / "hook-ran-on-the-host"
    wheel = _wheel_with_startup_hook(home, marker)
    # A harness install after the pins: uv works on the environment once the hook is in it.
    spec = EnvSpec(version="3.11", pins=(f"evil @ {wheel.as_uri()}",), harness=("six==1.16.0",))
    env = builder.ensure(spec)
    assert not marker.exists()
    assert (env.path / "lib" / "python3.11" / "site-packages" / "evil_hook.pth").is_file()
    # The hook is real: the environment's interpreter runs it, in the sandbox.
    program = "import os\nassert os.environ.get('PINBENCH_EVIL_PTH') == 'ran'\n"
    test = TestSpec(kind=TestKind.SCRIPT, code="pass")
    result = execute(env.python, program, test)
    assert result.status is Status.PASSED, (result.message, result.stderr[-500:])
    pools = WarmPools(detect(), per_env=1)
    try:  # a warm server enables the hooks once isolated too
        warm = execute(env.python, program, test, warm=pools, preload=("json",))
    finally:
        pools.close()
    assert warm.status is Status.PASSED and warm.path == "warm", (warm.message, warm.stderr)
    assert not marker.exists()


def test_gc_forgets_built_wheels_and_remembered_failures(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = "from setuptools import setup\nsetup(name='hostile', version='1.0', py_modules=[])\n"
    archive = _sdist(home / "hostile-1.0.tar.gz", {"setup.py": setup})
    built = sdists.wheel_for("hostile", _offer(monkeypatch, archive), _interpreter())
    memo = sdists.store_dir() / ".failed" / "other-1.0-cp311-v1.log"
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text("failed")
    assert builder.gc(older_than_days=30) == [] and built.wheel.exists()  # still in use
    removed = builder.gc()
    assert built.wheel in removed and not built.wheel.exists() and not memo.exists()


def test_a_build_that_runs_out_of_time_is_not_remembered(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deadline on a busy machine is not the package's fault: the next environment that
    needs the wheel tries again; its log is kept all the same."""
    setup = "import time\ntime.sleep(60)\n"
    archive = _sdist(home / "hostile-1.0.tar.gz", {"setup.py": setup})
    monkeypatch.setattr(sdists, "LIMITS", sdists.LIMITS.model_copy(update={"wall_seconds": 3}))
    with pytest.raises(sdists.BuildFailed, match="timeout") as first:
        sdists.wheel_for("hostile", _offer(monkeypatch, archive), _interpreter())
    assert not first.value.lasting and first.value.log is not None and first.value.log.is_file()
    with pytest.raises(sdists.BuildFailed, match="timeout") as again:  # built again, not memo
        sdists.wheel_for("hostile", _offer(monkeypatch, archive), _interpreter())
    assert "remembered" not in str(again.value)
