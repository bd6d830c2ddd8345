"""The Node toolchain against the real registry: exact releases, npm's resolution, the
content-addressed store, and one clear error per kind of bad request."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from pinbench.core.env import EnvError, EnvSpec
from pinbench.core.outcome import Status
from pinbench.envs import ensure
from pinbench.envs.node import registry, releases
from pinbench.envs.node.builder import NodeEnvironment, split_pin
from pinbench.envs.node.store import unpack_into
from pinbench.tasks.generation.problem import Problem, env_spec_for
from pinbench.validation import Verdict, validate
from tests.node.conftest import OLD_NODE


def _version(env: NodeEnvironment, package: str) -> str:
    manifest = env.path / "node_modules" / package / "package.json"
    return str(json.loads(manifest.read_text())["version"])


def test_the_pinned_node_and_packages_are_what_the_environment_holds(
    lodash3: NodeEnvironment,
) -> None:
    out = subprocess.run([str(lodash3.node), "--version"], capture_output=True, text=True)
    assert out.stdout.strip() == f"v{OLD_NODE}"
    assert _version(lodash3, "lodash") == "3.10.1"
    assert _version(lodash3, "expect") == "26.6.2"
    manifest = json.loads((lodash3.path / "pinbench-env.json").read_text())
    assert manifest["node_version"] == OLD_NODE and manifest["packages"] > 10
    assert lodash3.interpreter.exists()  # the sandbox's runner starts from it


def test_the_same_spec_is_the_same_environment(lodash3: NodeEnvironment) -> None:
    again = ensure(lodash3.spec)
    assert again.path == lodash3.path and again.reused


def test_a_second_environment_of_the_same_packages_is_hard_links(
    lodash3: NodeEnvironment,
) -> None:
    other = ensure(lodash3.spec.model_copy(update={"version": None}))  # the machine's Node
    assert isinstance(other, NodeEnvironment) and other.path != lodash3.path
    first = lodash3.path / "node_modules" / "lodash" / "index.js"
    second = other.path / "node_modules" / "lodash" / "index.js"
    assert first.stat().st_ino == second.stat().st_ino  # one copy in the store
    # what the second environment adds on disk: directories and the files npm writes
    unique = sum(
        p.stat().st_blocks * 512
        for p in other.path.rglob("*")
        if p.is_file() and not p.is_symlink() and p.stat().st_nlink == 1
    )
    assert unique < 1 << 20


def test_an_unpublished_version_is_one_clear_error() -> None:
    with pytest.raises(EnvError, match=r"lodash@3\.99\.1 is not published"):
        ensure(EnvSpec(toolchain="node", version=None, pins=("lodash@3.99.1",)))


def test_an_unpublished_node_release_is_one_clear_error() -> None:
    with pytest.raises(EnvError, match=r"Node 11\.99\.99 is not published"):
        ensure(EnvSpec(toolchain="node", version="11.99.99", pins=()))


def test_a_node_line_means_its_newest_release() -> None:
    assert releases.exact("16").startswith("16.20.")
    with pytest.raises(EnvError, match="not like"):
        releases.exact("sixteen")


def test_pins_must_be_name_at_version() -> None:
    assert split_pin("@types/node@18.19.3") == ("@types/node", "18.19.3")
    with pytest.raises(ValueError, match="not like"):
        split_pin("lodash")
    with pytest.raises(EnvError, match="not like"):
        ensure(EnvSpec(toolchain="node", version=None, pins=("lodash>=4",)))


def test_a_tarball_must_match_its_integrity(tmp_path: Path) -> None:
    assert registry.verify(b"abc", "sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")
    assert not registry.verify(b"abd", "sha1-qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")
    assert registry.verify(b"abc", "a9993e364706816aba3e25717850c26c9cd0d89d")


def test_a_tarball_cannot_write_outside_its_directory(tmp_path: Path) -> None:
    archive = tmp_path / "evil.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        data = b"pwned"
        info = tarfile.TarInfo("package/../../escaped.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(tarfile.TarError):
        unpack_into(archive, tmp_path / "out")
    assert not (tmp_path / "escaped.txt").exists()


@pytest.mark.integration
def test_a_package_that_needs_its_install_script_is_named_as_the_environments_fault() -> None:
    """bcrypt builds a native addon in its install script, which pinbench never runs: the
    environment says so, validation's load check names it, and a sample failing on it is the
    environment's outcome, not the program's."""
    solution = "const bcrypt = require('bcrypt');\nmodule.exports = { n: () => 1 };\n"
    test = {"kind": "jest", "code": "test('n', () => {});\n", "module": "solution"}
    problem = Problem.model_validate(
        {
            "id": "bcrypt-5.1-01",
            "language": "javascript",
            "library": "bcrypt",
            "version": "5.1.1",
            "node_version": "16.20.2",
            "problem": "p",
            "starter_code": "const bcrypt = require('bcrypt');\n",
            "solution": solution,
            "hidden_test": test,
        }
    )
    env = ensure(env_spec_for(problem))
    assert isinstance(env, NodeEnvironment)
    assert "bcrypt@5.1.1" in env.install_scripts_not_run
    (report,) = validate([problem], jobs=1)
    assert report.verdict is Verdict.UNVERIFIED
    check = report.checks["imports"]
    assert check.status is Status.ENVIRONMENT_ERROR
    assert "install scripts pinbench does not run" in check.detail
    assert "bcrypt@5.1.1" in check.detail
    assert report.checks["hidden_test"].status is Status.ENVIRONMENT_ERROR
    assert "native addon" in report.checks["hidden_test"].detail
