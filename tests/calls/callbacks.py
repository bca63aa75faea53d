"""Helpers of the callback tests: an account ready to call (rates, a default caller ID, credit), clients."""

import itertools
import json
import uuid
from decimal import Decimal

from django.test import Client

from apps.billing.services import ledger_append
from apps.numbers.services import caller_id_create
from apps.rates.models import Rate
from tests.support.factories import make_api_key

YOUR_PHONE = "+14155550123"  # any other number: answers in 2 s, presses 1 in 2 s
CALLEE = "+12025550100"  # answers in 5 s, talks 30 s, hangs up
STAYS = "+12025550104"
# 6 cents a minute, billed by the minute: a minute costs 6, the first increment too.
PER_MINUTE = Decimal("0.06")


def rates():
    for prefix, country, label in (
        ("1", "US", "United States"),
        ("49", "DE", "Germany"),
        ("44", "GB", "United Kingdom"),
    ):
        Rate.objects.update_or_create(
            prefix=prefix,
            defaults={
                "country": country,
                "label": label,
                "currency": "usd",
                "per_minute": PER_MINUTE,
                "first_seconds": 60,
                "next_seconds": 60,
            },
        )


def ready(user, *, livemode=True, credit=1000, phone=YOUR_PHONE, rates_too=True):
    """``user`` can place callbacks in ``livemode``: a default caller ID and ``credit`` minor units."""
    if rates_too:
        rates()
    caller_id_create(user=user, livemode=livemode, number=phone, default=True)
    if credit:
        ledger_append(user=user, livemode=livemode, amount=credit, type="top_up", source=None, description="Top-up")


_keys = itertools.count()


class Placer:
    """A /v1 client with one key; POSTs JSON with a fresh Idempotency-Key unless given one."""

    def __init__(self, user, scopes=("calls:place", "calls:read", "credits:read"), *, livemode=True, secret=None):
        if secret is None:
            _key, secret = make_api_key(user, scopes=list(scopes), livemode=livemode)
        self.secret = secret
        self.client = Client()

    def auth(self):
        return {"HTTP_AUTHORIZATION": f"Bearer {self.secret}"}

    def post(self, path, body=None, *, key: str | bool | None = True):
        headers = self.auth()
        if key is True:
            key = str(uuid.uuid4())
        if key:
            headers["HTTP_IDEMPOTENCY_KEY"] = key
        data = "" if body is None else json.dumps(body)
        return self.client.post(path, data=data, content_type="application/json", **headers)

    def get(self, path, params=None):
        return self.client.get(path, params or {}, **self.auth())

    def quote(self, to=CALLEE, **fields):
        return self.post("/v1/quotes", {"to": to, **fields}, key=None)

    def place(self, quote_id, *, key=True):
        return self.post("/v1/calls", {"quote": quote_id}, key=key)

    def quote_and_place(self, to=CALLEE, **fields):
        quote = self.quote(to, **fields)
        assert quote.status_code == 201, quote.content
        placed = self.place(quote.json()["id"])
        assert placed.status_code == 201, placed.content
        return placed.json()

    def end(self, call_id, *, key=None):
        return self.post(f"/v1/calls/{call_id}/end", key=key)

    def balance(self):
        return self.get("/v1/balance").json()

    def read(self, call: dict) -> dict:
        """The call as GET /v1/calls/{id} answers it now."""
        return self.get(f"/v1/calls/{call['id']}").json()


def outcome(call: dict) -> tuple:
    """How a call ended and what it cost: its status, end reason, duration and amount."""
    return (call["status"], call["end_reason"], call["duration"], call["amount"])


class Clock:
    """``timezone.now()`` under the test's control: ``clock.at``, moved with ``clock.tick(seconds)``."""

    def __init__(self, at):
        self.at = at

    def tick(self, seconds: float):
        from datetime import timedelta

        self.at += timedelta(seconds=seconds)
        return self.at


def frozen_clock():
    import contextlib
    from unittest import mock

    from django.utils import timezone

    @contextlib.contextmanager
    def frozen():
        clock = Clock(timezone.now().replace(microsecond=0))
        with mock.patch("django.utils.timezone.now", side_effect=lambda: clock.at):
            yield clock

    return frozen()


# --- transcript requests ------------------------------------------------------------------------------

TRANSCRIPT_SCOPES = ("calls:place", "calls:read", "credits:read", "transcripts:read")
# 0.05 a minute (the default TRANSCRIPT_PER_MINUTE) for a call billed one whole minute, in minor units.
TRANSCRIPT_PRICE = 5


def transcribe(placer: Placer, call_id: str, body=None, *, key: str | bool | None = True):
    return placer.post(f"/v1/calls/{call_id}/transcript", body, key=key)


def ended_call(placer: Placer, clock, to=STAYS, *, record=True, talk=30) -> dict:
    """A callback answered and talked ``talk`` s (30: billed one minute), then ended: final, recorded."""
    from apps.jobs.public import run_due

    call = placer.quote_and_place(to, record=record)
    run_due(now=clock.tick(10))  # you pressed 1 at +4, the callee answered at +9
    clock.tick(talk - 1)
    ended = placer.end(call["id"])
    assert ended.json()["status"] == "completed", ended.content
    return ended.json()


def summaries_owner():
    """An account ready to place callbacks in live mode, its call-summaries switch on."""
    from apps.accounts.security import sharing_update
    from tests.support.factories import UserFactory

    user = UserFactory()
    ready(user)
    sharing_update(user=user, call_summaries=True, message_reading=False)
    return user
