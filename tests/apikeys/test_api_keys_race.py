"""The 10-live-key limit holds under concurrent creation (PostgreSQL, real threads)."""

import pytest
from rest_framework.test import APIClient

from apps.apikeys.models import ApiKey
from tests.support.factories import UserFactory, make_api_key
from tests.support.races import postgresql_only, together

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]


def test_concurrent_creates_never_pass_ten_live_keys():
    user = UserFactory()
    for i in range(8):
        make_api_key(user, name=f"existing {i}")
    clients = [APIClient() for _ in range(6)]
    for client in clients:
        client.force_login(user)

    responses = together(
        lambda i: clients[i].post("/v1/api-keys", {"name": f"new {i}", "scopes": ["rates:read"]}, format="json"), 6
    )

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201, 201, 409, 409, 409, 409], [r.content for r in responses]
    assert all(r.json()["error"]["code"] == "api_key_limit" for r in responses if r.status_code == 409)
    assert ApiKey.objects.filter(user=user).count() == 10
