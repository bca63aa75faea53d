"""Home in Debian's Chromium at a phone's width and a laptop's: what apps can see, each
line a link to the page that changes it, and nothing wider than the screen."""

import pytest

from apps.accounts.security import sharing_update
from apps.numbers.services import number_set_messages_opt_in
from tests.billing.factories import append
from tests.browser import by_width, signed_in_page
from tests.browser_pages import assert_fits
from tests.numbers.factories import make_number
from tests.support.factories import UserFactory
from tests.support.oauth import issue, make_client

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINKS = {
    "#home-billing-link": "/billing",
    "#home-numbers-link": "/settings/sharing",
    "#home-sharing-link": "/settings/sharing",
    "#home-apps-link": "/settings/connected-apps",
}


@by_width
def test_home_shows_what_apps_can_see(service, width):
    user = UserFactory(email="ada@example.com")
    append(user, type="top_up", amount=2363)
    shared = make_number(user, "+442071838750", sms=True)
    make_number(user, "+442079460011", label="Office line with a long descriptive label")
    number_set_messages_opt_in(user=user, number_id=shared.pk, value=True)
    sharing_update(user=user, call_summaries=True, message_reading=True)
    app = make_client(name="Pocket Assistant with a long name for a small screen")
    issue(user, app, resource=f"{service}/mcp", scope="rates:read credits:read calls:place")
    for host in ("notes.example.com", "notes.example.net"):
        issue(user, make_client(name="Notes", redirect_uris=f"https://{host}/cb"), resource=f"{service}/mcp")
    with signed_in_page(service, user.email, width) as page:
        seen = page.inner_text("#visible")
        assert "$23.63" in seen
        # Numbers as people read them, E.164 kept for copying in the title.
        assert "+44 20 7183 8750: shares its messages" in seen
        assert "+44 20 7946 0011 (Office line with a long descriptive label): cannot receive SMS" in seen
        shared_number = page.locator("#home-numbers [data-e164='+442071838750']")
        assert shared_number.get_attribute("title").startswith("+442071838750")
        assert "On: apps allowed to read transcripts can read your call summaries" in seen
        assert "Pocket Assistant with a long name for a small screen: 3 permissions, 1 sensitive" in seen
        # Two apps of one name told apart by where they send you and when you connected them.
        twins = page.locator("#home-apps li", has_text="Notes").all()
        assert len(twins) == 2
        origins = [twin.locator(".app-origin").inner_text() for twin in twins]
        assert {origin.split(" · ")[0] for origin in origins} == {"notes.example.com", "notes.example.net"}
        assert all(" · connected " in origin for origin in origins)
        # No empty gap under "Copy" until there is something to say.
        gap = page.evaluate(
            """() => {
              const button = document.getElementById('copy-mcp-url').getBoundingClientRect();
              const next = document.getElementById('docs-mcp-link').getBoundingClientRect();
              return next.top - button.bottom;
            }"""
        )
        assert gap < 32, f"{gap}px between Copy and the next line"
        assert_fits(page, "home")
        for link, path in LINKS.items():
            page.goto(f"{service}/")
            page.click(link)
            page.wait_for_url(f"{service}{path}")
