"""Every page at a phone's width (375 px) and a laptop's (1280 px), in Debian's headless
Chromium driven by Playwright: the document is never wider than the viewport, every
visible control lies on screen, and each action is done by clicking it.

Pages: sign-in, password reset (form, sent, link, invalid link, complete), the error
page, home, API keys, connected apps, activity, sharing, webhooks, password change (form, done),
consent.
"""

import re
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from apps.oauth.models import RefreshToken
from tests.browser import by_width, chromium_page, signed_in_page
from tests.browser_pages import assert_fits, populate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def visible_text(page, selector: str = "main") -> str:
    return page.inner_text(selector)


def reset_link(email: str) -> str:
    user = get_user_model().objects.get(email=email)
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return f"/password-reset/{uid}/{default_token_generator.make_token(user)}"


@by_width
def test_signed_out_pages_fit(service, width):
    account = populate(service)
    link = reset_link(account.email)
    error_query = urlencode({"response_type": "code", "client_id": "dcr_no_such_client", "redirect_uri": "x"})
    pages = {
        "/login": "#id_username",
        "/password-reset": "#id_email",
        "/password-reset/sent": "h1",
        "/password-reset/nonsense/nonsense-token": "h1",
        link: "#id_new_password1",
        "/password-reset/complete": "h1",
        f"/oauth/authorize?{error_query}": "#oauth-error",
    }
    with chromium_page(width) as page:
        for path, ready in pages.items():
            page.goto(f"{service}{path}")
            page.wait_for_selector(ready)
            assert_fits(page, path)


@by_width
def test_signed_in_pages_fit(service, width):
    account = populate(service)
    with signed_in_page(service, account.email, width) as page:
        assert_fits(page, "home")

        page.goto(f"{service}/settings/api-keys")
        page.wait_for_selector("#keys tbody tr")
        assert page.locator("#keys tbody tr").count() == 3
        assert page.is_hidden("#more")  # no older keys: the button stays hidden
        # the redacted key is one line, never wrapped
        assert page.evaluate("document.querySelector('#keys code.redacted').getClientRects().length") == 1
        assert_fits(page, "API keys")

        page.goto(f"{service}/settings/connected-apps")
        assert account.app_name in visible_text(page)
        assert_fits(page, "connected apps")

        page.goto(f"{service}/settings/activity")
        text = visible_text(page)
        assert account.app_name in text and "Reporting script" in text
        assert "dcr_" not in text and "key_" not in text
        assert_fits(page, "activity")

        page.goto(f"{service}/billing")
        assert "$23.63" in visible_text(page)
        assert_fits(page, "billing")

        for path in ("/settings/sharing", "/settings/webhooks", "/settings/password"):
            page.goto(f"{service}{path}")
            assert_fits(page, path)

        page.goto(account.authorize_url)
        page.wait_for_url(re.compile(re.escape(f"{service}/oauth/consent?transaction=otx_")))
        assert_fits(page, "consent")

        # signing out is a click on the header's button, reachable at this width
        page.click("header button:has-text('Sign out')")
        page.wait_for_url(f"{service}/login")
        assert page.locator("header button:has-text('Sign out')").count() == 0


@by_width
def test_password_change_pages_fit(service, width):
    account = populate(service)
    with signed_in_page(service, account.email, width, next_path="/settings/password") as page:
        page.fill("#id_old_password", account.password)
        page.fill("#id_new_password1", "a-new-password-for-ada-42")
        page.fill("#id_new_password2", "a-new-password-for-ada-42")
        page.click("main button[type=submit]")
        page.wait_for_url(f"{service}/settings/password/done")
        assert_fits(page, "password changed")


@by_width
def test_the_header_wraps_instead_of_overflowing(service, width):
    account = populate(service, email="a.rather.long.address.for.a.narrow.screen@example.com")
    with signed_in_page(service, account.email, width) as page:
        assert_fits(page, "home with a long email")
        links = page.locator("header nav a")
        assert links.count() == 8  # home, API keys, billing, connected apps, webhooks, sharing, activity, password
        for n in range(links.count()):
            assert links.nth(n).is_visible()
        page.click("header nav a:has-text('Activity')")
        page.wait_for_url(f"{service}/settings/activity")
        assert page.get_attribute("header nav a:has-text('Activity')", "aria-current") == "page"


