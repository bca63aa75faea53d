"""A real browser through the whole consent flow: Debian's headless Chromium,
driven by Playwright for Python, against the service on a free 127.0.0.1 port.

Signs in, sees the consent page, allows, and lands on the client's redirect
URI with code, state and iss; the code is then exchanged for tokens. Unticking
scopes narrows what the code and tokens carry, and the sensitive-scope
confirmation is asked only while a sensitive scope stays ticked. Every consent
test runs at a phone's width and a laptop's.
"""

import re
from urllib.parse import urlencode

import pytest
from django.test import Client

from tests.browser import by_width, chromium_page
from tests.browser_pages import assert_fits
from tests.support.consent_flow import callback_server, consent_page, exchange_landed, land, self_registered_app
from tests.support.factories import PASSWORD, UserFactory
from tests.support.oauth import exchange, pkce, query

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def client_callback():
    """The client's own redirect target: a loopback server on a free port."""
    with callback_server() as url:
        yield url


@by_width
def test_sign_in_consent_allow_lands_on_redirect_uri(service, client_callback, width):
    user = UserFactory(email="grace@example.com", display_name="Grace Hopper")
    app = self_registered_app("Pocket Assistant")
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

    with chromium_page(width) as page:
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
        landed = land(page, client_callback)

    params_back = query(landed)
    assert set(params_back) == {"code", "state", "iss"}
    assert params_back["state"] == "browser-state-42"
    assert params_back["iss"] == service
    response = exchange(
        Client(), app, params_back["code"], verifier, redirect_uri=client_callback, resource=f"{service}/v1"
    )
    assert response.status_code == 200, response.content
    assert response.json()["scope"] == "rates:read calls:place"


@by_width
def test_unticking_the_sensitive_scopes_allows_without_the_confirmation(service, width):
    user = UserFactory(email="mary@example.com")
    app = self_registered_app("Reader")
    scope = "rates:read calls:read calls:place"

    with consent_page(service, width, user.email, app, scope) as (page, callback, verifier):
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
        landed = land(page, callback)

    assert exchange_landed(service, app, landed, callback, verifier)["scope"] == "rates:read"


@by_width
def test_a_sensitive_scope_kept_ticked_still_needs_the_confirmation(service, width):
    user = UserFactory(email="annie@example.com")
    app = self_registered_app("Caller")

    with consent_page(service, width, user.email, app, "rates:read transcripts:read") as (page, callback, verifier):
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
        landed = land(page, callback)

    assert exchange_landed(service, app, landed, callback, verifier)["scope"] == "transcripts:read"


@by_width
def test_deny_lands_on_the_redirect_uri_with_access_denied(service, width):
    user = UserFactory(email="hedy@example.com")
    app = self_registered_app("Nosy")
    scope = "rates:read calls:place"

    with consent_page(service, width, user.email, app, scope, state="granular") as (page, callback, _verifier):
        landed = land(page, callback, "#deny")

    back = query(landed)
    assert back["error"] == "access_denied" and back["state"] == "granular"
    assert "code" not in back
