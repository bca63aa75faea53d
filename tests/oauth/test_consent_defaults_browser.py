"""The consent page's defaults and the step-up page in Debian's Chromium, at a phone's
width and a laptop's: sensitive access starts unticked, so one click on Allow grants only
what is not sensitive; a step-up lists the new scopes first, marked new, and one click
grants them beside what the app already holds."""

import re

import pytest
from django.test import Client

from apps.credentials.scopes import ALL_SCOPES
from tests.browser import launch_chromium, require_browser
from tests.browser_pages import WIDTHS, assert_fits
from tests.support.consent_flow import authorize_query, callback_server, open_consent
from tests.support.factories import UserFactory
from tests.support.oauth import exchange, issue, make_client, pkce, query

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
by_width = pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])

NOT_SENSITIVE = ["rates:read", "credits:read", "calls:read", "contacts:read", "numbers:read"]


def allow(page, callback) -> str:
    """Click Allow; the address the browser lands on at the client."""
    page.click("#allow")
    page.wait_for_url(re.compile(re.escape(f"{callback}?")))
    return page.url


def exchange_landed(service, app, landed, callback, verifier) -> dict:
    # After the browser has closed: the ORM may not run inside Playwright's event loop.
    response = exchange(
        Client(), app, query(landed)["code"], verifier, redirect_uri=callback, resource=f"{service}/mcp"
    )
    assert response.status_code == 200, response.content
    return response.json()


def chromium(pw, width):
    browser = launch_chromium(pw)
    return browser, browser.new_page(viewport={"width": width, "height": 800})


@by_width
def test_everything_asked_one_click_grants_only_what_is_not_sensitive(service, width):
    require_browser()
    from playwright.sync_api import sync_playwright

    user = UserFactory(email="ada@example.com")
    app = make_client(name="Pocket Assistant", redirect_uris="http://127.0.0.1/callback", registration_source="dcr")
    verifier, challenge = pkce()
    with callback_server() as callback:
        with sync_playwright() as pw:
            browser, page = chromium(pw, width)
            try:
                open_consent(
                    page,
                    service,
                    user.email,
                    authorize_query(service, app.client_id, callback, challenge, " ".join(ALL_SCOPES)),
                )
                ticked = page.eval_on_selector_all(
                    "#scopes input[name=scopes]", "boxes => boxes.filter(b => b.checked).map(b => b.value)"
                )
                assert ticked == NOT_SENSITIVE
                assert page.is_hidden("#sensitive-confirmation")  # nothing sensitive ticked: no second question
                assert page.locator("#scopes .badge").count() == 0  # a first connection: nothing marked new
                assert_fits(page, "consent, everything asked")
                landed = allow(page, callback)
            finally:
                browser.close()
        tokens = exchange_landed(service, app, landed, callback, verifier)
    assert tokens["scope"] == " ".join(NOT_SENSITIVE)


@by_width
def test_a_sensitive_scope_is_granted_only_when_ticked_and_confirmed(service, width):
    require_browser()
    from playwright.sync_api import sync_playwright

    user = UserFactory(email="grace@example.com")
    app = make_client(name="Caller", redirect_uris="http://127.0.0.1/callback", registration_source="dcr")
    verifier, challenge = pkce()
    with callback_server() as callback:
        with sync_playwright() as pw:
            browser, page = chromium(pw, width)
            try:
                open_consent(
                    page,
                    service,
                    user.email,
                    authorize_query(
                        service, app.client_id, callback, challenge, "rates:read calls:place webhooks:manage"
                    ),
                )
                assert not page.is_checked("#scopes input[value='calls:place']")
                assert not page.is_checked("#scopes input[value='webhooks:manage']")
                page.check("#scopes input[value='calls:place']")
                page.check("#confirm-sensitive")
                assert_fits(page, "consent, sensitive ticked")
                landed = allow(page, callback)
            finally:
                browser.close()
        tokens = exchange_landed(service, app, landed, callback, verifier)
    assert tokens["scope"] == "rates:read calls:place"


@by_width
def test_a_step_up_shows_what_is_new_first_and_one_click_grants_it(service, width):
    require_browser()
    from playwright.sync_api import sync_playwright

    user = UserFactory(email="mary@example.com")
    app = make_client(name="Pocket Assistant", redirect_uris="http://127.0.0.1/callback", registration_source="dcr")
    issue(user, app, resource=f"{service}/mcp", scope="rates:read calls:read")  # connected with a narrowed grant
    verifier, challenge = pkce()
    with callback_server() as callback:
        with sync_playwright() as pw:
            browser, page = chromium(pw, width)
            try:
                open_consent(
                    page,
                    service,
                    user.email,
                    authorize_query(service, app.client_id, callback, challenge, "rates:read calls:read credits:read"),
                )
                assert "asks for more access" in page.text_content("h1")
                labels = page.locator("#scopes label")
                assert [labels.nth(n).get_attribute("data-scope") for n in range(3)] == [
                    "credits:read",
                    "rates:read",
                    "calls:read",
                ]
                first = labels.nth(0)
                assert first.locator(".badge").inner_text() == "New"
                assert first.locator("input").is_checked()
                assert "already allowed" in labels.nth(1).inner_text()
                assert page.locator("#scopes .badge").count() == 1
                assert_fits(page, "step-up consent")
                landed = allow(page, callback)
            finally:
                browser.close()
        tokens = exchange_landed(service, app, landed, callback, verifier)
    assert tokens["scope"] == "rates:read calls:read credits:read"
