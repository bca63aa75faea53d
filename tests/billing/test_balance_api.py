"""GET /v1/balance (docs/design.md, Phase 2): the object, low_balance at its threshold, modes and accounts apart."""

import pytest

from apps.core.envelope import error_body
from apps.core.errors import ApiError
from tests.billing.factories import append
from tests.billing.shapes import BALANCE_FIELDS
from tests.support.factories import UserFactory, make_api_key

pytestmark = pytest.mark.django_db


def test_the_balance_object(user, live_secret, get):
    append(user, amount=1234)
    response = get("/v1/balance", live_secret)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Request-Id"].startswith("req_")
    assert response.json() == {
        "object": "balance",
        "amount": 1234,
        "currency": "usd",
        "held_amount": 0,
        "available_amount": 1234,
        "low_balance": False,
        "billing_url": "http://testserver/billing",
        "livemode": True,
    }


def test_an_account_without_a_ledger_has_a_balance_of_zero(live_secret, get):
    body = get("/v1/balance", live_secret).json()
    assert set(body) == BALANCE_FIELDS
    assert body["amount"] == 0
    assert body["currency"] == "usd"
    assert body["low_balance"] is True


def test_billing_url_is_the_one_the_insufficient_credits_error_names(user, live_secret, get, settings):
    settings.APP_URL = "https://app.example.test"
    expected = error_body(None, ApiError("insufficient_credits"))["error"]["billing_url"]
    assert get("/v1/balance", live_secret).json()["billing_url"] == expected == "https://app.example.test/billing"


@pytest.mark.parametrize(("amount", "low"), [(499, True), (500, False), (501, False), (-20, True)])
def test_low_balance_is_below_the_threshold(user, live_secret, get, settings, amount, low):
    assert settings.LOW_BALANCE_THRESHOLD == 500  # the default: $5.00
    append(user, type="adjustment", amount=amount)
    body = get("/v1/balance", live_secret).json()
    assert (body["amount"], body["low_balance"]) == (amount, low)


def test_the_threshold_is_a_setting(user, live_secret, get, settings):
    settings.LOW_BALANCE_THRESHOLD = 2000
    append(user, amount=1999)
    assert get("/v1/balance", live_secret).json()["low_balance"] is True
    append(user, type="adjustment", amount=1)
    assert get("/v1/balance", live_secret).json()["low_balance"] is False


def test_a_test_key_sees_the_test_balance_and_a_live_key_the_live_one(user, live_secret, test_secret, get):
    append(user, amount=5000, livemode=True)
    append(user, amount=700, livemode=False)
    live = get("/v1/balance", live_secret).json()
    test = get("/v1/balance", test_secret).json()
    assert (live["amount"], live["livemode"]) == (5000, True)
    assert (test["amount"], test["livemode"]) == (700, False)


def test_a_test_key_of_an_account_without_test_rows_sees_zero(user, test_secret, get):
    append(user, amount=5000, livemode=True)
    assert get("/v1/balance", test_secret).json()["amount"] == 0


def test_another_accounts_balance_is_never_seen(user, live_secret, get):
    other = UserFactory()
    append(other, amount=9999)
    assert get("/v1/balance", live_secret).json()["amount"] == 0
    _key, other_secret = make_api_key(other, scopes=["credits:read"])
    assert get("/v1/balance", other_secret).json()["amount"] == 9999


def test_head_and_no_writes(live_secret, client):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {live_secret}"}
    assert client.head("/v1/balance", **auth).status_code == 200
    response = client.post("/v1/balance", {}, content_type="application/json", **auth)
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_balance_counts_against_the_reads_budget(live_secret, get):
    response = get("/v1/balance", live_secret)
    assert response["RateLimit-Policy"] == "60;w=60"


def test_every_billing_read_spends_the_one_reads_budget(user, live_secret, get):
    row = append(user)
    remaining = []
    for path in ("/v1/balance", "/v1/balance_transactions", f"/v1/balance_transactions/{row.id}"):
        response = get(path, live_secret)
        assert response["RateLimit-Policy"] == "60;w=60"
        remaining.append(int(response["X-RateLimit-Remaining"]))
    assert remaining == sorted(remaining, reverse=True) and remaining[0] > remaining[-1]
