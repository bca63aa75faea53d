"""The billing page's test-mode top-up: credit for the test balance only, through the billing
app's service, a bounded amount, a CSRF-protected form post, once however often it is sent."""

import re

import pytest
from django.test import Client

from apps.billing.models import Balance, BalanceTransaction
from apps.billing.public import top_up_choices
from tests.billing.factories import append, chain_holds
from tests.support.factories import UserFactory
from tests.support.oauth import signed_in

pytestmark = pytest.mark.django_db


def form_of(browser) -> dict:
    page = browser.get("/billing").content.decode()
    request_id = re.search(r'name="request_id" value="([^"]+)"', page).group(1)
    return {"request_id": request_id, "amount": str(top_up_choices()[1])}


def test_a_top_up_credits_the_test_balance_and_never_the_live_one():
    user = UserFactory()
    append(user, type="top_up", amount=2500, description="Card top-up")
    browser = signed_in(user)
    response = browser.post("/billing/test-top-up", form_of(browser))
    assert response.status_code == 302 and response["Location"] == "/billing"
    assert Balance.objects.get(user=user, livemode=True).amount == 2500
    assert Balance.objects.get(user=user, livemode=False).amount == 2000
    row = BalanceTransaction.objects.get(user=user, livemode=False)
    assert row.type == "top_up" and row.amount == 2000
    assert chain_holds(user, livemode=False) and chain_holds(user, livemode=True)
    page = browser.get("/billing").content.decode()
    assert "Added $20.00 to your test balance." in page
    assert "Test balance: <strong>$20.00</strong>" in page


def test_the_same_form_sent_twice_credits_once():
    user = UserFactory()
    browser = signed_in(user)
    form = form_of(browser)
    browser.post("/billing/test-top-up", form)
    browser.post("/billing/test-top-up", form)
    assert BalanceTransaction.objects.filter(user=user).count() == 1
    assert "was added once" in browser.get("/billing").content.decode()
    # A fresh form is a fresh top-up.
    browser.post("/billing/test-top-up", form_of(browser))
    assert Balance.objects.get(user=user, livemode=False).amount == 4000


@pytest.mark.parametrize("amount", ["1", "-2000", "99999999", "", "twenty", "2000.5"])
def test_only_the_offered_amounts_are_taken(amount):
    user = UserFactory()
    browser = signed_in(user)
    form = {**form_of(browser), "amount": amount}
    response = browser.post("/billing/test-top-up", form)
    assert response.status_code == 302
    assert not BalanceTransaction.objects.exists()
    assert "Choose one of the amounts offered." in browser.get("/billing").content.decode()


def test_a_forged_or_missing_form_id_is_refused():
    user = UserFactory()
    browser = signed_in(user)
    for request_id in ("", "short", "x" * 49, "has spaces in it here!"):
        browser.post("/billing/test-top-up", {"request_id": request_id, "amount": str(top_up_choices()[0])})
    assert not BalanceTransaction.objects.exists()


def test_the_test_balance_is_bounded():
    user = UserFactory()
    append(user, type="top_up", amount=99_000, livemode=False)
    browser = signed_in(user)
    browser.post("/billing/test-top-up", form_of(browser))  # $20 more than $1,000 would hold
    assert Balance.objects.get(user=user, livemode=False).amount == 99_000
    assert "A test balance holds at most $1,000.00." in browser.get("/billing").content.decode()


def test_the_form_needs_its_csrf_token_and_a_signed_in_user():
    user = UserFactory()
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post("/billing/test-top-up", {"request_id": "a" * 24, "amount": "2000"}).status_code == 403
    anonymous = Client().post("/billing/test-top-up", {"request_id": "a" * 24, "amount": "2000"})
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login")
    assert Client().get("/billing/test-top-up").status_code in (302, 405)
    assert not BalanceTransaction.objects.exists()


def test_one_accounts_top_up_touches_no_other_account():
    ada, eve = UserFactory(), UserFactory()
    append(eve, type="top_up", amount=500, livemode=False)
    browser = signed_in(ada)
    form = form_of(browser)
    browser.post("/billing/test-top-up", form)
    # Eve sending Ada's form id credits Eve's own test balance, and Ada's stays as it was.
    signed_in(eve).post("/billing/test-top-up", form)
    assert Balance.objects.get(user=ada, livemode=False).amount == 2000
    assert Balance.objects.get(user=eve, livemode=False).amount == 2500
