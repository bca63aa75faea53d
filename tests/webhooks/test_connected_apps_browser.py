"""An app's webhook endpoints on Connected apps, in Debian's Chromium at a phone's width and a
laptop's: a long URL, a disabled endpoint and every event type fit the card, folded and open."""

import pytest

from apps.webhooks.services import endpoint_create, endpoint_update
from tests.browser import by_width, signed_in_page
from tests.browser_pages import assert_fits
from tests.support.factories import UserFactory
from tests.support.webhooks import connected_app

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_URL = "https://hooks.example.com/" + "/".join(["integrations", "pocket-assistant", "a" * 60, "events"])


def app_with_endpoints(service):
    """An account whose app made three endpoints (one disabled). Made before Playwright starts."""
    user = UserFactory(email="ada@example.com")
    app, as_app = connected_app(user, "Pocket Assistant", resource=f"{service}/mcp")
    endpoint_create(principal=as_app, data={"url": LONG_URL, "enabled_events": ["*"]})
    types = ["call.ringing_you", "call.in_progress", "call.ended", "transcript.completed", "message.received"]
    endpoint_create(principal=as_app, data={"url": "https://hooks.example.com/calls", "enabled_events": types})
    gone, _secret = endpoint_create(
        principal=as_app, data={"url": "https://hooks.example.com/old", "enabled_events": ["balance.low"]}
    )
    endpoint_update(principal=as_app, endpoint=gone, data={"disabled": True})
    return user, app


@by_width
def test_an_apps_endpoints_fit(service, dns, width):
    user, app = app_with_endpoints(service)
    with signed_in_page(service, user.email, width) as page:
        page.goto(f"{service}/settings/connected-apps")
        entry = page.locator(f"tr[data-client-id='{app.client_id}']")
        assert "3 webhook endpoints" in entry.inner_text()
        assert_fits(page, "connected apps, endpoints folded")
        entry.locator("details.webhooks summary").click()
        assert entry.locator("details.webhooks li").count() == 3
        assert LONG_URL in entry.inner_text()
        assert "Disabled" in entry.locator("details.webhooks li").nth(0).inner_text()
        assert_fits(page, "connected apps, endpoints open")
