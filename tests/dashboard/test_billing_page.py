"""The billing page: where every billing_url (GET /v1/balance, svc_get_balance,
insufficient_credits errors) sends a person, signed in."""

import pytest
from django.test import Client

from tests.billing.factories import append
from tests.support.factories import UserFactory
from tests.support.oauth import signed_in

pytestmark = pytest.mark.django_db


def test_the_billing_url_the_api_gives_out_is_this_page(api, settings):
    from tests.support.factories import make_api_key

    user = UserFactory()
    _key, secret = make_api_key(user, scopes=["credits:read"])
    billing_url = api.get("/v1/balance", HTTP_AUTHORIZATION=f"Bearer {secret}").json()["billing_url"]
    assert billing_url == f"{settings.APP_URL}/billing"
    response = signed_in(user).get("/billing")
    assert response.status_code == 200
    assert b"Balance" in response.content


def test_the_page_shows_the_live_balance_and_recent_transactions():
    user = UserFactory()
    append(user, type="top_up", amount=2500, description="Card top-up")
    append(user, type="call", amount=-42, description="Call to +44 20 7946 0000")
    append(user, type="top_up", amount=999_999, description="Test-mode top-up", livemode=False)
    page = signed_in(user).get("/billing").content.decode()
    live, test = page.split('id="test-mode"', 1)
    assert "$24.58" in live
    assert "Card top-up" in live and "-$0.42" in live
    # Test-mode rows are shown apart, under the test balance, never among the live ones.
    assert "Test-mode top-up" not in live
    assert "Test-mode top-up" in test and "$9,999.99" in test


def test_signed_out_is_sent_to_sign_in():
    response = Client().get("/billing")
    assert response.status_code == 302
    assert response["Location"].startswith("/login")


def test_the_page_says_how_credit_is_added_and_spent_truthfully():
    page = signed_in(UserFactory()).get("/billing").content.decode()
    text = " ".join(page.split())
    # Never the old claim that apps can never spend: calls:place spends, within each app's allowance.
    assert "can never" not in text
    assert "<code>calls:place</code>" in text and "daily allowance you chose for it" in text
    assert 'href="/settings/connected-apps"' in page
    assert "live credit is added by the people who run it" in text
    assert 'action="/billing/test-top-up"' in page


def test_a_call_row_shows_the_calls_length():
    user = UserFactory()
    append(user, type="top_up", amount=2500)
    append(user, type="call", amount=-42, description="Call to +1 202-555-0100 (30 s)")
    assert "Call to +1 202-555-0100 (30 s)" in signed_in(user).get("/billing").content.decode()


def test_another_accounts_rows_are_never_shown():
    ada, eve = UserFactory(), UserFactory()
    append(eve, type="top_up", amount=7777, description="Eve's top-up")
    append(eve, type="top_up", amount=3333, description="Eve's test top-up", livemode=False)
    page = signed_in(ada).get("/billing").content.decode()
    assert "Eve's" not in page and "$77.77" not in page and "$33.33" not in page
