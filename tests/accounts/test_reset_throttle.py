"""Password-reset mails are throttled by the one limiter (budgets ``password_reset.*``).

At most 3 requests an hour per account name as typed and 10 an hour per source
address (IPv6 per /64). Every request counts, whether or not an account has the
address, so the answers never tell which accounts exist: the same redirect to
"sent" while within budget, the same "wait" page beyond it.
"""

import pytest
from django.core import mail
from django.test import Client

from apps.ratelimit import conf
from tests.support import limiter
from tests.support.factories import UserFactory
from tests.support.limiter import DownStore

from .throttle_helpers import assert_refused_page, page_text

pytestmark = pytest.mark.django_db

# The limiter on a hand-driven clock (tests/support/limiter.py).
clock, store = limiter.clock, limiter.store


def reset(email, ip="198.51.100.7", client=None):
    return (client or Client()).post("/password-reset", {"email": email}, REMOTE_ADDR=ip)


def assert_wait_page(response):
    text = assert_refused_page(response, 429)
    assert "Too many password reset requests" in text
    assert "wait" in text.lower()
    return text


def test_three_mails_an_hour_per_account(store, clock):
    UserFactory(email="ada@example.com")
    for n in range(3):
        response = reset("ada@example.com", ip=f"203.0.113.{n}")
        assert response.status_code == 302 and response["Location"] == "/password-reset/sent"
    assert len(mail.outbox) == 3
    refused = reset("ADA@example.com", ip="203.0.113.9")
    text = assert_wait_page(refused)
    assert "20 minutes" in text
    assert int(refused["Retry-After"]) == 1200
    assert len(mail.outbox) == 3
    clock.advance(1200)
    assert reset("ada@example.com").status_code == 302
    assert len(mail.outbox) == 4


def test_an_unknown_address_answers_exactly_like_a_known_one(store):
    UserFactory(email="ada@example.com")
    known = [reset("ada@example.com", ip="203.0.113.1") for _ in range(4)]
    unknown = [reset("nobody@example.com", ip="203.0.113.2") for _ in range(4)]
    assert [r.status_code for r in known] == [r.status_code for r in unknown] == [302, 302, 302, 429]
    assert [r.get("Location") for r in known] == [r.get("Location") for r in unknown]
    assert known[-1]["Retry-After"] == unknown[-1]["Retry-After"]
    assert page_text(known[-1], hide="ada@example.com") == page_text(unknown[-1], hide="nobody@example.com")
    assert len(mail.outbox) == 3  # mails went to the account that exists only


def test_ten_an_hour_per_address(store):
    for n in range(10):
        assert reset(f"someone{n}@example.com").status_code == 302
    assert_wait_page(reset("ada@example.com"))
    assert reset("ada@example.com", ip="192.0.2.1").status_code == 302
    # One IPv6 /64 is one address.
    for n in range(10):
        reset(f"v6-{n}@example.com", ip=f"2001:db8:5:6::{n + 1:x}")
    assert_wait_page(reset("ada@example.com", ip="2001:db8:5:6:abcd::1"))


def test_the_configured_store_counts_resets_too():
    UserFactory(email="ada@example.com")
    for _ in range(3):
        reset("ada@example.com", ip="203.0.113.60")
    assert_wait_page(reset("ada@example.com", ip="203.0.113.61"))
    assert len(mail.outbox) == 3


def test_limiter_down_sends_nothing_and_says_so(monkeypatch):
    UserFactory(email="ada@example.com")
    down = DownStore()
    monkeypatch.setattr(conf, "get_store", lambda: down)
    response = reset("ada@example.com", client=Client(raise_request_exception=False))
    text = assert_refused_page(response, 503)
    assert "temporarily unavailable" in text
    assert response["Retry-After"] == "5"
    assert mail.outbox == []
