"""Sharing, Activity, Connected apps and the consent page as a new user meets them, in Debian's
Chromium at a phone's width and a laptop's: each switch explained on its own, a framed list of
numbers without the one that cannot receive SMS, a page of activity a few screens tall with
each event said once, a recent action whole at a laptop's width, and the consent page's trust checkbox
as large as its others."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.audit.models import EventType
from apps.audit.services import audit_record, audit_sensitive_action
from apps.audit.views import PAGE_SIZE
from apps.credentials.principal import Principal
from tests.browser import by_width, signed_in_page
from tests.browser_pages import assert_fits
from tests.numbers.factories import make_number
from tests.support.consent_flow import consent_page, self_registered_app
from tests.support.factories import UserFactory
from tests.support.oauth import issue, make_client

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ENDED = "ended a call to +1 202-555-0100 after 1 min 1 s"


@by_width
def test_sharing_explains_each_switch_and_offers_only_numbers_with_sms(service, width):
    user = UserFactory(email="ada@example.com")
    make_number(user, "+442071838750", sms=True, label="London office")
    make_number(user, "+12025550188")  # voice only
    with signed_in_page(service, user.email, width, next_path="/settings/sharing") as page:
        # Each switch with its own explanation, not one paragraph for both.
        for switch in ("#switch-call-summaries", "#switch-message-reading"):
            assert page.locator(f"{switch} input[type=checkbox]").count() == 1
            assert page.locator(f"{switch} li").count() >= 2
        # The numbers' fieldset is framed like the page's other boxes.
        frame = page.eval_on_selector(
            "#numbers", "f => { const s = getComputedStyle(f); return [s.borderTopStyle, s.borderTopLeftRadius]; }"
        )
        assert frame == ["solid", "8px"], frame
        boxes = page.locator("#numbers input[name=messages_opt_in]")
        assert boxes.count() == 1
        assert "+44 20 7183 8750 (London office)" in page.inner_text("#numbers label")
        assert "+1 202-555-0188: cannot receive SMS" in page.inner_text("#numbers .no-sms")
        assert_fits(page, "sharing")
        boxes.check()
        page.click("#sharing button[type=submit]")
        page.wait_for_selector("text=Sharing settings saved.")
        assert page.is_checked("#numbers input[name=messages_opt_in]")


@by_width
def test_a_page_of_activity_says_each_event_once_and_stays_a_few_screens(service, width):
    user = UserFactory(email="ada@example.com")
    app = make_client(name="Pocket Assistant")
    issue(user, app, resource=f"{service}/mcp", scope="calls:read calls:place")
    now = timezone.now() - timedelta(minutes=5)
    for n in range(PAGE_SIZE * 2):
        audit_record(event_type=EventType.API_KEY_CREATED, user=user, key_id="key_gone", at=now - timedelta(hours=n))
    principal = Principal(kind="oauth", user=user, credential_id=app.client_id, client_id=app.client_id)
    audit_sensitive_action(principal=principal, event_type=EventType.CALL_ENDED, summary=ENDED)
    with signed_in_page(service, user.email, width, next_path="/settings/activity") as page:
        rows = page.locator("#activity tbody tr")
        assert rows.count() == PAGE_SIZE
        ended = page.locator("#activity tr[data-event-type='call.ended'] td[data-label='What']")
        assert ended.inner_text() == "Ended a call to +1 202-555-0100 after 1 min 1 s"
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 8 * 800, f"{height}px for a page of {PAGE_SIZE} events"
        assert page.locator("#older").count() == 1
        assert_fits(page, "activity")


@by_width
def test_a_recent_action_is_not_cut_short_on_a_laptop(service, width):
    user = UserFactory(email="ada@example.com")
    app = make_client(name="Pocket Assistant")
    issue(user, app, resource=f"{service}/mcp", scope="calls:read calls:place")
    principal = Principal(kind="oauth", user=user, credential_id=app.client_id, client_id=app.client_id)
    audit_sensitive_action(
        principal=principal, event_type=EventType.CALL_PLACED, summary="placed a call to +1 202-555-0100"
    )
    audit_sensitive_action(principal=principal, event_type=EventType.CALL_ENDED, summary=ENDED)
    with signed_in_page(service, user.email, width, next_path="/settings/connected-apps") as page:
        item = page.locator("#connections .recent li[data-event-type='call.ended']")
        assert "Ended a call to +1 202-555-0100 after 1 min 1 s" in item.inner_text()
        clipped = item.evaluate("li => li.scrollHeight > li.clientHeight + 1 || li.scrollWidth > li.clientWidth + 1")
        if width >= 1280:
            # Every line of it is shown: nothing clipped below what the box shows.
            assert not clipped
        # A phone keeps each action to two lines; the whole sentence is its tooltip.
        assert item.get_attribute("title") == "Ended a call to +1 202-555-0100 after 1 min 1 s"
        assert_fits(page, "connected apps")


@by_width
def test_the_trust_checkbox_is_as_large_as_the_others(service, width):
    user = UserFactory(email="ada@example.com")
    app = self_registered_app("Caller")
    with consent_page(service, width, user.email, app, "rates:read calls:place") as (page, _callback, _verifier):
        page.check("#scopes input[value='calls:place']")
        trust = page.locator("#confirm-sensitive").bounding_box()
        scope = page.locator("#scopes input[value='calls:place']").bounding_box()
        ask_first = page.locator("#ask-first").bounding_box()
        sizes = {(round(b["width"]), round(b["height"])) for b in (trust, scope, ask_first)}
        assert len(sizes) == 1, sizes
        assert_fits(page, "consent")
