"""Fixtures of the tests of what the user decides: an account ready to call, its clock, a DNS stand-in."""

import socket

import pytest

from tests.calls.callbacks import frozen_clock, ready
from tests.support.dns import FakeDNS
from tests.support.factories import UserFactory


@pytest.fixture
def owner(db):
    user = UserFactory(email="owner@example.com", display_name="Olive Owner")
    ready(user)
    return user


@pytest.fixture
def clock():
    with frozen_clock() as clock:
        yield clock


@pytest.fixture
def dns(monkeypatch):
    fake = FakeDNS(socket.getaddrinfo)
    fake.answers["hooks.example.com"] = ["93.184.216.34"]
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake
