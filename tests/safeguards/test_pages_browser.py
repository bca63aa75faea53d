"""What the user decides, in Debian's Chromium at a phone's width and a laptop's: the consent page's
allowance and "ask me first" (shown once calls:place is ticked), the confirmation page and its plain
form, and the change on Connected apps."""

import pytest

from apps.safeguards.models import ConnectionRules, Decision
from tests.browser import by_width, signed_in_page
from tests.browser_pages import assert_fits
from tests.calls.callbacks import CALLEE, Placer, ready
from tests.support.consent_flow import consent_page, land, self_registered_app
from tests.support.factories import UserFactory
from tests.support.safeguards import connect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@by_width
def test_consent_offers_the_allowance_once_calls_place_is_ticked(service, width):
    user = UserFactory(email="ada@example.com")
    app = self_registered_app("Pocket Assistant")
    with consent_page(service, width, user.email, app, "rates:read calls:place") as (page, callback, _verifier):
        assert page.is_hidden("#app-rules")  # calls:place starts unticked: nothing to choose yet
        page.check("#scopes input[value='calls:place']")
        assert page.is_visible("#app-rules")
        assert page.is_checked("#app-rules input[value='500']")  # $5 by default
        assert page.is_checked("#ask-first")  # self-registered: asks first by default
        assert page.locator("#rules-explained li").count() == 3
        assert_fits(page, "consent, allowance offered")
        page.check("#app-rules input[value='2000']")
        page.uncheck("#ask-first")
        page.check("#confirm-sensitive")
        land(page, callback)
    rules = ConnectionRules.objects.get(user=user, client_id=app.client_id)
    assert (rules.daily_allowance, rules.ask_first) == (2000, False)


@by_width
def test_the_confirmation_page_confirms_with_its_plain_form(service, width):
    user = UserFactory(email="ada@example.com")
    ready(user)
    _app, token = connect(user, name="Pocket Assistant", resource=f"{service}/v1")
    placer = Placer(user, secret=token)
    quote = placer.quote(CALLEE)
    assert quote.status_code == 201, quote.content
    quote = quote.json()
    confirm_url = placer.place(quote["id"]).json()["error"]["confirm_url"]
    assert confirm_url.startswith(f"{service}/confirm/")
    with signed_in_page(service, user.email, width) as page:
        page.goto(confirm_url)
        assert "Pocket Assistant asks to place a call to +1 202-555-0100" in page.inner_text("h1")
        facts = page.inner_text("#facts")
        for shown in ("+1 202-555-0100", "$0.06", "$5.00 of $5.00", "+1 415-555-0123"):
            assert shown in facts
        assert page.is_visible("#confirm") and page.is_visible("#decline")
        assert_fits(page, "confirmation page")
        page.click("#confirm")
        page.wait_for_selector("#decided")
        assert "You confirmed this." in page.inner_text("#decided")
        assert page.locator("#confirm").count() == 0
        assert_fits(page, "confirmation page, confirmed")
    assert Decision.objects.get().decision == Decision.CONFIRMED
    assert placer.place(quote["id"]).status_code == 201


@by_width
def test_connected_apps_changes_the_allowance_and_the_switch(service, width):
    user = UserFactory(email="ada@example.com")
    app, _token = connect(user, name="Pocket Assistant", daily_allowance=500)
    with signed_in_page(service, user.email, width, next_path="/settings/connected-apps") as page:
        entry = page.locator(f"tr[data-client-id='{app.client_id}']")
        entry.locator("td.can > details > summary").first.click()
        form = entry.locator("form.app-rules")
        assert form.is_visible()
        assert form.locator("select.allowance").input_value() == "500"
        assert form.locator("input[name=ask_first]").is_checked()
        assert_fits(page, "connected apps, allowance shown")
        form.locator("select.allowance").select_option("100")
        form.locator("input[name=ask_first]").uncheck()
        form.locator("button[type=submit]").click()
        page.wait_for_url(f"{service}/settings/connected-apps")
        page.wait_for_selector("text=Saved what Pocket Assistant may do.")
        entry = page.locator(f"tr[data-client-id='{app.client_id}']")
        recent = entry.locator("td.recent").inner_text()
        assert "Set the daily allowance to $1.00 (was $5.00)" in recent
        assert "Turned off asking first" in recent
    rules = ConnectionRules.objects.get(user=user, client_id=app.client_id)
    assert (rules.daily_allowance, rules.ask_first) == (100, False)
