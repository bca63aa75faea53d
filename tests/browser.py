"""Shared pieces of the real-browser tests: Debian's headless Chromium driven by
Playwright for Python, against the service in a thread on a free 127.0.0.1 port."""

import os
import shutil
from contextlib import contextmanager

import pytest
from django.db import connections
from django.test.testcases import LiveServerThread, _StaticFilesHandler
from django.test.utils import override_settings

from tests.browser_pages import WIDTHS, sign_in

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
# Without the background-networking flags Chromium tries, and fails, to reach
# Google's hosts on this machine's closed network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Every layout test runs once at a phone's width and once at a laptop's.
by_width = pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])


def require_browser() -> None:
    """Skip outside CI when Playwright or Chromium is missing; in CI that is a failure."""
    missing = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = "playwright is not installed"
    if missing is None and not os.path.exists(CHROMIUM):
        missing = f"no Chromium at {CHROMIUM}"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; CI must run the browser tests (.ci/run installs chromium)")
        pytest.skip(missing)


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


@contextmanager
def chromium_page(width: int | None = None, **context_options):
    """A page of a fresh headless Chromium, ``width`` px wide and 800 tall (Playwright's default
    viewport without ``width``), closed on leaving. Make rows before entering and read them after
    leaving: Django's ORM refuses to run inside Playwright's event loop."""
    require_browser()
    from playwright.sync_api import sync_playwright

    if width is not None:
        context_options["viewport"] = {"width": width, "height": 800}
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            yield browser.new_context(**context_options).new_page()
        finally:
            browser.close()


@contextmanager
def signed_in_page(service: str, email: str, width: int | None = None, next_path: str = "/", **context_options):
    """``chromium_page`` signed in through the sign-in form as ``email``, on ``next_path``."""
    with chromium_page(width, **context_options) as page:
        sign_in(page, service, email, next_path=next_path)
        yield page


@pytest.fixture
def service():
    """The service in a thread on a free 127.0.0.1 port, with BASE_URL/APP_URL pointing at it."""
    overrides = {}
    for conn in connections.all():
        if conn.vendor == "sqlite" and conn.is_in_memory_db():
            overrides[conn.alias] = conn
            conn.inc_thread_sharing()  # the in-memory database is shared with the server thread
    thread = LiveServerThread("127.0.0.1", _StaticFilesHandler, connections_override=overrides, port=0)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    base = f"http://127.0.0.1:{thread.port}"
    with override_settings(BASE_URL=base, APP_URL=base, ALLOWED_HOSTS=["127.0.0.1", "testserver"]):
        yield base
    thread.terminate()
    for conn in overrides.values():
        conn.dec_thread_sharing()
