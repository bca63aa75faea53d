"""The Webhooks page in Debian's Chromium at a phone's width and a laptop's: endpoints of both
modes with long URLs and every event type, an endpoint's deliveries, a body, and the forms
(resend what failed, twice; rotate the secret; redeliver) done by clicking. Nothing is wider than
the screen, no date wraps, and a long URL or event name wraps only at its joints."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.webhooks.models import WebhookEndpoint
from apps.webhooks.services import endpoint_create
from tests.browser import by_width, signed_in_page
from tests.browser_pages import PASSWORD, assert_fits
from tests.support.factories import UserFactory
from tests.support.receivers import Reply
from tests.support.webhook_history import deliver_all, make_endpoint
from tests.support.webhooks import connected_app, key_caller

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_PATH = "/integrations/pocket-assistant/customer-7f3a9c2e/webhooks/events-receiver?source=telephony&account=ada"
EVERY_TYPE = ["call.ringing_you", "call.in_progress", "call.ended", "transcript.completed", "transcript.failed"]

# Each piece of text between two joints of a URL or an event name (a text node, since the page
# puts a <wbr> at each joint) lies on one line: nothing is broken mid-word. And every date is one line.
WRAPS = """() => {
  const lines = (node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return new Set([...range.getClientRects()].filter((r) => r.width).map((r) => Math.round(r.top))).size;
  };
  const broken = [];
  for (const el of document.querySelectorAll('td.url a, h1.url, .event-type, .url')) {
    for (const node of el.childNodes) {
      if (node.nodeType === Node.TEXT_NODE && node.textContent.trim() && lines(node) > 1) {
        broken.push(node.textContent);
      }
    }
  }
  const dates = [...document.querySelectorAll('time')].filter((t) => lines(t) > 1).map((t) => t.textContent);
  return {broken, dates};
}"""


def assert_wraps_well(page, label):
    found = page.evaluate(WRAPS)
    assert not found["broken"], f"{label}: broken mid-word: {found['broken']}"
    assert not found["dates"], f"{label}: dates on several lines: {found['dates']}"


def account(service, receiver):
    """An account with a live endpoint its app made, a disabled live one, and a test-mode one whose
    receiver was down for two events. Made before Playwright starts."""
    user = UserFactory(email="ada@example.com")
    user.set_password(PASSWORD)
    user.save()
    _app, as_app = connected_app(
        user, "Pocket Assistant with a rather long descriptive name", resource=f"{service}/mcp"
    )
    endpoint_create(
        principal=as_app, data={"url": f"https://hooks.example.com{LONG_PATH}", "enabled_events": EVERY_TYPE}
    )
    _key, live = key_caller(user, livemode=True)
    gone = make_endpoint(live, "https://hooks.example.com/old", events=["balance.low"])
    live.post(f"/v1/webhook_endpoints/{gone['id']}", {"disabled": True})
    _key, caller = key_caller(user)
    endpoint = make_endpoint(caller, receiver.url(LONG_PATH), events=EVERY_TYPE[:3])
    receiver.reply = Reply(status=500)
    deliver_all(user, 2, start=timezone.now() - timedelta(hours=2))
    receiver.reply = Reply(status=200)
    return user, WebhookEndpoint.objects.get(pk=endpoint["id"])


@by_width
def test_the_webhooks_pages_fit_and_their_forms_work(service, dns, receiver, width):
    user, endpoint = account(service, receiver)
    with signed_in_page(service, user.email, width) as page:
        page.click("header nav a:has-text('Webhooks')")
        page.wait_for_url(f"{service}/settings/webhooks")
        assert page.locator("section[data-mode=live] tr[data-endpoint-id]").count() == 2
        assert page.locator("section[data-mode=test] tr[data-endpoint-id]").count() == 1
        assert "Connected app \u201cPocket Assistant" in page.inner_text("section[data-mode=live]")
        assert_fits(page, "webhooks")
        assert_wraps_well(page, "webhooks")

        page.click(f"tr[data-endpoint-id='{endpoint.pk}'] td.url a")
        page.wait_for_url(f"{service}/settings/webhooks/{endpoint.pk}")
        assert page.locator("#deliveries tr[data-delivery-id]").count() == 6  # 2 events, 3 attempts each
        assert_fits(page, "endpoint")
        assert_wraps_well(page, "endpoint")

        page.click("#resend button[type=submit]")
        page.wait_for_selector("p[role=status]:has-text('Queued 2 redeliveries')")
        assert page.locator("#deliveries tr[data-delivery-id]").count() == 8
        assert_fits(page, "endpoint, resent")
        page.click("#resend button[type=submit]")
        page.wait_for_selector("p[role=status]:has-text('Nothing to resend')")
        assert page.locator("#deliveries tr[data-delivery-id]").count() == 8

        page.select_option("#expires_in", "3600")
        page.click("#secret button[type=submit]")
        page.wait_for_selector("#new-secret")
        assert page.inner_text("#new-secret").startswith("whsec_")
        assert_fits(page, "endpoint, new secret")

        page.locator("#deliveries tr[data-delivery-id] a:has-text('Body')").last.click()
        page.wait_for_selector("pre#body")
        assert '"type":"call.ended"' in page.inner_text("pre#body")
        assert_fits(page, "delivery")
        assert_wraps_well(page, "delivery")
        page.click("#delivery details.formatted summary")
        assert '"type": "call.ended"' in page.inner_text("#delivery details.formatted pre")
        assert_fits(page, "delivery, formatted")
        page.click("#delivery button:has-text('Redeliver')")
        page.wait_for_url(f"{service}/settings/webhooks/{endpoint.pk}")
        assert "Queued a redelivery of call.ended" in page.inner_text("#endpoint")
        assert page.locator("#deliveries tr[data-delivery-id]").count() == 9
        assert_fits(page, "endpoint, redelivered")
