"""The address guard (apps/core/egress.py): resolve, refuse non-global addresses, connect to the checked address.

Client metadata documents and webhook deliveries both go through it; the
address table is the one tests/oauth/test_cimd_addresses.py reads through the
client metadata module, checked here on the guard itself, with the loopback
admission that test-mode webhooks use.
"""

import socket
import time
from urllib.parse import urlsplit

import pytest

from apps.core import egress
from tests.support.addresses import CASES, INTERNAL_ANSWERS
from tests.support.dns import FakeDNS
from tests.support.receivers import Reply


@pytest.fixture
def dns(monkeypatch):
    fake = FakeDNS(socket.getaddrinfo)
    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return fake


@pytest.mark.parametrize(("address", "public"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_the_address_table(address, public):
    assert egress.address_allowed(address) is public


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "::1"])
def test_loopback_only_when_admitted(address):
    assert not egress.address_allowed(address)
    assert egress.address_allowed(address, loopback=True)


@pytest.mark.parametrize("address", ["::ffff:127.0.0.1", "::127.0.0.1", "10.0.0.5", "192.168.1.1", "169.254.169.254"])
def test_loopback_admission_admits_nothing_else(address):
    assert not egress.address_allowed(address, loopback=True)


def _post(url, **kwargs):
    return egress.post(urlsplit(url), body=b"{}", headers={"Content-Type": "application/json"}, timeout=3, **kwargs)


def test_posts_to_the_checked_loopback_address(receiver):
    answer = _post(receiver.url(), loopback=True)
    assert answer.status == 200
    assert receiver.requests[0].body == b"{}"
    assert receiver.requests[0].headers["host"] == f"127.0.0.1:{receiver.port}"


def test_loopback_refused_unless_admitted(receiver):
    with pytest.raises(egress.AddressRefused):
        _post(receiver.url())
    assert receiver.requests == []


# Loopback is admitted here (loopback=True), yet not in its IPv4-mapped form; 6to4 is refused too.
@pytest.mark.parametrize(
    "answer", [*INTERNAL_ANSWERS, ["::ffff:127.0.0.1"], ["2002:a00:5::"]], ids=lambda a: ",".join(a)
)
def test_private_special_use_and_ipv4_in_ipv6_answers_are_refused(dns, receiver, answer):
    dns.answers["internal.example.test"] = answer
    with pytest.raises(egress.AddressRefused):
        _post(f"http://internal.example.test:{receiver.port}/hooks", loopback=True)
    assert receiver.requests == []


@pytest.mark.parametrize("host", ["10.0.0.5", "[::ffff:7f00:1]", "169.254.169.254", "[fd00::1]"])
def test_address_literals_are_checked_too(receiver, host):
    with pytest.raises(egress.AddressRefused):
        _post(f"http://{host}:{receiver.port}/hooks", loopback=True)


def test_resolved_once_so_a_changed_answer_cannot_move_the_connection(dns, receiver):
    # The first answer is the receiver; a later one would be an internal address.
    answers = iter([["127.0.0.1"]])
    dns.answers["rebind.example.test"] = lambda: next(answers, ["10.0.0.5"])
    answer = _post(f"http://rebind.example.test:{receiver.port}/hooks", loopback=True)
    assert answer.status == 200
    assert dns.lookups.count("rebind.example.test") == 1
    assert receiver.requests[0].headers["host"] == f"rebind.example.test:{receiver.port}"


def test_a_private_first_answer_is_refused_even_if_later_ones_are_allowed(dns, receiver):
    answers = iter([["10.0.0.5"]])
    dns.answers["rebind.example.test"] = lambda: next(answers, ["127.0.0.1"])
    with pytest.raises(egress.AddressRefused):
        _post(f"http://rebind.example.test:{receiver.port}/hooks", loopback=True)
    assert receiver.requests == []


def test_a_redirect_is_answered_never_followed(receiver):
    receiver.reply = Reply(302, headers={"Location": "http://127.0.0.1:1/elsewhere"})
    answer = _post(receiver.url(), loopback=True)
    assert answer.status == 302
    assert len(receiver.requests) == 1


def test_unresolvable_host(dns):
    dns.answers["nxdomain.example.test"] = socket.gaierror("Name or service not known")
    with pytest.raises(egress.EgressError):
        _post("http://nxdomain.example.test/hooks", loopback=True)


def test_a_hanging_server_is_left_at_the_deadline(receiver):
    receiver.reply = Reply(200, hang=30)
    started = time.monotonic()
    with pytest.raises(egress.EgressError, match="deadline"):
        egress.post(urlsplit(receiver.url()), body=b"{}", headers={}, timeout=0.5, loopback=True)
    assert time.monotonic() - started < 5
