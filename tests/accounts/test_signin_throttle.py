"""Sign-in (/login) and admin sign-in (/admin/login/) are throttled by the one limiter
(budgets ``signin_failures.*`` in apps/ratelimit/budgets.py).

- Per source address (IPv6 per /64): 10 failed sign-ins a minute, then a 60 s back-off.
- Per account name as typed: 5 failed sign-ins per 15 minutes, then one more every 3 minutes.
- A refused attempt never checks the password: the right one waits too.
- The refusal says plainly to wait and reads the same whether or not the account exists.
- Limiter down: a clear 503 page, never a 500 and never an unthrottled sign-in.
"""

import pytest
from django.test import Client, RequestFactory

from apps.ratelimit import conf
from apps.ratelimit.exceptions import RateLimited
from apps.ratelimit.services import ratelimit_signin_attempt
from tests.support import limiter
from tests.support.factories import PASSWORD, UserFactory
from tests.support.limiter import DownStore

from .throttle_helpers import assert_refused_page, page_text

pytestmark = pytest.mark.django_db

# The limiter on a hand-driven clock (tests/support/limiter.py).
clock, store = limiter.clock, limiter.store

WAIT = "wait"


def sign_in(client, email, password, path="/login", ip="198.51.100.7"):
    return client.post(path, {"username": email, "password": password}, REMOTE_ADDR=ip)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def assert_wait_page(response, status=429):
    assert response.status_code == status, response.content[:500]
    text = response.content.decode()
    assert "Too many sign-in attempts" in text
    assert WAIT in text.lower()
    assert int(response["Retry-After"]) >= 1
    return text


# --- Per account -----------------------------------------------------------------------


def test_five_failures_for_an_account_then_even_the_right_password_waits(store, clock):
    UserFactory(email="ada@example.com")
    client = Client()
    for _ in range(5):
        assert sign_in(client, "ada@example.com", "wrong").status_code == 200
    refused = sign_in(client, "ada@example.com", PASSWORD)
    text = assert_wait_page(refused)
    assert "3 minutes" in text
    assert int(refused["Retry-After"]) == 180
    assert not signed_in(client)
    # The budget refills one attempt every 3 minutes (5 per 15 minutes).
    clock.advance(179)
    assert_wait_page(sign_in(client, "ada@example.com", PASSWORD))
    clock.advance(1)
    assert sign_in(client, "ada@example.com", PASSWORD).status_code == 302
    assert signed_in(client)


def test_the_account_budget_follows_the_account_from_any_address_and_any_case(store):
    UserFactory(email="ada@example.com")
    for n in range(5):
        sign_in(Client(), "Ada@Example.com" if n % 2 else "ada@example.com", "wrong", ip=f"203.0.113.{n}")
    assert_wait_page(sign_in(Client(), "ADA@EXAMPLE.COM", PASSWORD, ip="192.0.2.200"))


def test_an_unknown_account_is_refused_in_the_same_words(store):
    UserFactory(email="ada@example.com")
    known, unknown = Client(), Client()
    for _ in range(5):
        sign_in(known, "ada@example.com", "wrong", ip="203.0.113.1")
        sign_in(unknown, "nobody@example.com", "wrong", ip="203.0.113.2")
    a = sign_in(known, "ada@example.com", "wrong", ip="203.0.113.1")
    b = sign_in(unknown, "nobody@example.com", "wrong", ip="203.0.113.2")
    assert a.status_code == b.status_code == 429
    assert a["Retry-After"] == b["Retry-After"]
    assert page_text(a, hide="ada@example.com") == page_text(b, hide="nobody@example.com")


def test_successful_sign_ins_do_not_count(store):
    UserFactory(email="ada@example.com")
    for _ in range(12):
        client = Client()
        assert sign_in(client, "ada@example.com", PASSWORD).status_code == 302
    # Four failures after all those successes are still under the account's five.
    for _ in range(4):
        assert sign_in(Client(), "ada@example.com", "wrong").status_code == 200
    assert sign_in(Client(), "ada@example.com", PASSWORD).status_code == 302


# --- Per source address ------------------------------------------------------------------


