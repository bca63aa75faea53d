"""Screenshots of the home, consent, API keys, connected apps and activity pages at a
phone's width (375 px) and a laptop's (1280 px), into docs/screenshots/.

    .venv/bin/python scripts/screenshots.py [--out DIR]

Runs the service in this process on a free loopback port against a throwaway SQLite
database, fills one account through the same services the pages show (the browser
tests' ``tests/browser_pages.populate``), and drives Debian's headless Chromium with
Playwright (``CHROMIUM_PATH`` to use another build). Nothing outside the output
directory is written.
"""

import argparse
import os
import secrets
import socket
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("home", "consent", "api-keys", "connected-apps", "activity")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def configure(base: str, database: Path) -> None:
    """The service's settings for this run, before Django reads them."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "BASE_URL": base,
            "APP_URL": base,
            "DATABASE_URL": f"sqlite:///{database}",
            "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        }
    )
    for name in ("REDIS_URL", "DOCS_URL", "DEBUG"):  # the quick start's in-process limiter and default docs
        os.environ.pop(name, None)
    sys.path.insert(0, str(ROOT))


def serve(port: int) -> None:
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadedWSGIServer(("127.0.0.1", port), QuietHandler, allow_reuse_address=True)
    server.set_app(WSGIHandler())
    threading.Thread(target=server.serve_forever, daemon=True).start()


def shoot(base: str, account, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    from tests.browser import launch_chromium
    from tests.browser_pages import WIDTHS, sign_in

    written = []
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for width in WIDTHS:
                page = browser.new_context(viewport={"width": width, "height": 800}).new_page()
                sign_in(page, base, account.email, account.password)
                for name in PAGES:
                    if name == "home":
                        page.goto(f"{base}/")
                    elif name == "consent":
                        page.goto(account.authorize_url)
                        page.wait_for_selector("#consent")
                    else:
                        page.goto(f"{base}/settings/{name}")
                    if name == "api-keys":
                        page.wait_for_selector("#keys tbody tr")
                    path = out / f"{name}-{width}.png"
                    page.screenshot(path=str(path), full_page=True)
                    written.append(path)
                page.context.close()
        finally:
            browser.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as scratch:
        configure(base, Path(scratch) / "screenshots.sqlite3")
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", verbosity=0, interactive=False)
        from tests.browser_pages import populate

        account = populate(base)
        serve(port)
        for path in shoot(base, account, args.out):
            print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()
