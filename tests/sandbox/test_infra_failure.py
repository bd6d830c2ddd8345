"""A program failing for what the machine lacks is an environment outcome, not a model failure."""

from __future__ import annotations

import pytest

from pinbench.core.outcome import Status
from pinbench.sandbox.infra_failure import missing_resource

from .conftest import Run


@pytest.mark.integration
def test_missing_shared_library_is_an_environment_error(run: Run) -> None:
    result = run("import ctypes\nctypes.CDLL('libpinbench-absent.so.1')", "assert True")
    assert result.status is Status.ENVIRONMENT_ERROR
    assert "system library" in result.message


@pytest.mark.integration
def test_missing_ffmpeg_is_an_environment_error(run: Run) -> None:
    result = run("import subprocess\nsubprocess.run(['ffmpeg', '-version'])", "assert True")
    assert result.status is Status.ENVIRONMENT_ERROR
    assert "system tool" in result.message


@pytest.mark.integration
def test_an_ordinary_missing_file_is_still_a_failure(run: Run) -> None:
    result = run("open('data.csv')", "assert True")
    assert result.status is Status.FAILED


@pytest.mark.parametrize(
    ("exc_type", "message", "lacking"),
    [
        (
            "LookupError",
            "\n  Resource punkt not found.\n  Please use the NLTK Downloader:\n"
            "  >>> import nltk\n  >>> nltk.download('punkt')",
            "NLTK data",
        ),
        ("OSError", "sndfile library not found", "system library"),
        ("OSError", "cannot load library 'libsndfile.so': error 0x2", "system library"),
        ("AssertionError", "assert 1 == 2", None),
        ("FileNotFoundError", "[Errno 2] No such file or directory: 'input.txt'", None),
    ],
)
def test_classification(exc_type: str, message: str, lacking: str | None) -> None:
    found = missing_resource(exc_type, message)
    assert (found is None) if lacking is None else (found is not None and lacking in found)
