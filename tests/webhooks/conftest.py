"""Fixtures of the webhook tests: keys of both modes, a JSON client, local receivers, a DNS stand-in
(the shared ``receiver`` and ``dns`` of tests/support/local_services.py, added to)."""

from contextlib import closing

import pytest

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
def dns(dns):
    """The shared stand-in (tests/support/local_services.py), and a host with a private address."""
    dns.answers["internal.example.com"] = ["10.0.0.5"]
    return dns


@pytest.fixture
def other_receiver():
    """A second receiver, for the tests that post to two."""
    with closing(Receiver()) as server:
        yield server


LIVE_HOST = "hooks.example.test"


@pytest.fixture(scope="session")
def receiver_tls(tmp_path_factory):
    from cryptography import x509

    from tests import tls

    return tls.make_certificates(
        tmp_path_factory.mktemp("webhook-tls"),
        ca_name="Webhook receiver test CA",
        common_name=LIVE_HOST,
        alt_names=[x509.DNSName(LIVE_HOST)],
    )


@pytest.fixture
def live_receiver(receiver_tls, dns, settings):
    """An https receiver on loopback reached as https://hooks.example.test:PORT, admitted by the
    test-only settings (no deployment sets them) so that live-mode endpoints can reach it."""
    settings.WEBHOOK_TEST_ALLOWED_ADDRESSES = ["127.0.0.1"]
    settings.WEBHOOK_TEST_CA_FILE = str(receiver_tls[0])
    dns.answers[LIVE_HOST] = ["127.0.0.1"]
    server = Receiver(tls=receiver_tls[1:])
    yield server
    server.close()
