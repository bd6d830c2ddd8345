"""`pinbench view` in a real headless Chromium (Debian's): runs → run → filters → a sample's
rounds and diff → compare; hostile text stays text; a run in progress updates live. Every test
fails on a console error, a dialog, or a request to anywhere but the server's own origin.
Screenshots land in artifacts/ for a person to see."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Route, expect, sync_playwright

from pinbench.evaluation.config import RunConfig
from pinbench.store.runs import RunStore
from pinbench.view.server import ViewServer
from tests.view.conftest import (
    HOSTILE_ID,
    HOSTILE_LIBRARY,
    HOSTILE_MESSAGE,
    PROBLEMS,
    REPO,
    Runs,
    finish_run,
    record_chain,
)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = REPO / "artifacts"
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
    pytest.mark.timeout(180),
]
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        # Chromium's singleton socket lives under $TMPDIR, and a socket path has 107 bytes
        env = {**os.environ, "TMPDIR": "/tmp"} if len(tempfile.gettempdir()) > 40 else None
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, env=env)
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Watch:
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)


@contextmanager
def opened(browser: Browser, server: ViewServer, shot: str) -> Iterator[Page]:
    """A page that records console errors, dialogs and every request, and aborts any request
    that leaves the server's origin; all must be clean when the test is done."""
    origin = server.url.rstrip("/")
    watch = Watch()
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watch.errors.append(message.text)

    def guard(route: Route) -> None:
        if route.request.url.startswith(origin + "/"):
            route.continue_()
        else:
            watch.outside.append(route.request.url)
            route.abort()

    page.on("console", on_console)
    page.on("pageerror", lambda exc: watch.errors.append(str(exc)))
    page.on("dialog", lambda dialog: (watch.dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: watch.requests.append(request.url))
    page.route("**/*", guard)
    try:
        yield page
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / shot), full_page=True)
    finally:
        context.close()
    assert watch.errors == []
    assert watch.dialogs == []
    assert watch.outside == []
    assert watch.requests and all(u.startswith(origin + "/") for u in watch.requests)


def _plots_load(page: Page) -> None:
    images = page.locator("figure.plot img")
    expect(images).to_have_count(5)
    for image in images.all():
        image.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('figure.plot img')]"
        ".every(i => i.complete && i.naturalWidth > 200)"
    )


def _records(runs: Runs, run_id: str) -> list[tuple[str, int, int, int, str]]:
    with RunStore.at(runs.results) as store:
        return [(r.problem_id, r.seed, r.sample, r.round, r.status) for r in store.samples(run_id)]


def test_runs_run_filters_sample_and_compare(
    browser: Browser, server: ViewServer, runs: Runs
) -> None:
    records = _records(runs, runs.feedback)
    with opened(browser, server, "view-run.png") as page:
        page.goto(server.url)
        expect(page.locator("#runs tbody tr")).to_have_count(2)
        page.locator(f'tr.run[data-id="{runs.feedback}"] a').click()
        expect(page.locator("h1")).to_contain_text(runs.feedback)
        expect(page.locator("#scores tbody tr")).to_have_count(2)  # round 0 and round 1
        expect(page.locator(".breakdown")).to_have_count(3)
        _plots_load(page)
        expect(page.locator("#samples-total")).to_have_text(str(len(records)))

        page.select_option("#filters select[name=status]", "failed")
        failed = [r for r in records if r[4] == "failed"]
        expect(page.locator("#samples-total")).to_have_text(str(len(failed)))
        assert re.search(r"#/run/\w+/samples\?status=failed$", page.url)
        statuses = page.locator("#samples tbody td:nth-child(6)").all_inner_texts()
        assert statuses and set(statuses) == {"failed"}

        page.fill("#filters input[name=q]", "alpha-02")
        alpha = [r for r in failed if r[0] == "alpha-02"]
        expect(page.locator("#samples-total")).to_have_text(str(len(alpha)))

        page.locator("#filters button", has_text="clear").click()
        expect(page.locator("#samples-total")).to_have_text(str(len(records)))
        page.select_option("#filters select[name=round]", "1")
        expect(page.locator("#samples-total")).to_have_text(str(sum(r[3] == 1 for r in records)))
        page.locator("#samples tbody tr a").first.click()

        expect(page.locator("section.round")).to_have_count(2)
        expect(page.locator("#round-1 .diff .add").first).to_contain_text("return 1")
        expect(page.locator("#round-1 .diff .del").first).to_contain_text("return 0")
        expect(page.locator("#round-0 .prompt").last).to_contain_text("(round 0)")
        expect(page.locator("pre.test-hidden")).not_to_be_empty()

        page.go_back()  # the filtered run page, from history
        expect(page.locator("#samples-total")).to_have_text(str(sum(r[3] == 1 for r in records)))
        page.goto(f"{server.url}#/runs")
        for run_id in (runs.feedback, runs.other):
            page.locator(f'tr.run[data-id="{run_id}"] input[type=checkbox]').check()
        page.locator("#compare").click()
        expect(page.locator("#deltas tbody tr").first).to_contain_text("pass@1")
        expect(page.locator("#compare-problems tbody tr")).to_have_count(len(PROBLEMS))
        page.select_option("select[name=sort]", "-delta")
        expect(page.locator("#compare-problems tbody tr").first).to_be_visible()
        assert "sort=-delta" in page.url


