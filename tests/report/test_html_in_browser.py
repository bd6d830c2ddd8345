"""The HTML report in a real headless Chromium (Debian's): plots render, no console errors,
filtering works, a row opens its details. Screenshots land in artifacts/ for a person to see."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, sync_playwright
from typer.testing import CliRunner

from pinbench.cli import app
from tests.report.conftest import IDS, REPO, run_ids

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = REPO / "artifacts"
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def _open(path: Path, shot: str, check: callable) -> None:  # type: ignore[valid-type]
    errors: list[str] = []
    with sync_playwright() as playwright:
        # Chromium's singleton socket lives under $TMPDIR, and a socket path has 107 bytes
        env = {**os.environ, "TMPDIR": "/tmp"} if len(tempfile.gettempdir()) > 40 else None
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, env=env)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})

            def on_console(message: ConsoleMessage) -> None:
                if message.type == "error":
                    errors.append(message.text)

            page.on("console", on_console)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.route(
                "**/*",
                lambda route: (
                    route.abort()
                    if not route.request.url.startswith("file:")
                    else route.continue_()
                ),
            )
            page.goto(path.as_uri())
            check(page)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / shot), full_page=True)
        finally:
            browser.close()
    assert errors == []


def _plots_render(page: Page, count: int) -> None:
    figures = page.locator("figure.plot svg")
    assert figures.count() == count
    for index in range(count):
        box = figures.nth(index).bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 100


def test_report_renders_and_a_row_opens_its_details(results: Path, tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    result = CliRunner().invoke(
        app, ["report", run_ids(results)[0], "--html", str(html), "--results", str(results)]
    )
    assert result.exit_code == 0, result.output

    def check(page: Page) -> None:
        _plots_render(page, 5)
        assert page.locator("#details").is_hidden()
        page.locator(f'tr.row[data-id="{IDS[1]}"]').click()
        assert page.locator("#details").is_visible()
        assert page.locator("#details-title").inner_text() == IDS[1]
        assert "NameError" in page.locator("#d-prompt").inner_text()
        assert "def " in page.locator("#d-program").inner_text()
        assert "hidden test" in page.locator("#d-test").inner_text()
        page.fill("#filter", IDS[2])
        visible = [r for r in page.locator("tr.row").all() if r.is_visible()]
        assert len(visible) == 1 and visible[0].get_attribute("data-id") == IDS[2]

    _open(html, "report.png", check)


def test_compare_renders_one_series_per_run(results: Path, tmp_path: Path) -> None:
    html = tmp_path / "compare.html"
    result = CliRunner().invoke(
        app, ["compare", *run_ids(results), "--html", str(html), "--results", str(results)]
    )
    assert result.exit_code == 0, result.output

    def check(page: Page) -> None:
        _plots_render(page, 4)
        assert page.locator("#leaderboard tr").count() == 3  # header + two runs
        legend = page.locator("figure.plot svg").first.inner_html()
        for run in run_ids(results):
            assert run in legend

    _open(html, "compare.png", check)
