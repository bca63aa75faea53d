"""The reads' references (bench/drf_peer/, bench/limits.py) answer what ours answers for a small account."""

import pytest
from django.db import connection
from django.test import override_settings

from apps.audit.models import AuditEvent
from apps.rates.models import Rate
from bench.drf_peer import settings as peer
from tests.billing.factories import append
from tests.calls.factories import CallFactory
from tests.contacts.factories import make_contacts
from tests.messages.factories import make_message, make_sms_number
from tests.support.factories import make_api_key

pytestmark = pytest.mark.django_db

PAGE_READS = (
    "/v1/balance_transactions?limit=10",
    "/v1/calls?limit=10",
    "/v1/contacts?query=ana",
    "/v1/messages?limit=10",
)
LIMITS = (
    "/bench/limit/ledger?",
    "/bench/limit/calls?",
    "/bench/limit/contacts?query=ana&",
    "/bench/limit/messages?",
)


@pytest.fixture
def bearer(user):
    scopes = ["rates:read", "credits:read", "calls:read", "contacts:read", "messages:read", "messages:history"]
    _key, secret = make_api_key(user, scopes=scopes)
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.fixture
def account(user):
    for _ in range(12):
        append(user)
    CallFactory.create_batch(12, user=user)
    Rate.objects.create(prefix="49151", country="DE", label="Germany - Mobile", currency="usd",
                        per_minute="0.045", first_seconds=60, next_seconds=60)  # fmt: skip
    make_contacts(user, ["Ana Lopez", "Anabel Ruiz", "Bruno Diaz", "Ana Maria Sol"])
    # Two shared numbers and one switched off: the list reads the shared ones', a month back (messages:history).
    shared = [make_sms_number(user, "+442071838750"), make_sms_number(user, "+442071838751")]
    hidden = make_sms_number(user, "+442071838752", shared=False)
    for n in range(14):
        make_message(shared[n % 2], f"Your code is {100000 + n}.", ago=3600 * 24 * n + 5)
        make_message(hidden, "Not shared", ago=n)
    return user


PEER = {
    "ROOT_URLCONF": peer.ROOT_URLCONF,
    "MIDDLEWARE": peer.MIDDLEWARE,
    "REST_FRAMEWORK": peer.REST_FRAMEWORK,
    "OAUTH2_PROVIDER": peer.OAUTH2_PROVIDER,
    "CACHES": {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
}


def ours(client, bearer, path):
    answer = client.get(path, **bearer)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    return [row["id"] for row in body["data"]] if "data" in body else body


def test_the_peer_answers_the_reads_with_the_same_objects(api, account, bearer):
    expected = {path: ours(api, bearer, path) for path in ("/v1/me", "/v1/rates?to=%2B4915112345678", *PAGE_READS)}
    messages = api.get("/v1/messages?limit=10", **bearer).json()["data"]  # the whole objects, field for field
    with override_settings(**PEER):
        me = api.get("/v1/me", **bearer)
        assert me.status_code == 200
        assert me.json()["id"] == expected["/v1/me"]["id"]
        rate = api.get("/v1/rates?to=%2B4915112345678", **bearer)
        assert rate.status_code == 200, rate.content
        assert rate.json()["prefix"] == expected["/v1/rates?to=%2B4915112345678"]["prefix"]
        for path in PAGE_READS:
            answer = api.get(path, **bearer)
            assert answer.status_code == 200, (path, answer.content)
            assert [row["id"] for row in answer.json()["results"]] == expected[path], path
        assert api.get("/v1/messages?limit=10", **bearer).json()["results"] == messages


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the limit's statements are PostgreSQL's")
def test_the_limit_views_return_the_rows_ours_returns(api, account, bearer, client):
    expected = {path: ours(api, bearer, path) for path in PAGE_READS}
    with override_settings(BENCH_FLOOR=True, ROOT_URLCONF="bench.urls"):
        for path, limit in zip(PAGE_READS, LIMITS, strict=True):
            answer = client.get(f"{limit}user={account.pk}")
            assert answer.status_code == 200
            assert [row["id"] for row in answer.json()["data"]] == expected[path], path


def test_each_message_reference_writes_the_audit_rows_ours_writes(api, account, bearer, client):
    """The message list's audit rows (one per number read) are the read's own statement: both references pay it."""
    ours(api, bearer, "/v1/messages?limit=10")
    wanted = sorted(AuditEvent.objects.filter(event_type="messages.read").values_list("data__number", "data__count"))
    assert wanted == [("+442071838750", 5), ("+442071838751", 5)]
    AuditEvent.objects.filter(event_type="messages.read").delete()
    with override_settings(**PEER):
        assert api.get("/v1/messages?limit=10", **bearer).status_code == 200
    assert sorted(AuditEvent.objects.values_list("data__number", "data__count").filter(event_type="messages.read")) == (
        wanted
    )
    if connection.vendor == "postgresql":
        AuditEvent.objects.filter(event_type="messages.read").delete()
        with override_settings(BENCH_FLOOR=True, ROOT_URLCONF="bench.urls"):
            assert client.get(f"/bench/limit/messages?user={account.pk}").status_code == 200
        assert (
            sorted(AuditEvent.objects.values_list("data__number", "data__count").filter(event_type="messages.read"))
            == wanted
        )