def test_hostile_text_stays_text(browser: Browser, server: ViewServer, runs: Runs) -> None:
    with opened(browser, server, "view-hostile.png") as page:
        quoted = urllib.parse.quote(HOSTILE_ID, safe="")
        page.goto(f"{server.url}#/run/{runs.feedback}/sample/{quoted}/0/0")
        expect(page.locator("#sample-title")).to_have_text(HOSTILE_ID)
        expect(page.locator("main")).to_contain_text(f"Problem {HOSTILE_MESSAGE}")
        expect(page.locator("pre.prompt").last).to_contain_text("<b>bold</b>")
        assert page.locator("b:text-is('bold'), i, main script, main img").count() == 0
        page.goto(f"{server.url}#/run/{runs.feedback}/samples?outcome=failed&q=evil")
        expect(page.locator("#samples tbody td.msg").first).to_contain_text(HOSTILE_MESSAGE)
        expect(page.locator(".breakdown").first).to_contain_text(HOSTILE_LIBRARY)
        _plots_load(page)
        assert page.locator("img[src='x']").count() == 0
        assert page.locator("i, b:text-is('bold')").count() == 0
        assert page.locator("script").count() == 1  # app.js alone


def test_a_run_in_progress_updates_live(
    browser: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    results = tmp_path_factory.mktemp("live")
    config = RunConfig(model="replay:live", dataset="view-live", n=2, seeds=2, feedback_rounds=1)
    chains = [(i, m.id, seed, sample) for i, m in enumerate(PROBLEMS) for seed in (0, 1)
              for sample in (0, 1)]  # fmt: skip
    with RunStore.at(results) as store:
        store.start_run(config.run_id, config.model_dump(mode="json"), model_name="live")
        store.record_problems(config.run_id, list(PROBLEMS))
        for index, problem, seed, sample in chains[:3]:
            record_chain(store, config.run_id, "live", index, problem, seed, sample, 1)
        with (
            ViewServer(RunStore.path_at(results)).start() as server,
            opened(browser, server, "view-live.png") as page,
        ):
            page.goto(f"{server.url}#/run/{config.run_id}")
            expect(page.locator("#live")).to_be_visible()
            expect(page.locator("#p-samples")).to_have_text("3")
            before = int(page.locator("#samples-total").inner_text())
            for index, problem, seed, sample in chains[3:10]:
                record_chain(store, config.run_id, "live", index, problem, seed, sample, 1)
            expect(page.locator("#p-samples")).to_have_text("10", timeout=15_000)
            expect(page.locator("#samples-total")).not_to_have_text(str(before))
            for index, problem, seed, sample in chains[10:]:
                record_chain(store, config.run_id, "live", index, problem, seed, sample, 1)
            finish_run(store, config.run_id, config)
            expect(page.locator("#live")).to_be_hidden(timeout=15_000)
            expect(page.locator("#scores tbody tr")).to_have_count(2)  # the final summary
            expect(page.locator("#p-status")).to_have_text("finished")


def test_a_bad_address_shows_an_error_not_a_broken_page(
    browser: Browser, server: ViewServer, tmp_path: Path
) -> None:
    errors: list[str] = []
    context = browser.new_context()
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{server.url}#/run/ffffffffffff")
        expect(page.locator("#error")).to_contain_text("no run 'ffffffffffff'")
        page.goto(f"{server.url}#/runs")
        expect(page.locator("#error")).to_be_hidden()
        expect(page.locator("#runs")).to_be_visible()
    finally:
        context.close()
    assert errors == []  # the 404 is reported on the page (the console logs the failed fetch)
