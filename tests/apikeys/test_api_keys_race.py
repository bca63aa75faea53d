"""The 10-live-key limit holds under concurrent creation (PostgreSQL, real threads)."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from apps.apikeys.models import ApiKey
from tests.support.factories import UserFactory, make_api_key

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: threads on in-memory SQLite do not share one database",
    ),
]


def test_concurrent_creates_never_pass_ten_live_keys():
    user = UserFactory()
    for i in range(8):
        make_api_key(user, name=f"existing {i}")
    threads = 6
    barrier = threading.Barrier(threads)
    responses = [None] * threads

    def fire(i):
        client = APIClient()
        client.force_login(user)
        try:
            barrier.wait(5)
            responses[i] = client.post("/v1/api-keys", {"name": f"new {i}", "scopes": ["rates:read"]}, format="json")
        finally:
            connection.close()

    workers = [threading.Thread(target=fire, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(20)

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201, 201, 409, 409, 409, 409], [r.content for r in responses]
    assert all(r.json()["error"]["code"] == "api_key_limit" for r in responses if r.status_code == 409)
    assert ApiKey.objects.filter(user=user).count() == 10
