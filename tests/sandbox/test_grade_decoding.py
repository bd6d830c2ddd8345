"""The host decodes what comes back on the proof channel as untrusted data: a record with the
right nonce but fields of the wrong type or shape, or nested past any decoder's depth, fails the
sample (a named failure type) and never becomes a harness or environment outcome."""

from __future__ import annotations

import json

import pytest

from pinbench.core.outcome import Execution, Status
from pinbench.sandbox.grade import grade

NONCE = "n" * 32
BASE = Execution(status=Status.HARNESS_ERROR)


def _graded(proof: bytes, returncode: int = 1) -> Execution:
    return grade(
        proof=proof,
        nonce=NONCE,
        returncode=returncode,
        timed_out=False,
        output_exceeded=False,
        base=BASE,
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"status": "failed", "tests": [1, 2]},
        {"status": "failed", "tests": "x"},
        {"status": "failed", "exc_type": 7},
        {"status": "failed", "uid": "root"},
        {"status": "failed", "exc_type": {"nested": True}},
    ],
    ids=["tests-list", "tests-str", "exc-int", "uid-str", "exc-dict"],
)
def test_a_genuine_record_of_the_wrong_shape_fails_the_sample(fields: dict[str, object]) -> None:
    result = _graded(json.dumps({"nonce": NONCE, **fields}).encode() + b"\n")
    assert result.status is Status.FAILED and result.exc_type == "MalformedProof", result
    assert result.status.is_scored


def test_a_record_nested_past_the_decoder_fails_as_a_forgery() -> None:
    result = _graded(b"[" * 100_000 + b"\n")
    assert result.status is Status.FAILED and result.exc_type == "ProofForgery"


def test_a_well_formed_record_is_still_read() -> None:
    record = {"nonce": NONCE, "status": "passed", "tests": {"collected": 2, "passed": 2}}
    result = _graded(json.dumps(record).encode() + b"\n", returncode=0)
    assert result.status is Status.PASSED and result.tests == {"collected": 2, "passed": 2}


@pytest.mark.parametrize("status", ["harness_error", "environment_error", "no-such-status"])
def test_an_infrastructure_status_stated_by_a_record_is_marked_as_the_program_s_claim(
    status: str,
) -> None:
    """Only the harness's own evidence can take a sample out of the denominator: a record's
    word for it is a claim the runner weighs against the reference (tests/test_infrastructure_
    claims.py)."""
    result = _graded(json.dumps({"nonce": NONCE, "status": status}).encode() + b"\n")
    assert result.status.is_infrastructure and result.claimed


def test_a_missing_resource_in_the_error_text_is_a_claim_too() -> None:
    record = {"nonce": NONCE, "status": "failed", "exc_type": "LookupError",
              "message": "Resource wordnet not found. nltk.download('wordnet')"}  # fmt: skip
    result = _graded(json.dumps(record).encode() + b"\n")
    assert result.status is Status.ENVIRONMENT_ERROR and result.claimed
