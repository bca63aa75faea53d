"""A real browser through the whole consent flow: Debian's headless Chromium,
driven by Playwright for Python, against the service on a free 127.0.0.1 port.

Signs in, sees the consent page, allows, and lands on the client's redirect
URI with code, state and iss; the code is then exchanged for tokens. Unticking
scopes narrows what the code and tokens carry, and the sensitive-scope
confirmation is asked only while a sensitive scope stays ticked. Every consent
test runs at a phone's width and a laptop's.
"""

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest
from django.test import Client

from tests.browser import launch_chromium, require_browser
from tests.browser_pages import WIDTHS, assert_fits
from tests.support.factories import PASSWORD, UserFactory
from tests.support.oauth import exchange, make_client, pkce, query

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
by_width = pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])


class _Callback(BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>client</title><p>Connected.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def client_callback():
    """The client's own redirect target: a loopback server on a free port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Callback)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/callback"
    server.shutdown()
    server.server_close()


@by_width
def test_sign_in_consent_allow_lands_on_redirect_uri(service, client_callback, width):
    require_browser()
    from playwright.sync_api import sync_playwright

    user = UserFactory(email="grace@example.com", display_name="Grace Hopper")
    app = make_client(name="Pocket Assistant", redirect_uris="http://127.0.0.1/callback", registration_source="dcr")
    verifier, challenge = pkce()
    params = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": client_callback,  # registered without a port: loopback matches any port
        "scope": "rates:read calls:place",
        "state": "browser-state-42",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": f"{service}/v1",
    }

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page(viewport={"width": width, "height": 800})
            page.goto(f"{service}/oauth/authorize?{urlencode(params)}")
            # not signed in: the sign-in page first
            page.wait_for_url(re.compile(re.escape(f"{service}/login?next=/oauth/authorize")))
            page.fill("#id_username", user.email)
            page.fill("#id_password", PASSWORD)
            page.click("button[type=submit]")
            # ... then back, and on to the consent page
            page.wait_for_url(re.compile(re.escape(f"{service}/oauth/consent?transaction=otx_")))
            assert_fits(page, "consent")
            assert page.text_content("#client-name") == "Pocket Assistant"
            assert page.text_content("#registration").strip() == "Self-registered"
            assert page.text_content("#redirect-host") == "127.0.0.1"
            scopes = page.text_content("#scopes")
            assert "See what calls cost per minute to a number or a country, from the published price list." in scopes
            assert "Place calls from your account, which spends your credit." in scopes
            # the sensitive scope starts unticked: the user ticks it
            assert not page.is_checked("#scopes input[value='calls:place']")
            page.check("#scopes input[value='calls:place']")
            # a self-registered client asking a sensitive scope: Allow alone is refused
            page.click("#allow")
            page.wait_for_selector("#consent-error:not([hidden])")
            assert "Confirm" in page.text_content("#consent-error")
            page.check("#confirm-sensitive")
            page.click("#allow")
            page.wait_for_url(re.compile(re.escape(f"{client_callback}?")))
            landed = page.url
        finally:
            browser.close()

    params_back = query(landed)
    assert set(params_back) == {"code", "state", "iss"}
    assert params_back["state"] == "browser-state-42"
    assert params_back["iss"] == service
    response = exchange(
        Client(), app, params_back["code"], verifier, redirect_uri=client_callback, resource=f"{service}/v1"
    )
    assert response.status_code == 200, response.content
    assert response.json()["scope"] == "rates:read calls:place"


def consent_params(service, app, client_callback, challenge, scope) -> dict:
    return {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": client_callback,
        "scope": scope,
        "state": "granular",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": f"{service}/mcp",
    }


def open_consent(page, service, user, params) -> None:
    page.goto(f"{service}/login?" + urlencode({"next": f"/oauth/authorize?{urlencode(params)}"}))
    page.fill("#id_username", user.email)
    page.fill("#id_password", PASSWORD)
    page.click("form[action='/login'] button[type=submit]")
    page.wait_for_url(re.compile(re.escape(f"{service}/oauth/consent?transaction=otx_")))


@by_width
def test_unticking_the_sensitive_scopes_allows_without_the_confirmation(service, client_callback, width):
    require_browser()
    from playwright.sync_api import sync_playwright

    user = UserFactory(email="mary@example.com")
    app = make_client(name="Reader", redirect_uris="http://127.0.0.1/callback", registration_source="dcr")
    verifier, challenge = pkce()
    params = consent_params(service, app, client_callback, challenge, "rates:read calls:read calls:place")

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page(viewport={"width": width, "height": 800})
            open_consent(page, service, user, params)
            boxes = page.locator("#scopes input[name=scopes]")
            assert boxes.count() == 3
            assert [boxes.nth(n).is_checked() for n in range(3)] == [True, True, False]  # the sensitive one unticked
            assert page.is_hidden("#sensitive-confirmation")
            page.check("#scopes input[value='calls:place']")
            assert page.is_visible("#confirm-sensitive")

            page.uncheck("#scopes input[value='calls:place']")
            assert page.is_hidden("#sensitive-confirmation")  # no sensitive scope left ticked
            page.uncheck("#scopes input[value='calls:read']")
            assert_fits(page, "consent with scopes unticked")
            page.click("#allow")
            page.wait_for_url(re.compile(re.escape(f"{client_callback}?")))
            landed = page.url
        finally:
            browser.close()

    response = exchange(
        Client(), app, query(landed)["code"], verifier, redirect_uri=client_callback, resource=f"{service}/mcp"
    )
    assert response.status_code == 200, response.content
    assert response.json()["scope"] == "rates:read"


@by_width
def test_a_sensitive_scope_kept_ticked_still_needs_the_confirmation(service, client_callback, width):
    require_browser()
    from playwright.sync_api import sync_playwright

    user = UserFactory(email="annie@example.com")
    app = make_client(name="Caller", redirect_uris="http://127.0.0.1/callback", registration_source="dcr")
    verifier, challenge = pkce()
    params = consent_params(service, app, client_callback, challenge, "rates:read transcripts:read")

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page(viewport={"width": width, "height": 800})
            open_consent(page, service, user, params)
            page.uncheck("#scopes input[value='rates:read']")
            page.uncheck("#scopes input[value='transcripts:read']")
            assert page.is_disabled("#allow")  # nothing ticked: only Deny
            assert page.is_visible("#none-ticked")
            page.check("#scopes input[value='transcripts:read']")
            assert page.is_visible("#confirm-sensitive")
            page.click("#allow")
            page.wait_for_selector("#consent-error:not([hidden])")
            assert "Confirm" in page.text_content("#consent-error")
            page.check("#confirm-sensitive")
            page.click("#allow")
            page.wait_for_url(re.compile(re.escape(f"{client_callback}?")))
            landed = page.url
        finally:
            browser.close()

    response = exchange(
        Client(), app, query(landed)["code"], verifier, redirect_uri=client_callback, resource=f"{service}/mcp"
    )
    assert response.json()["scope"] == "transcripts:read"


@by_width
def test_deny_lands_on_the_redirect_uri_with_access_denied(service, client_callback, width):
    require_browser()
    from playwright.sync_api import sync_playwright

    user = UserFactory(email="hedy@example.com")
    app = make_client(name="Nosy", redirect_uris="http://127.0.0.1/callback", registration_source="dcr")
    _verifier, challenge = pkce()
    params = consent_params(service, app, client_callback, challenge, "rates:read calls:place")

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page(viewport={"width": width, "height": 800})
            open_consent(page, service, user, params)
            page.click("#deny")
            page.wait_for_url(re.compile(re.escape(f"{client_callback}?")))
            landed = page.url
        finally:
            browser.close()

    back = query(landed)
    assert back["error"] == "access_denied" and back["state"] == "granular"
    assert "code" not in back
