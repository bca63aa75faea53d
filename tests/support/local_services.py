"""Fixtures the folders share, made visible everywhere by tests/conftest.py: a local webhook
receiver, a DNS stand-in that answers for the webhook host, and a private redis-server (with
the request budgets kept on it). A folder's conftest.py may add to one: ``def dns(dns)``."""

import socket
from contextlib import closing

import pytest

from tests.ratelimit.redis_server import start_private_redis
from tests.support.dns import FakeDNS
from tests.support.receivers import Receiver


@pytest.fixture
def receiver():
    """A local HTTP receiver on a free loopback port (tests/support/receivers.py)."""
    with closing(Receiver()) as server:
        yield server


@pytest.fixture
def dns(monkeypatch):
    """``socket.getaddrinfo`` answering hooks.example.com with a public address."""
    fake = FakeDNS(socket.getaddrinfo)
    fake.answers["hooks.example.com"] = ["93.184.216.34"]
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


@pytest.fixture
def redis_server():
    """A redis-server of this test's own on a free port, which it may stop and count; never the shared one."""
    server = start_private_redis()
    yield server
    server.stop()


@pytest.fixture
def on_redis(redis_server, settings):
    """The request budgets kept on ``redis_server``."""
    from apps.ratelimit import conf

    settings.RATELIMIT = {"STORE": conf.REDIS_STORE, "REDIS_URL": redis_server.url, "KEY_PREFIX": "budgets"}
    return redis_server
