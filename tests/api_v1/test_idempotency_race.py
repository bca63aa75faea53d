"""Two concurrent requests with one Idempotency-Key execute once (docs/spec.md 7.2).

Real threads, real connections, real commits: PostgreSQL only. In-memory
SQLite gives each thread its own empty database, so the race cannot be shown
there; CI (.ci/run) runs these on PostgreSQL.
"""

import threading

import pytest
from django.db import connection
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from apps.api_v1.idempotency import IdempotentMixin
from apps.api_v1.models import IdempotencyRecord
from apps.api_v1.urls import CATCH_ALL
from apps.apikeys.models import ApiKey
from apps.credentials.session import DashboardSessionAuthentication
from tests.support.factories import UserFactory
from tests.support.races import postgresql_only, together

pytestmark = [
    pytest.mark.urls(__name__),
    pytest.mark.django_db(transaction=True),
    postgresql_only,
]

KEY = "0f8e2a6b-5c4d-4e3f-8a9b-7c6d5e4f3a2b"
entered = threading.Event()
release = threading.Event()
executions = []


class BlockingView(IdempotentMixin, APIView):
    """Holds the request inside its handler until the test lets it go."""

    authentication_classes = [DashboardSessionAuthentication]

    def post(self, request):
        executions.append(1)
        entered.set()
        assert release.wait(10), "the test never released the request"
        return Response({"n": len(executions)}, status=201)


urlpatterns = [path("v1/_block", BlockingView.as_view()), path("", include("config.urls")), *CATCH_ALL]


def in_thread(fn):
    """Run fn in a thread with its own connection; returns a joinable result holder."""
    result = {}

    def run():
        try:
            result["response"] = fn()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    result["thread"] = thread
    return result


def signed_in(user):
    client = APIClient()
    client.force_login(user)
    return client


def test_concurrent_creates_with_one_key_make_one_key():
    user = UserFactory()
    body = {"name": "raced", "scopes": ["rates:read"]}
    threads = 8
    clients = [signed_in(user) for _ in range(threads)]

    responses = together(
        lambda i: clients[i].post("/v1/api-keys", body, format="json", HTTP_IDEMPOTENCY_KEY=KEY), threads
    )

    assert ApiKey.objects.filter(user=user).count() == 1
    fresh = [r for r in responses if r.status_code == 201 and "Idempotent-Replayed" not in r]
    assert len(fresh) == 1
    assert fresh[0].json()["secret"].startswith("sk_live_")
    for r in responses:
        if r is fresh[0]:
            continue
        if r.status_code == 201:
            assert r["Idempotent-Replayed"] == "true"
            assert r.json()["id"] == fresh[0].json()["id"]
            assert r.json()["secret"] is None
        else:
            assert r.status_code == 409, r.content
            assert r.json()["error"]["code"] == "idempotency_in_progress"
    assert IdempotencyRecord.objects.get().response_status == 201


def test_second_request_while_the_first_executes_is_in_progress_then_replays():
    user = UserFactory()
    entered.clear()
    release.clear()
    executions.clear()
    first = in_thread(lambda: signed_in(user).post("/v1/_block", {"a": 1}, format="json", HTTP_IDEMPOTENCY_KEY=KEY))
    try:
        assert entered.wait(10), first.get("response") and first["response"].content
        client = signed_in(user)
        during = client.post("/v1/_block", {"a": 1}, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
        assert during.status_code == 409
        assert during.json()["error"]["code"] == "idempotency_in_progress"
        assert during.json()["error"]["type"] == "idempotency_error"
        # A different body is refused as reuse even while the first runs.
        other = client.post("/v1/_block", {"a": 2}, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
        assert other.json()["error"]["code"] == "idempotency_key_reused"
    finally:
        release.set()
        first["thread"].join(20)
    assert first["response"].status_code == 201
    after = signed_in(user).post("/v1/_block", {"a": 1}, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    assert after.status_code == 201
    assert after["Idempotent-Replayed"] == "true"
    assert after.json() == {"n": 1}
    assert executions == [1]


def test_concurrent_rotations_with_one_key_rotate_once():
    from apps.apikeys.services import apikey_create

    user = UserFactory()
    key, _ = apikey_create(user=user, name="k", scopes=["rates:read"])
    threads = 6
    clients = [signed_in(user) for _ in range(threads)]

    responses = together(
        lambda i: clients[i].post(
            f"/v1/api-keys/{key.id}/rotate", HTTP_IDEMPOTENCY_KEY=KEY, content_type="application/json"
        ),
        threads,
    )
    shown = [r.json()["secret"] for r in responses if r.status_code == 200 and r.json()["secret"]]
    assert len(shown) == 1
    for r in responses:
        assert r.status_code in (200, 409), r.content
        if r.status_code == 409:
            assert r.json()["error"]["code"] == "idempotency_in_progress"
    key.refresh_from_db()
    assert key.secret_last4 == shown[0][-4:]
