"""End-to-end fixtures: Debian's Chromium driven by Playwright against pytest-django's
live server (WSGI, in a thread of this process) over the real fixture cases.

Playwright's sync API runs an event loop in the test thread, so Django's guard against
database access from async code must be lifted for these tests.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

# The same search as scripts/ensure-chromium.sh (which `make test` runs first).
CHROMIUM = Path(
    os.environ.get("CHROMIUM")
    or shutil.which("chromium")
    or shutil.which("chromium-browser")
    or "/usr/bin/chromium"
)
AXE_JS = Path(os.environ.get("AXE_JS", "var/npm/node_modules/axe-core/axe.min.js"))
if not AXE_JS.is_absolute():
    AXE_JS = Path(settings.BASE_DIR) / AXE_JS
SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots"
# Quiet, offline Chromium: no sandbox (root in CI), no GPU, no calls home.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
]
DESKTOP = {"width": 1280, "height": 900}


# Module scope, not session: Playwright's sync API keeps an event loop running in the main
# thread while it is open, and later tests that call `anyio.run` (the MCP tests) fail
# with "Already running asyncio in this thread" if it outlives this folder's tests.
@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: `make browser` finds or installs one")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def site(live_server, transactional_cases) -> str:
    """Base URL of the live server, with the real cases imported."""
    return live_server.url


@pytest.fixture
def open_page(browser, site) -> Iterator:
    """`open_page(path, width=1280, height=900)` -> a Playwright page at `site + path`.

    Every request for another host is refused and recorded; the test fails if a page asked
    for anything outside this machine (fonts, scripts, images from a CDN...).
    """
    contexts = []
    outside: list[str] = []
    host = urlsplit(site).netloc

    def refuse_outside(route):
        if urlsplit(route.request.url).netloc != host:
            outside.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    def open_(path: str, *, width: int = DESKTOP["width"], height: int = DESKTOP["height"]):
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(15_000)
        context.route("**/*", refuse_outside)
        contexts.append(context)
        page = context.new_page()
        page.goto(site + path)
        return page

    yield open_
    for context in contexts:
        context.close()
    assert outside == [], f"pages requested other hosts: {outside}"


def sign_in(page, user: str, path: str) -> None:
    """On the admin's login page (`/admin/login/?next=<path>`), sign `user` in with the
    password `make_user` gives it (`pw-<user>`); returns once the browser is at `path`."""
    page.get_by_label("Username").fill(user)
    page.get_by_label("Password").fill(f"pw-{user}")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: urlsplit(url).path == urlsplit(path).path)


def run_axe(page) -> list[dict]:
    """axe-core's violations on the page, as dicts with id, impact, help and node targets."""
    if not AXE_JS.exists():
        pytest.fail(f"{AXE_JS} is missing: `make test` installs axe-core from the npm registry")
    # Evaluated through the DevTools protocol: a <script> tag would be refused by the
    # page's Content-Security-Policy (no inline scripts), as it should be.
    page.evaluate(AXE_JS.read_text(encoding="utf-8") + "\n;undefined")
    result = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => n.target.join(' '))}))"
    )
    return result
