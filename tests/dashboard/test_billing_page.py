"""The billing page: where every billing_url (GET /v1/balance, svc_get_balance,
insufficient_credits errors) sends a person, signed in."""

import pytest
from django.test import Client

from tests.billing.factories import append
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "billing-page-password-1"


def signed_in(user) -> Client:
    user.set_password(PASSWORD)
    user.save()
    browser = Client()
    assert browser.login(username=user.email, password=PASSWORD)
    return browser


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
    assert "$24.58" in page
    assert "Card top-up" in page and "-$0.42" in page
    assert "Test-mode top-up" not in page


def test_signed_out_is_sent_to_sign_in():
    response = Client().get("/billing")
    assert response.status_code == 302
    assert response["Location"].startswith("/login")