@by_width
def test_home_shows_the_mcp_url_and_copies_it(service, width):
    account = populate(service)
    with signed_in_page(service, account.email, width, permissions=["clipboard-read", "clipboard-write"]) as page:
        assert page.text_content("#mcp-url") == f"{service}/mcp"
        assert page.text_content("#api-base") == f"{service}/v1"
        page.click("#copy-mcp-url")
        page.wait_for_selector(".copy-status[data-status-for='mcp-url']:has-text('Copied.')")
        assert page.evaluate("navigator.clipboard.readText()") == f"{service}/mcp"
        page.click("#api-keys-link")
        page.wait_for_url(f"{service}/settings/api-keys")
        page.go_back()
        page.click("#connected-apps-link")
        page.wait_for_url(f"{service}/settings/connected-apps")


@by_width
def test_five_keys_with_long_scopes_stay_in_their_card(service, width):
    account = populate(service, more_keys=3)  # 5 live keys, 3 holding all ten scopes, and a revoked one
    with signed_in_page(service, account.email, width, next_path="/settings/api-keys") as page:
        page.wait_for_function("document.querySelectorAll('#keys tbody tr').length === 6")
        assert page.locator("#keys tbody tr button", has_text="Revoke").count() == 5
        assert_fits(page, "API keys, five live")
        # Dates are written as every page writes them (apps/core/templatetags/when.py).
        created = page.locator("#keys tbody tr").first.locator("td[data-label='Created']").inner_text()
        assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC", created), created


@by_width
def test_show_older_keys(service, width):
    account = populate(service, older_keys=20)  # 23 keys: the screen loads 20 at a time
    with signed_in_page(service, account.email, width, next_path="/settings/api-keys") as page:
        page.wait_for_selector("#more:not([hidden])")
        assert page.locator("#keys tbody tr").count() == 20
        assert_fits(page, "API keys with older keys")
        page.click("#more")
        page.wait_for_function("document.querySelectorAll('#keys tbody tr').length === 23")
        assert page.is_hidden("#more")


@by_width
def test_revoke_asks_first(service, width):
    account = populate(service)
    with signed_in_page(service, account.email, width, next_path="/settings/api-keys") as page:
        row = page.locator("#keys tbody tr", has_text="Reporting script")
        row.wait_for()
        asked = []

        def dismiss(dialog):
            asked.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", dismiss)
        row.locator("button", has_text="Revoke").click()
        assert asked and "Reporting script" in asked[0]
        assert row.locator(".badge.status").text_content() == "active"

        page.once("dialog", lambda dialog: dialog.accept())
        row.locator("button", has_text="Revoke").click()
        page.wait_for_selector("#keys tbody tr:has-text('Reporting script') .badge.revoked")
        assert_fits(page, "API keys after revoking")


@by_width
def test_disconnect_asks_first(service, width):
    account = populate(service)
    with signed_in_page(service, account.email, width, next_path="/settings/connected-apps") as page:
        asked = []

        def dismiss(dialog):
            asked.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", dismiss)
        page.click(f"tr[data-client-id='{account.client_id}'] button:has-text('Disconnect')")
        assert asked and account.app_name in asked[0]
        assert page.url == f"{service}/settings/connected-apps"
        assert page.locator(f"tr[data-client-id='{account.client_id}']").count() == 1

        page.once("dialog", lambda dialog: dialog.accept())
        page.click(f"tr[data-client-id='{account.client_id}'] button:has-text('Disconnect')")
        page.wait_for_selector(f"text=Disconnected {account.app_name}.")
        assert page.locator(f"tr[data-client-id='{account.client_id}']").count() == 0
        assert_fits(page, "connected apps after disconnecting")
    assert not RefreshToken.objects.filter(application__client_id=account.client_id, revoked__isnull=True).exists()


SPILLS = {
    "a table wider than its card": "<table style='white-space:nowrap'><tr><td>"
    + "wide cell " * 40
    + "</td><td>x</td></tr></table>",
    "a word longer than its card": "<p>" + "unbreakable" * 30 + "</p>",
    "a button pushed out of its card": "<div style='display:flex'><span style='flex:none;width:1400px'>a</span>"
    "<button>Revoke</button></div>",
}
CARD_PAGE = """<!doctype html><meta name=viewport content="width=device-width">
<style>body{margin:0} .card{margin:8px;border:1px solid #000;max-width:300px}</style>
<main><div class="card">%s</div></main>"""


@pytest.mark.parametrize("spill", list(SPILLS), ids=[s.replace(" ", "-") for s in SPILLS])
def test_the_layout_check_sees_a_spill(spill):
    """The check the page tests rely on trips on each kind of spill, and passes the same card without it."""
    with chromium_page(375) as page:
        page.set_content(CARD_PAGE % "<p>Fits.</p><button>Revoke</button>")
        assert_fits(page, "a card that fits")
        page.set_content(CARD_PAGE % SPILLS[spill])
        with pytest.raises(AssertionError):
            assert_fits(page, spill)
