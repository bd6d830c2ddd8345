"""What the plan learns from uv's failures: later cutoffs where a wheel exists, else the exact
version the resolution needs built from source (in the sandbox)."""

from __future__ import annotations

from datetime import date

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pinbench.envs.python import era, sdists

# uv 0.13.9's words for mitmproxy 7.0.0 (2021) on Python 3.9: blinker 1.4 has only an sdist.
BLINKER = """error: No solution found when resolving dependencies
  cause: Because blinker==1.4 has no usable wheels and only the following versions of blinker are available:
             blinker<=1.4
             blinker>=1.5
         we can conclude that blinker>=1.4,<1.5 cannot be used.
         And because mitmproxy>=7.0.0 depends on blinker>=1.4,<1.5 and you require mitmproxy==7.0.0, we can conclude that your requirements are unsatisfiable.

hint: Wheels are required for `blinker` because building from source is disabled for all packages (i.e., with `--no-build`)
"""  # noqa: E501


def test_the_version_the_resolution_needs_is_the_one_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(era, "first_wheel", lambda name, python: None)  # no date helps
    plan = era.Plan(as_of=date(2021, 7, 17))
    assert plan.learn(BLINKER, (3, 9))
    assert plan.pending == {"blinker": SpecifierSet("==1.4")}
    assert "--no-build" in plan.uv_args()


def test_a_built_version_the_resolution_rejects_is_built_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first build chose another version (the newest sdist before the cutoff): uv names the
    one it needs, and that one is built; the same version named again is not retried."""
    monkeypatch.setattr(era, "first_wheel", lambda name, python: None)
    plan = era.Plan(as_of=date(2021, 7, 17))
    plan.built["blinker"] = Version("1.5")
    assert plan.learn(BLINKER, (3, 9)) and plan.pending == {"blinker": SpecifierSet("==1.4")}
    plan.pending.clear()
    plan.built["blinker"] = Version("1.4")
    assert not plan.learn(BLINKER, (3, 9))  # nothing more to try: uv's error stands


def test_a_later_wheel_comes_before_a_build(monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime

    monkeypatch.setattr(era, "first_wheel", lambda name, python: datetime(2022, 7, 17, tzinfo=UTC))
    plan = era.Plan(as_of=date(2021, 7, 17))
    assert plan.learn(BLINKER, (3, 9))
    assert plan.pending == {} and plan.cutoffs["blinker"] == date(2022, 7, 18)


PYPERCLIP = """  cause: Because pyperclip>=1.6.0,<=1.8.2 has no usable wheels and only the following versions of pyperclip are available:
             pyperclip<=1.8.2
             pyperclip>=1.9
hint: Wheels are required for `pyperclip` because building from source is disabled for all packages (i.e., with `--no-build`)
"""  # noqa: E501


def test_a_range_without_wheels_is_built_inside_the_range() -> None:
    """mitmproxy 9.0.1 needs pyperclip<1.9; only 1.9 and later have wheels. The plan asks for
    what uv says has none, and the build takes the newest sdist inside it, not 1.10."""
    plan = era.Plan(as_of=date(2022, 11, 3))
    plan.cutoffs["pyperclip"] = date(2026, 1, 1)  # raised already: no later date helps
    assert plan.learn(PYPERCLIP, (3, 10))
    needed = plan.pending["pyperclip"]
    assert needed == SpecifierSet(">=1.6.0,<=1.8.2")
    sdist = sdists.choose("pyperclip", (3, 10), pinned=None, cutoff=None, needed=needed)
    assert sdist.version == Version("1.8.2") and sdist.filename.endswith((".tar.gz", ".zip"))
