"""The registration cap holds under concurrent registrations (PostgreSQL, where requests run in parallel)."""

import json

import pytest
from django.db import connection
from django.test import Client

from apps.oauth.models import Application
from apps.oauth.registration import services
from tests.support.races import postgresql_only, together

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]


def test_concurrent_registrations_never_overshoot_the_cap(monkeypatch):
    assert connection.vendor == "postgresql"
    monkeypatch.setattr(services, "REGISTRATION_CAP", 3)
    body = json.dumps({"client_name": "Racer", "redirect_uris": ["http://127.0.0.1/cb"]})

    responses = together(lambda _i: Client().post("/oauth/register", data=body, content_type="application/json"), 12)

    assert sorted(r.status_code for r in responses) == [201] * 3 + [503] * 9
    assert Application.objects.count() == 3
