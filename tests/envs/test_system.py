"""System packages an environment needs (ffmpeg for audioread), unpacked from Debian's."""

from __future__ import annotations

import json
import shutil

import pytest

from pinbench.core.env import EnvSpec
from pinbench.core.outcome import Limits, Status
from pinbench.core.tests import TestKind, TestSpec
from pinbench.envs import system
from pinbench.envs.python import builder
from pinbench.envs.python.builder import ensure
from pinbench.sandbox.execute import execute

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs Debian's apt"),
]

# audioread decodes through the ffmpeg program: a sine made by ffmpeg, read back by audioread.
PROGRAM = """
import os, subprocess, audioread
path = os.path.join(os.environ["HOME"], "sine.ogg")
made = subprocess.run(
    ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5", path]
)
"""
TEST = """
assert made.returncode == 0
with audioread.audio_open(path) as f:
    assert f.samplerate > 0 and abs(f.duration - 0.5) < 0.1
"""


def test_an_environment_with_audioread_gets_ffmpeg_in_the_sandbox_without_a_host_install() -> None:

    env = ensure(EnvSpec(version="3.11", pins=("audioread==3.0.1",)))
    record = json.loads((env.path / builder.MANIFEST).read_text())["system"]
    assert record == {"packages": ["ffmpeg"]}, record
    root = (env.path / system.LINK).resolve()
    assert (root / "root" / "usr" / "bin" / "ffmpeg").is_file()
    test = TestSpec(kind=TestKind.SCRIPT, code=TEST)
    result = execute(env.python, PROGRAM, test, Limits(wall_seconds=60, cpu_seconds=60))
    assert result.status is Status.PASSED, (result.message, result.stderr[-2000:])


def test_an_environment_without_such_packages_has_no_system_root() -> None:
    env = ensure(EnvSpec(version="3.11", pins=("pytest==8.3.4",)))
    record = json.loads((env.path / builder.MANIFEST).read_text())["system"]
    assert record == {"packages": []}
    assert not (env.path / system.LINK).exists()
    assert system.sandbox_paths(env.path) == ([], [])


def test_a_library_loaded_by_name_is_found_in_the_sandbox() -> None:
    # soundfile 0.10 (librosa 0.7's) calls ctypes.util.find_library('sndfile'): it needs the
    # development name libsndfile.so, which only Debian's -dev package would provide.
    env = ensure(EnvSpec(version="3.9", pins=("numpy==1.21.6", "soundfile==0.10.2")))
    record = json.loads((env.path / builder.MANIFEST).read_text())["system"]
    assert record == {"packages": ["libsndfile1"]}, record
    program = "import numpy, soundfile\nsoundfile.write('/tmp/x.wav', numpy.zeros(800), 8000)\n"
    test = TestSpec(kind=TestKind.SCRIPT, code="assert soundfile.info('/tmp/x.wav').frames == 800")
    result = execute(env.python, program, test, Limits(wall_seconds=60, cpu_seconds=60))
    assert result.status is Status.PASSED, (result.message, result.stderr[-2000:])