def test_ten_failures_a_minute_from_one_address_back_it_off_for_a_minute(store, clock):
    user = UserFactory(email="grace@example.com")
    client = Client()
    for n in range(10):
        assert sign_in(client, f"guess{n}@example.com", "wrong").status_code == 200
    refused = sign_in(client, user.email, PASSWORD)
    assert_wait_page(refused)
    assert int(refused["Retry-After"]) == 60
    assert not signed_in(client)
    # Another address is not held back.
    assert sign_in(Client(), user.email, PASSWORD, ip="192.0.2.99").status_code == 302
    # The back-off lasts the whole minute, then one attempt every 6 seconds.
    clock.advance(59)
    assert_wait_page(sign_in(client, user.email, PASSWORD))
    clock.advance(1)
    assert sign_in(client, user.email, PASSWORD).status_code == 302


def test_an_ipv6_64_is_one_address(store):
    for n in range(10):
        sign_in(Client(), f"guess{n}@example.com", "wrong", ip=f"2001:db8:1:2::{n + 1:x}")
    assert_wait_page(sign_in(Client(), "other@example.com", "wrong", ip="2001:db8:1:2:ffff::1"))
    assert sign_in(Client(), "other@example.com", "wrong", ip="2001:db8:1:3::1").status_code == 200


# --- Admin sign-in -----------------------------------------------------------------------


def test_admin_sign_in_is_throttled_with_the_same_budgets(store):
    staff = UserFactory(email="root@example.com", is_staff=True, is_superuser=True)
    client = Client()
    for _ in range(3):
        assert sign_in(client, staff.email, "wrong", path="/admin/login/").status_code == 200
    for _ in range(2):
        assert sign_in(client, staff.email, "wrong").status_code == 200
    refused = sign_in(client, staff.email, PASSWORD, path="/admin/login/")
    assert_wait_page(refused)
    assert not signed_in(client)


def test_admin_sign_in_address_budget(store):
    UserFactory(email="root@example.com", is_staff=True, is_superuser=True)
    for n in range(10):
        sign_in(Client(), f"guess{n}@example.com", "wrong", path="/admin/login/")
    assert_wait_page(sign_in(Client(), "root@example.com", PASSWORD, path="/admin/login/"))


def test_a_correct_admin_sign_in_still_works(store):
    staff = UserFactory(email="root@example.com", is_staff=True, is_superuser=True)
    client = Client()
    response = sign_in(client, staff.email, PASSWORD, path="/admin/login/")
    assert response.status_code == 302
    assert signed_in(client)


# --- Through the configured store (Redis in CI) ---------------------------------------


def test_the_configured_store_counts_failures_too():
    UserFactory(email="ada@example.com")
    for _ in range(5):
        sign_in(Client(), "ada@example.com", "wrong", ip="203.0.113.50")
    assert_wait_page(sign_in(Client(), "ada@example.com", PASSWORD, ip="203.0.113.51"))


# --- Limiter down -----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/login", "/admin/login/"])
def test_limiter_down_fails_closed_with_a_clear_page(monkeypatch, path):
    UserFactory(email="ada@example.com", is_staff=True)
    down = DownStore()
    monkeypatch.setattr(conf, "get_store", lambda: down)
    client = Client(raise_request_exception=False)
    assert client.get(path).status_code == 200  # showing the form needs no limiter
    response = sign_in(client, "ada@example.com", PASSWORD, path=path)
    text = assert_refused_page(response, 503)
    assert "temporarily unavailable" in text
    assert response["Retry-After"] == "5"
    assert not signed_in(client)


# --- Reserved before the password is checked ------------------------------------------


def test_attempts_still_being_checked_already_hold_their_unit(store):
    # Parallel guesses: each reserves its failure before the (slow) password check, so
    # five in flight for one account leave no room for a sixth.
    request = RequestFactory().post("/login", REMOTE_ADDR="198.51.100.7")
    for _ in range(5):
        ratelimit_signin_attempt(request=request, account="ada@example.com")
    with pytest.raises(RateLimited):
        ratelimit_signin_attempt(request=request, account="ADA@example.com")


def test_a_right_password_on_the_last_unit_signs_in_and_the_back_off_stands(store):
    UserFactory(email="grace@example.com")
    client = Client()
    for n in range(9):
        sign_in(client, f"guess{n}@example.com", "wrong")
    # The tenth attempt spends the address's last unit: it is allowed, and right.
    assert sign_in(client, "grace@example.com", PASSWORD).status_code == 302
    # The back-off it started is not shortened by the success...
    assert_wait_page(sign_in(Client(), "x@example.com", "wrong"))
    # ...but grace's account got its unit back: five more failures are needed to hold it.
    for n in range(4):
        sign_in(Client(), "grace@example.com", "wrong", ip=f"192.0.2.{n}")
    assert sign_in(Client(), "grace@example.com", PASSWORD, ip="192.0.2.50").status_code == 302
