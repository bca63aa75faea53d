"""Fixtures of the webhook tests: keys of both modes, a JSON client, local receivers, a DNS stand-in."""

import socket

import pytest

from tests.support.dns import FakeDNS
from tests.support.factories import UserFactory
from tests.support.receivers import Receiver
from tests.support.webhooks import key_caller


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
