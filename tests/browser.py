"""Shared pieces of the real-browser tests: Debian's headless Chromium driven by
Playwright for Python, against the service in a thread on a free 127.0.0.1 port."""

import os
import shutil

import pytest
from django.db import connections
from django.test.testcases import LiveServerThread, _StaticFilesHandler
from django.test.utils import override_settings

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
