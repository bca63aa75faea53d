"""The consent page's defaults and the step-up page in Debian's Chromium, at a phone's
width and a laptop's: sensitive access starts unticked, so one click on Allow grants only
what is not sensitive; a step-up lists the new scopes first, marked new, and one click
grants them beside what the app already holds."""

import pytest

from apps.credentials.scopes import ALL_SCOPES
from tests.browser import by_width
from tests.browser_pages import assert_fits
from tests.support.consent_flow import consent_page, exchange_landed, land, self_registered_app
from tests.support.factories import UserFactory
from tests.support.oauth import issue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOT_SENSITIVE = ["rates:read", "credits:read", "calls:read", "contacts:read", "numbers:read"]


@by_width
def test_everything_asked_one_click_grants_only_what_is_not_sensitive(service, width):
    user = UserFactory(email="ada@example.com")
    app = self_registered_app("Pocket Assistant")
    with consent_page(service, width, user.email, app, " ".join(ALL_SCOPES)) as (page, callback, verifier):
        ticked = page.eval_on_selector_all(
            "#scopes input[name=scopes]", "boxes => boxes.filter(b => b.checked).map(b => b.value)"
        )
        assert ticked == NOT_SENSITIVE
        assert page.is_hidden("#sensitive-confirmation")  # nothing sensitive ticked: no second question
        assert page.locator("#scopes .badge").count() == 0  # a first connection: nothing marked new
        assert_fits(page, "consent, everything asked")
        landed = land(page, callback)
    tokens = exchange_landed(service, app, landed, callback, verifier)
    assert tokens["scope"] == " ".join(NOT_SENSITIVE)


@by_width
def test_a_sensitive_scope_is_granted_only_when_ticked_and_confirmed(service, width):
    user = UserFactory(email="grace@example.com")
    app = self_registered_app("Caller")
    scope = "rates:read calls:place webhooks:manage"
    with consent_page(service, width, user.email, app, scope) as (page, callback, verifier):
        assert not page.is_checked("#scopes input[value='calls:place']")
        assert not page.is_checked("#scopes input[value='webhooks:manage']")
        page.check("#scopes input[value='calls:place']")
        page.check("#confirm-sensitive")
        assert_fits(page, "consent, sensitive ticked")
        landed = land(page, callback)
    tokens = exchange_landed(service, app, landed, callback, verifier)
    assert tokens["scope"] == "rates:read calls:place"


@by_width
def test_a_step_up_shows_what_is_new_first_and_one_click_grants_it(service, width):
    user = UserFactory(email="mary@example.com")
    app = self_registered_app("Pocket Assistant")
    issue(user, app, resource=f"{service}/mcp", scope="rates:read calls:read")  # connected with a narrowed grant
    scope = "rates:read calls:read credits:read"
    with consent_page(service, width, user.email, app, scope) as (page, callback, verifier):
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
        landed = land(page, callback)
    tokens = exchange_landed(service, app, landed, callback, verifier)
    assert tokens["scope"] == "rates:read calls:read credits:read"
