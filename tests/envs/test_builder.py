"""Environments: content-addressed, reused, locked, never left half-built."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.paths import envs_dir, uv_cache_dir
from pinbench.envs.python import builder
from pinbench.envs.python.builder import Resolution, ensure, resolve
from pinbench.envs.python.interpreters import Interpreter, discover

pytestmark = pytest.mark.integration

PYTEST_PIN = "pytest==8.3.4"


def _interp(version: tuple[int, int, int]) -> Interpreter:
    return Interpreter(version, Path(f"/opt/python{version[0]}.{version[1]}"))


def test_key_changes_with_every_part_of_the_spec() -> None:
    base = Resolution(
        EnvSpec(version="3.9", pins=("numpy==1.21.6",)), _interp((3, 9, 18)), None, None
    )
    variants = [
        Resolution(
            EnvSpec(version="3.9", pins=("numpy==1.21.5",)), _interp((3, 9, 18)), None, None
        ),
        Resolution(base.spec, _interp((3, 9, 17)), None, None),
        Resolution(base.spec, _interp((3, 9, 18)), date(2022, 1, 1), None),
        Resolution(
            EnvSpec(version="3.9", pins=("numpy==1.21.6",), extras=("pytest",)),
            _interp((3, 9, 18)),
            None,
            None,
        ),
    ]
    keys = {base.key, *(v.key for v in variants)}
    assert len(keys) == 1 + len(variants)
    same = Resolution(
        EnvSpec(version="3.9", pins=("numpy==1.21.6",)), _interp((3, 9, 18)), None, None
    )
    assert same.key == base.key


def test_pin_order_does_not_change_the_key() -> None:
    a = Resolution(EnvSpec(version="3.9", pins=("a==1", "b==2")), _interp((3, 9, 1)), None, None)
    b = Resolution(EnvSpec(version="3.9", pins=("b==2", "a==1")), _interp((3, 9, 1)), None, None)
    assert a.key == b.key


def test_same_spec_is_reused_and_works() -> None:
    spec = EnvSpec(version="3.11", pins=(PYTEST_PIN,))
    first = ensure(spec)
    second = ensure(spec)
    assert second.reused and second.path == first.path
    out = subprocess.run(
        [str(second.python), "-c", "import pytest; print(pytest.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "8.3.4"
    manifest = json.loads((second.path / builder.MANIFEST).read_text())
    assert manifest["key"] == second.key and manifest["pins"] == [PYTEST_PIN]


def test_as_of_is_the_day_after_the_pins_first_usable_upload() -> None:
    resolution = resolve(EnvSpec(version="3.9", pins=("numpy==1.21.6",)))
    assert resolution.as_of == date(2022, 4, 13)


def test_transitive_dependencies_are_period_correct() -> None:
    env = ensure(EnvSpec(version="3.9", pins=("pandas==1.3.5",)))
    out = subprocess.run(
        [str(env.python), "-c", "import numpy, pandas; print(numpy.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    major, minor = (int(x) for x in out.stdout.strip().split(".")[:2])
    assert (major, minor) <= (1, 21)  # numpy as of pandas 1.3.5 (Dec 2021), not numpy 2.x


def test_missing_interpreter_is_substituted_and_recorded() -> None:
    available = tuple(discover())
    resolution = resolve(EnvSpec(version="3.5", pins=(PYTEST_PIN,)), available)
    assert resolution.interpreter.version[:2] != (3, 5)
    assert resolution.substitution is not None and "3.5 is not installed" in resolution.substitution


def test_interpreter_without_wheels_for_the_pins_is_substituted() -> None:
    # numpy 1.21.6 ships wheels for cp37-cp310 only
    resolution = resolve(EnvSpec(version="3.12", pins=("numpy==1.21.6",)))
    assert resolution.interpreter.version[:2] == (3, 10)
    assert resolution.substitution is not None
    assert "cannot install the pins" in resolution.substitution


def test_no_interpreter_at_all_is_a_clear_error() -> None:
    with pytest.raises(EnvError, match="no Python interpreter"):
        resolve(EnvSpec(version="3.9", pins=(PYTEST_PIN,)), available=())


def test_failed_build_leaves_no_half_env_and_keeps_its_log() -> None:
    spec = EnvSpec(version="3.11", pins=("pinbench-no-such-package-xyz==1.0",))
    resolution = resolve(spec)
    with pytest.raises(EnvError) as caught:
        builder.build(resolution)
    assert "pinbench-no-such-package-xyz" in str(caught.value)
    assert caught.value.log is not None and caught.value.log.is_file()
    assert "uv pip install" in caught.value.log.read_text()
    assert not (envs_dir() / resolution.key).exists()
    assert not list(envs_dir().glob(f".build-{resolution.key}-*"))


def test_concurrent_builders_of_one_key_wait_and_build_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "PINBENCH_HOME": str(home), "UV_CACHE_DIR": str(uv_cache_dir())}
    code = (
        "from pinbench.envs.python.builder import ensure; from pinbench.core.env import EnvSpec;"
        f"e = ensure(EnvSpec(version='3.11', pins=({PYTEST_PIN!r},))); print(e.reused, e.path)"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=300)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len({out[1] for out in outputs}) == 1
    assert sorted(out[0] for out in outputs) == ["False", "True", "True"]


def test_second_environment_of_the_same_wheels_costs_under_5_mb(tmp_path: Path) -> None:
    first = ensure(EnvSpec(version="3.11", pins=(PYTEST_PIN,)))
    # a different spec (extra pin already among pytest's dependencies): new key, same wheels
    second = ensure(EnvSpec(version="3.11", pins=(PYTEST_PIN, "iniconfig==2.0.0")))
    assert second.key != first.key
    private = 0
    for path in second.path.rglob("*"):
        st = path.lstat()
        if path.is_file() and not path.is_symlink() and st.st_nlink == 1:
            private += st.st_blocks * 512
    assert private < 5 << 20, f"{private / 2**20:.1f} MB not shared"
    bytecode = json.loads((second.path / builder.MANIFEST).read_text())["bytecode"]
    if not second.reused:  # built now: its wheels' bytecode came from the store, not compiled
        assert bytecode["linked"] > 50 and bytecode["compiled"] <= 5, bytecode
    pycs = list(second.path.glob("lib/python*/site-packages/_pytest/__pycache__/*.pyc"))
    assert len(pycs) > 20


def test_gc_removes_environments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("UV_CACHE_DIR", str(uv_cache_dir()))
    env = ensure(EnvSpec(version="3.11", pins=(PYTEST_PIN,)))
    assert [row["key"] for row in builder.list_envs()] == [env.key]
    assert builder.find(env.key[:8]) == env.path
    assert builder.gc(older_than_days=1) == []
    assert builder.gc() == [env.path]
    assert not env.path.exists() and builder.list_envs() == []
    assert not list((envs_dir() / ".bytecode").glob("*.pyc"))  # unused bytecode pruned too


def test_dependencies_without_wheels_in_the_era_move_to_their_first_fitting_wheel() -> None:
    # scipy 1.1.0 has cp37 wheels, but numpy as of its release (May 2018) had none for 3.7:
    # numpy alone moves to the first months with cp37 wheels; nothing is compiled.
    env = ensure(EnvSpec(version="3.7", pins=("scipy==1.1.0",)))
    assert env.resolution.interpreter.minor == "3.7" and env.resolution.substitution is None
    era = json.loads((env.path / builder.MANIFEST).read_text())["era"]
    assert era["source_builds"] == []
    assert date.fromisoformat(era["cutoffs"]["numpy"]) > date(2018, 5, 6)
    numpy = _run(env.python, "import numpy, scipy; print(numpy.__version__, scipy.__version__)")
    assert numpy.split()[1] == "1.1.0" and numpy.startswith("1.")


def test_an_old_pin_on_a_new_interpreter_gets_wheels_not_builds() -> None:
    # jsonschema 3.2.0 (Nov 2019) needs pyrsistent, which had no cp310 wheels until 2021.
    env = ensure(EnvSpec(version="3.10", pins=("jsonschema==3.2.0",)))
    era = json.loads((env.path / builder.MANIFEST).read_text())["era"]
    assert era["source_builds"] == [] and "pyrsistent" in era["cutoffs"]
    assert _run(env.python, "import jsonschema; print(jsonschema.__version__)") == "3.2.0"


@pytest.mark.parametrize(("python", "pytest_version"), [("3.7", "7.4.4"), ("3.10", "8.4.2")])
def test_harness_pytest_fits_the_interpreter_not_the_libraries_era(
    python: str, pytest_version: str
) -> None:
    # six 1.12.0 is of Dec 2018: pytest of that era lacks what the runner's plugin needs and
    # cannot compile its assertion rewrites on 3.10.
    env = ensure(EnvSpec(version=python, pins=("six==1.12.0",), extras=("pytest",)))
    code = "import pytest, _pytest.reports, six; print(pytest.__version__, six.__version__)"
    assert _run(env.python, code) == f"{pytest_version} 1.12.0"


def test_a_problem_that_pins_pytest_keeps_its_pin() -> None:
    env = ensure(EnvSpec(version="3.9", pins=("pytest==6.2.5",), extras=("pytest",)))
    assert _run(env.python, "import pytest; print(pytest.__version__)") == "6.2.5"


def test_a_pin_published_only_as_source_builds_on_the_requested_interpreter() -> None:
    # tornado 6.0.4 has wheels for Windows only: the usual way (pip) builds it, so must we.
    resolution = resolve(EnvSpec(version="3.9", pins=("tornado==6.0.4",)))
    assert resolution.interpreter.minor == "3.9"
    assert resolution.substitution is not None and "source builds" in resolution.substitution
    env = ensure(EnvSpec(version="3.9", pins=("tornado==6.0.4",)))
    assert json.loads((env.path / builder.MANIFEST).read_text())["era"]["source_builds"] == [
        "tornado"
    ]
    assert _run(env.python, "import tornado; print(tornado.version)") == "6.0.4"


def test_a_source_build_runs_todays_setuptools_and_installs_the_eras() -> None:
    # tornado 5.0.0 (2018) is an sdist only; setuptools of 2018 calls HTMLParser.unescape,
    # which Python 3.9 removed, so it cannot build there. The usual way (pip) builds with
    # today's setuptools, as the sandboxed build does, in a build environment of its own; the
    # environment keeps setuptools of the era, but no older than the interpreter (that of
    # 2018 does not even import on 3.10).
    env = ensure(EnvSpec(version="3.10", pins=("tornado==5.0.0",)))
    era = json.loads((env.path / builder.MANIFEST).read_text())["era"]
    assert era["source_builds"] == ["tornado"]  # and nothing else
    (wheel,) = era["built_wheels"]
    assert wheel.startswith("tornado-5.0-cp310-")
    code = "import tornado, setuptools; print(tornado.version, setuptools.__version__)"
    tornado, installed = _run(env.python, code).split()
    assert tornado == "5.0"
    assert 57 <= int(installed.split(".")[0]) < 60  # of October 2021, Python 3.10's release


def test_a_source_build_finds_the_system_library_it_needs() -> None:
    # rtree 0.9.3 is an sdist whose build and import load libspatialindex_c by name.
    from pinbench.core.outcome import Status
    from pinbench.core.tests import TestKind, TestSpec
    from pinbench.envs import system
    from pinbench.sandbox.execute import execute

    env = ensure(EnvSpec(version="3.10", pins=("geopandas==0.10.0", "rtree==0.9.3")))
    assert (env.path / system.LINK).is_symlink()
    # rtree alone is built: fiona of 2021 (a dependency) has no cp310 wheel, and built from
    # source it needs GDAL; its first release with one is taken instead
    era = json.loads((env.path / builder.MANIFEST).read_text())["era"]
    assert era["source_builds"] == ["rtree"] and "fiona" in era["cutoffs"], era
    program = "from rtree import index\nidx = index.Index()\nidx.insert(7, (0, 0, 1, 1))\n"
    test = TestSpec(kind=TestKind.SCRIPT, code="assert list(idx.intersection((0, 0, 2, 2))) == [7]")
    result = execute(env.python, program, test)
    assert result.status is Status.PASSED, (result.message, result.stderr[-1000:])


def test_a_failed_build_is_remembered_and_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PINBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("UV_CACHE_DIR", str(uv_cache_dir()))
    spec = EnvSpec(version="3.11", pins=("pytest==8.3.4", "pluggy==0.13.1"))  # unsatisfiable
    with pytest.raises(EnvError) as first:
        ensure(spec)
    assert "remembered" not in str(first.value)
    calls: list[object] = []
    monkeypatch.setattr(builder, "_ensure", lambda *a: calls.append(a))
    with pytest.raises(EnvError, match="remembered failure") as again:
        ensure(spec)
    assert calls == [] and str(first.value) in str(again.value)
    builder.gc()  # forgets it
    assert ensure(spec) is None and len(calls) == 1


def _run(python: Path, code: str) -> str:
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_dataset_harness_installs_after_the_pins_as_that_harness_does() -> None:
    # GitChameleon's harness installs scipy==1.7.1 after `pillow==7.0.0 numpy==1.16`, and pip
    # moves numpy to what scipy needs; resolved at once, the two would conflict.
    spec = EnvSpec(version="3.7", pins=("pillow==7.0.0", "numpy==1.16"), harness=("scipy==1.7.1",))
    env = ensure(spec)
    code = "import PIL, numpy, scipy; print(PIL.__version__, numpy.__version__, scipy.__version__)"
    pillow, numpy, scipy = _run(env.python, code).split()
    assert (pillow, scipy) == ("7.0.0", "1.7.1")
    assert tuple(int(x) for x in numpy.split(".")[:3]) >= (1, 16, 5)


def test_a_yanked_release_is_installed_when_pinned_exactly() -> None:
    # networkx 2.6 was yanked; an exact pin still installs it (PEP 592), as pip does.
    env = ensure(EnvSpec(version="3.9", pins=("networkx==2.6",)))
    assert _run(env.python, "import networkx; print(networkx.__version__)") == "2.6"


@pytest.mark.parametrize(
    ("pin", "minor"), [("networkx==1.11", "3.6"), ("networkx==2.0", "3.6"), ("geopy==2.0.0", "3.8")]
)
def test_with_no_python_asked_the_interpreter_is_of_the_pins_era(pin: str, minor: str) -> None:
    # GitChameleon 1.0 has no Python column: networkx 1.11 (2016) ships a pure-Python wheel
    # that installs on 3.13, where it cannot import (fractions.gcd is gone).
    resolution = resolve(EnvSpec(version=None, pins=(pin,)))
    assert resolution.interpreter.minor == minor
