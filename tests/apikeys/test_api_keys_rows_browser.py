"""One key's row on the API keys screen, in Debian's Chromium at a phone's width and a
laptop's: a test key is never badged "live", a key made on the command line has a name of
its own, a scope list never starts a line with a comma, and a date takes two lines at most."""

import io

import pytest
from django.core.management import call_command

from apps.apikeys.services import apikey_create
from apps.credentials.scopes import ALL_SCOPES
from tests.browser import by_width, signed_in_page
from tests.browser_pages import assert_fits
from tests.support.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Each scope's pieces: how many boxes it was laid out in (1 when never broken) and whether a
# line of the cell starts with its comma.
SCOPE_LINES = """cell => [...cell.querySelectorAll('.scope')].map(s => s.getClientRects().length)"""
LINE_STARTS = """cell => {
  const starts = [];
  let top = null;
  for (const s of cell.querySelectorAll('.scope')) {
    const r = s.getClientRects()[0];
    if (top === null || r.top > top + 1) { starts.push(s.textContent); top = r.top; }
  }
  return starts;
}"""
DATE_LINES = """cell => {
  const tops = new Set([...cell.querySelectorAll('.date-part')].flatMap(
    p => [...p.getClientRects()].map(r => Math.round(r.top))));
  return tops.size;
}"""


@by_width
def test_a_keys_row_reads_right(service, width):
    user = UserFactory(email="ada@example.com")
    apikey_create(user=user, name="Sandbox script", scopes=list(ALL_SCOPES), livemode=False)
    apikey_create(user=user, name="Reporting script", scopes=["rates:read", "calls:read", "calls:place"])
    call_command("createapikey", "--email", user.email, stdout=io.StringIO(), stderr=io.StringIO())
    with signed_in_page(service, user.email, width, next_path="/settings/api-keys") as page:
        page.wait_for_function("document.querySelectorAll('#keys tbody tr').length === 3")
        test_key = page.locator("#keys tbody tr", has_text="Sandbox script")
        # Its mode and its status apart: an sk_test_ key is marked test mode, and active.
        assert test_key.locator(".badge.mode-test").inner_text() == "test mode"
        assert test_key.locator(".badge.status").inner_text() == "active"
        assert "live" not in test_key.locator(".badge").all_inner_texts()
        live_key = page.locator("#keys tbody tr", has_text="Reporting script")
        assert live_key.locator(".badge.mode-test").count() == 0
        cli = page.locator("#keys tbody tr", has_text="CLI ")
        assert "UTC: read-only starter set" in cli.locator("td.name").inner_text()

        for row in page.locator("#keys tbody tr").all():
            scopes = row.locator("td.scopes")
            assert set(scopes.evaluate(SCOPE_LINES)) == {1}, row.inner_text()
            assert not any(start.startswith(",") for start in scopes.evaluate(LINE_STARTS))
            for date in row.locator("td.date").all():
                assert date.evaluate(DATE_LINES) <= 2, date.inner_text()
        assert_fits(page, "API keys")
