"""The registration cap holds under concurrent registrations (PostgreSQL, where requests run in parallel)."""

import json
import threading

import pytest
from django.db import connection
from django.test import Client

from apps.oauth.models import Application
from apps.oauth.registration import services

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif("connection.vendor != 'postgresql'", reason="needs concurrent writers (CI runs PostgreSQL)"),
]


def test_concurrent_registrations_never_overshoot_the_cap(monkeypatch):
    assert connection.vendor == "postgresql"
    monkeypatch.setattr(services, "REGISTRATION_CAP", 3)
    body = json.dumps({"client_name": "Racer", "redirect_uris": ["http://127.0.0.1/cb"]})
    statuses = []
    barrier = threading.Barrier(12)

    def worker():
        try:
            barrier.wait()
            response = Client().post("/oauth/register", data=body, content_type="application/json")
            statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [201] * 3 + [503] * 9
    assert Application.objects.count() == 3
