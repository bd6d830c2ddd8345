"""The repository build agent: snapshots, declared dependencies, resolution, rejections."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import tarfile
import textwrap
from pathlib import Path

import pytest

from pinbench.core import snapshots
from pinbench.execution.local import ExecutionService
from pinbench.tasks.ide import build as build_mod
from pinbench.tasks.ide import repo as repo_mod
from pinbench.tasks.ide.build import build_repo, declared_requirements
from pinbench.tasks.ide.repo import RepoRejected
from tests.ide.conftest import write_repo


def _repo(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


# ------------------------------------------------------------------ snapshots


def test_snapshot_keeps_text_and_binary_files_and_skips_vcs_venvs_caches(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    (root / "venv" / "lib").mkdir(parents=True)
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr")
    (root / "myenv").mkdir()
    (root / "myenv" / "pyvenv.cfg").write_text("home = /usr")
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "x.pyc").write_bytes(b"\0\1")
    (root / "logo.png").write_bytes(b"\x89PNG\0\0")
    snap = snapshots.take(root)
    assert "pkg/shapes.py" in snap.files and "tests/test_shapes.py" in snap.files
    assert not [f for f in snap.files if f.startswith((".git/", "venv/", "myenv/"))]
    assert not [f for f in snap.files if "__pycache__" in f]
    assert snap.binary == ("logo.png",) and "logo.png" not in snap.files  # never read as text
    assert snap.skipped == ()
    assert snap.pythonpath == ("",)


def test_snapshot_keeps_sources_in_legacy_encodings_and_reads_them_line_for_line(
    tmp_path: Path,
) -> None:
    # Newtonsoft.Json 6.0.8's CollectionUtils.cs is Windows-1252: once left out as "binary",
    # the library did not compile
    root = tmp_path / "r"
    root.mkdir()
    (root / "Latin.cs").write_bytes(b"// caf\xe9 \x93quoted\x94 \x81\nclass A {}\n")
    (root / "Wide.cs").write_bytes("// h\u00e9\nclass B {}\n".encode("utf-16"))
    (root / "Plain.cs").write_text("class C {}\n")
    (root / "blob.bin").write_bytes(b"\x01\x02\x03\x04" * 64)
    (root / "nul.dat").write_bytes(b"text\0more")
    snap = snapshots.take(root)
    assert set(snap.files) == {"Latin.cs", "Wide.cs", "Plain.cs"}
    assert set(snap.binary) == {"blob.bin", "nul.dat"} and snap.skipped == ()
    assert snap.read("Latin.cs") == "// caf\u00e9 \u201cquoted\u201d \x81\nclass A {}\n"
    assert snap.read("Wide.cs") == "// h\u00e9\nclass B {}\n"
    assert snap.read("Plain.cs") == "class C {}\n"


def test_snapshot_binary_files_are_kept_up_to_a_budget_and_oversized_files_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # commons-csv's JiraCsv248Test reads a serialized CSVRecord (csvRecord.bin): left out as
    # binary, the test failed in every baseline
    monkeypatch.setattr(snapshots, "_MAX_BINARY_BYTES", 1000)
    root = write_repo(tmp_path / "r")
    (root / "tests" / "a.bin").write_bytes(b"\xac\xed\0\5" * 200)  # 800 bytes
    (root / "tests" / "b.bin").write_bytes(b"\0" * 300)  # past the budget
    (root / "big.txt").write_text("x" * ((1 << 20) + 1))
    snap = snapshots.take(root)
    assert snap.binary == ("tests/a.bin",)
    assert set(snap.skipped) == {"tests/b.bin", "big.txt"}
    assert snapshots.binary_tree(snap.digest) == {
        "tests/a.bin": base64.b64encode(b"\xac\xed\0\5" * 200).decode()
    }
    assert any("left out 2 files over 1 MB" in n for n in snapshots.left_out_note(snap))
    archive = tmp_path / "r.tar.gz"  # a binary file travels with its snapshot
    snapshots.export(snap.digest, archive)
    assert snapshots.import_archive(archive, snap.digest).binary == snap.binary
    (root / "tests" / "a.bin").write_bytes(b"\xac\xed\0\6" * 200)
    assert snapshots.take(root).digest != snap.digest  # the digest names binary content too


@pytest.mark.integration
def test_a_repository_test_reads_its_binary_fixture_byte_for_byte(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r")
    data = bytes(range(256)) * 4
    (root / "tests" / "fixture.bin").write_bytes(data)
    (root / "tests" / "test_fixture.py").write_text(
        "import hashlib, pathlib\n\n"
        "def test_fixture():\n"
        "    data = (pathlib.Path(__file__).parent / 'fixture.bin').read_bytes()\n"
        f"    assert hashlib.sha256(data).hexdigest() == {hashlib.sha256(data).hexdigest()!r}\n"
    )
    service = ExecutionService(jobs=1)
    try:
        build, _ = build_repo(root, service)
    finally:
        service.close()
    assert build.baseline.outcomes["tests/test_fixture.py::test_fixture"] == "passed"


def test_snapshot_digest_names_the_content(tmp_path: Path) -> None:
    a = snapshots.take(write_repo(tmp_path / "a"))
    b = snapshots.take(write_repo(tmp_path / "b"))
    assert a.digest == b.digest  # same content, other place
    (tmp_path / "b" / "pkg" / "shapes.py").write_text("x = 1\n")
    assert snapshots.take(tmp_path / "b").digest != a.digest


def test_snapshot_of_a_src_layout_puts_src_on_the_path(tmp_path: Path) -> None:
    root = _repo(tmp_path / "s", {"src/lib/__init__.py": "", "tests/test_x.py": "x = 1\n"})
    assert snapshots.take(root).pythonpath == ("src", "")


def test_snapshot_round_trips_through_an_archive_and_checks_its_digest(tmp_path: Path) -> None:
    snap = snapshots.take(write_repo(tmp_path / "r"))
    archive = tmp_path / "r.tar.gz"
    snapshots.export(snap.digest, archive)
    assert snapshots.import_archive(archive, snap.digest).digest == snap.digest
    assert snapshots.take(archive).digest == snap.digest  # an archive is a repository too
    with pytest.raises(snapshots.SnapshotError, match="expected"):
        snapshots.import_archive(archive, "0" * 20)


def test_snapshot_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(snapshots.SnapshotError, match="no such repository"):
        snapshots.take(tmp_path / "missing")
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"not an archive")
    with pytest.raises(snapshots.SnapshotError, match="cannot unpack"):
        snapshots.take(bad)
    with pytest.raises(snapshots.SnapshotError, match="not in"):
        snapshots.load("f" * 20)
    with tarfile.open(tmp_path / "evil.tar.gz", "w:gz") as tar:
        (tmp_path / "x").write_text("x")
        tar.add(tmp_path / "x", arcname="../../escape.py")
    with pytest.raises(snapshots.SnapshotError):
        snapshots.take(tmp_path / "evil.tar.gz")


# ------------------------------------------------------------------ declared dependencies


def test_requirements_from_pyproject_with_test_extras_and_groups(tmp_path: Path) -> None:
    root = _repo(
        tmp_path / "p",
        {
            "pyproject.toml": """\
                [project]
                name = "demo"
                requires-python = ">=3.9"
                dependencies = ["attrs>=22", "demo[extra]"]
                [project.optional-dependencies]
                test = ["hypothesis==6.0"]
                docs = ["sphinx"]
                [dependency-groups]
                dev = ["pytest-mock", {include-group = "test"}]
                """,
        },
    )
    reqs, sources, python, _ = declared_requirements(snapshots.take(root))
    assert reqs == ["attrs>=22", "demo[extra]", "hypothesis==6.0", "pytest-mock"]
    assert sources == ["pyproject.toml"] and str(python) == ">=3.9"


def test_requirements_from_setup_cfg_setup_py_literals_and_requirement_files(
    tmp_path: Path,
) -> None:
    root = _repo(
        tmp_path / "c",
        {
            "setup.cfg": """\
                [options]
                python_requires = >=3.8
                install_requires =
                    six==1.16.0
                    # a comment
                [options.extras_require]
                testing = mock
                """,
            "setup.py": """\
                from setuptools import setup
                deps = compute()
                setup(install_requires=["idna"], extras_require=deps)
                """,
            "requirements.txt": "-r requirements/base.txt\nrequests==2.31.0  # pinned\n-e .\n",
            "requirements/base.txt": "urllib3<3\ngit+https://example.org/x.git\n",
        },
    )
    reqs, sources, python, notes = declared_requirements(snapshots.take(root))
    assert reqs == ["six==1.16.0", "mock", "idna", "urllib3<3", "requests==2.31.0"]
    assert sources == ["setup.cfg", "setup.py", "requirements.txt", "requirements/base.txt"]
    assert str(python) == ">=3.8"
    assert any("setup.py computes extras_require" in n for n in notes)
    assert any("git+https" in n for n in notes)


@pytest.mark.integration
def test_resolution_records_exact_pins() -> None:
    pins = build_mod.resolve_pins(["six>=1.15,<1.17"], "3.11")
    assert pins == ["six==1.16.0"]


# ------------------------------------------------------------------ rejections


def _rejection(root: Path) -> str:
    """Why `build_repo` rejects the repository (the test fails if it is accepted)."""
    service = ExecutionService(jobs=1)
    try:
        with pytest.raises(RepoRejected) as rejected:
            build_repo(root, service)
    finally:
        service.close()
    return str(rejected.value)


@pytest.mark.integration
def test_unresolvable_dependencies_reject_the_repository_with_the_reason(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r")
    (root / "requirements.txt").write_text("pinbench-no-such-package-xyz==1.0\n")
    assert re.search(r"cannot be resolved.*pinbench-no-such-package", _rejection(root))


@pytest.mark.integration
def test_a_suite_over_the_limit_is_rejected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_repo(tmp_path / "r")
    (root / "tests" / "test_slow.py").write_text(
        "import time\n\ndef test_slow():\n    time.sleep(60)\n"
    )
    monkeypatch.setattr(repo_mod, "SUITE_LIMIT_SECONDS", 3.0)
    assert re.search("tests take over", _rejection(root))


def test_no_interpreter_for_requires_python_is_a_rejection(tmp_path: Path) -> None:
    root = _repo(tmp_path / "r", {"pyproject.toml": '[project]\nname="x"\nrequires-python=">=9"\n'})
    assert re.search("requires-python >=9", _rejection(root))


@pytest.mark.integration
def test_a_conftest_that_kills_the_run_rejects_the_repository(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r")
    (root / "conftest.py").write_text("import os\nos._exit(0)\n")
    assert re.search(r"test suite could not run.*before the tests", _rejection(root))


@pytest.mark.integration
def test_a_malformed_workspace_file_falls_back_to_derived_queries(tmp_path: Path) -> None:
    from pinbench.tasks.ide.cases import Kind, WorkspaceCase
    from pinbench.tasks.ide.collect import collect
    from pinbench.tasks.ide.selection import Context, Quotas

    root = write_repo(tmp_path / "r")
    (root / ".pinbench" / "workspace.json").write_text('{"query": "not a list"}')
    service = ExecutionService(jobs=1)
    try:
        build, env = build_repo(root, service)
        context = Context(build, env, snapshots.load(build.snapshot), service, Quotas())
        result = collect(context, [Kind.WORKSPACE])
    finally:
        service.close()
    assert any("workspace.json is not a list" in reason for reason in result.dropped)
    derived = [c for c in result.cases if isinstance(c, WorkspaceCase)]
    assert derived and all(c.keywords[0] in c.relevant[0] for c in derived)


def test_a_dataset_whose_snapshot_is_missing_is_one_clear_error(tmp_path: Path) -> None:
    from pinbench.core.datasets import DatasetError
    from pinbench.tasks.ide import dataset

    cases = tmp_path / "cases.jsonl"
    row = {
        "scenario": "doc", "id": "x", "repo": "r", "snapshot": "e" * 20,
        "env": {"python": "3.11", "pins": []}, "python_version": "3.11",
        "path": "a.py", "qualname": "f", "reference": "Do it.",
    }  # fmt: skip
    cases.write_text(json.dumps(row) + "\n")
    with pytest.raises(DatasetError, match=r"snapshot e+ unavailable"):
        dataset.read(cases)
