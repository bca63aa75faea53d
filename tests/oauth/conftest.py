"""Fixtures of the OAuth tests: a client and a signed-in browser, the client metadata document servers
(tests/oauth/cimd_support.py)."""

import socket
from contextlib import closing

import pytest

from tests.oauth.cimd_support import FIXTURE_HOSTS, FakeDNS, SlowHost, make_certificates, start_https_server
from tests.support.limiter import memory_limiter
from tests.support.oauth import make_client, signed_in


@pytest.fixture
def app():
    """A registered client (a module needing another kind defines its own ``app``)."""
    return make_client()


@pytest.fixture
def browser(user):
    """``user`` signed in at the dashboard."""
    return signed_in(user)


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory):
    return make_certificates(tmp_path_factory.mktemp("cimd-tls"))


@pytest.fixture(scope="session")
def https_server(tls_files):
    fixture, server = start_https_server(tls_files)
    yield fixture
    server.shutdown()
    server.server_close()


@pytest.fixture
def dns(monkeypatch):
    fake = FakeDNS(socket.getaddrinfo)
    for host in FIXTURE_HOSTS:
        fake.answers[host] = ["127.0.0.1"]
    fake.answers["wrong-name.example.test"] = ["127.0.0.1"]
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


@pytest.fixture
def cimd(https_server, tls_files, dns, settings):
    """The fixture server, admitted through the test-only settings."""
    settings.CIMD_TEST_ALLOWED_ADDRESSES = ["127.0.0.1"]
    settings.CIMD_TEST_CA_FILE = str(tls_files[0])
    https_server.routes.clear()
    https_server.hits.clear()
    return https_server


@pytest.fixture
def slow_host():
    with closing(SlowHost()) as host:
        yield host


@pytest.fixture
def limiter(monkeypatch):
    """The limiter's store for this test: in-process, on a hand-driven clock (``limiter.clock``)."""
    return memory_limiter(monkeypatch)
