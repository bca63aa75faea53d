"""Fixtures of the webhook tests: keys of both modes, a JSON client, local receivers, a DNS stand-in."""

import socket

import pytest
from rest_framework.test import APIClient

from tests.support.dns import FakeDNS
from tests.support.factories import UserFactory, make_api_key
from tests.support.receivers import Receiver

ALL_READS = ["webhooks:manage", "calls:read", "credits:read", "messages:read", "transcripts:read"]


class Caller:
    """A /v1 client with one bearer secret."""

    def __init__(self, secret: str):
        self.secret = secret
        self.client = APIClient()

    def _headers(self, extra):
        return {"HTTP_AUTHORIZATION": f"Bearer {self.secret}", **extra}

    def get(self, path, params=None, **extra):
        return self.client.get(path, params or {}, **self._headers(extra))

    def post(self, path, data=None, **extra):
        return self.client.post(path, data if data is not None else {}, format="json", **self._headers(extra))

    def delete(self, path, **extra):
        return self.client.delete(path, **self._headers(extra))


def key_caller(user, *, scopes=ALL_READS, livemode=False) -> tuple:
    key, secret = make_api_key(user, scopes=scopes, livemode=livemode)
    return key, Caller(secret)


@pytest.fixture
def owner(db):
    return UserFactory(email="owner@example.com")


@pytest.fixture
def test_key(owner):
    """A test-mode key with webhooks:manage and every read a webhook type needs."""
    return key_caller(owner)


@pytest.fixture
def caller(test_key):
    return test_key[1]


@pytest.fixture
def live_caller(owner):
    return key_caller(owner, livemode=True)[1]


@pytest.fixture
def dns(monkeypatch):
    fake = FakeDNS(socket.getaddrinfo)
    fake.answers["hooks.example.com"] = ["93.184.216.34"]
    fake.answers["internal.example.com"] = ["10.0.0.5"]
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


@pytest.fixture
def other_receiver():
    server = Receiver()
    yield server
    server.close()
