"""The caller's address behind reverse proxies (apps/core/net.py).

X-Forwarded-For is read only when the peer is a trusted proxy; then it is read
from the right, each trusted hop vouching for the one to its left, and the first
hop that is not a trusted proxy is the client. Entries may carry a port
(``1.2.3.4:5678``, ``[2001:db8::1]:443``), as some proxies write them.
"""

import pytest
from django.test import RequestFactory

from apps.core.net import client_ip
from apps.ratelimit.limiter import source_key

PROXIES = ["10.0.0.0/8", "2001:db8:ffff::/48"]


def request(remote: str, forwarded: str | None = None):
    meta = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **meta)


@pytest.fixture
def proxies(settings):
    settings.TRUSTED_PROXIES = PROXIES


@pytest.mark.parametrize(
    ("remote", "forwarded", "client"),
    [
        # The nearest untrusted hop is the client; what it claims further left is ignored.
        ("10.0.0.1", "198.51.100.7", "198.51.100.7"),
        ("10.0.0.1", "203.0.113.66, 198.51.100.7", "198.51.100.7"),
        ("10.0.0.1", "203.0.113.66, 198.51.100.7, 10.0.0.2", "198.51.100.7"),
        ("10.0.0.1", "203.0.113.66,198.51.100.7,10.0.0.2,10.9.9.9", "198.51.100.7"),
        # Every hop a trusted proxy: the request started inside; the furthest hop is all there is.
        ("10.0.0.1", "10.0.0.3, 10.0.0.2", "10.0.0.3"),
        # No header from a trusted proxy: the proxy itself.
        ("10.0.0.1", None, "10.0.0.1"),
        ("10.0.0.1", " , ", "10.0.0.1"),
        # Entries with a port are read as their address.
        ("10.0.0.1", "198.51.100.7:5678", "198.51.100.7"),
        ("10.0.0.1", "203.0.113.66:1, 198.51.100.7:5678, 10.0.0.2:443", "198.51.100.7"),
        ("10.0.0.1", "[2001:db8::1]:443", "2001:db8::1"),
        ("10.0.0.1", "[2001:db8::1]", "2001:db8::1"),
        ("10.0.0.1", "2001:DB8::1", "2001:db8::1"),
        ("10.0.0.1", "[2001:db8::1]:443, [2001:db8:ffff::9]:80", "2001:db8::1"),
        # A trusted proxy written with a port is still a trusted proxy.
        ("10.0.0.1", "198.51.100.7, 10.0.0.2:8080", "198.51.100.7"),
        # An IPv4-mapped peer is the IPv4 proxy it maps.
        ("::ffff:10.0.0.1", "198.51.100.7", "198.51.100.7"),
    ],
)
def test_behind_trusted_proxies(proxies, remote, forwarded, client):
    assert client_ip(request(remote, forwarded)) == client


@pytest.mark.parametrize("forwarded", ["198.51.100.7", "198.51.100.7:5678", "10.0.0.2, 198.51.100.7"])
def test_an_untrusted_peer_is_the_client_whatever_it_forwards(proxies, forwarded):
    assert client_ip(request("192.0.2.10", forwarded)) == "192.0.2.10"


def test_no_trusted_proxies_means_the_peer(settings):
    settings.TRUSTED_PROXIES = []
    assert client_ip(request("192.0.2.10", "198.51.100.7")) == "192.0.2.10"


def test_clients_behind_a_proxy_writing_ports_get_their_own_budget_keys(proxies):
    first = source_key(request("10.0.0.1", "198.51.100.7:5678"))
    second = source_key(request("10.0.0.1", "198.51.100.8:5678"))
    assert first == "198.51.100.7"
    assert second == "198.51.100.8"
    # The same IPv6 /64 with or without a port is one key; another /64 is another.
    assert source_key(request("10.0.0.1", "[2001:db8:1:2::1]:443")) == "2001:db8:1:2::/64"
    assert source_key(request("10.0.0.1", "2001:db8:1:2::99")) == "2001:db8:1:2::/64"
    assert source_key(request("10.0.0.1", "[2001:db8:1:3::1]:443")) == "2001:db8:1:3::/64"


@pytest.mark.parametrize("garbage", ["unknown", "_hidden", "1.2.3.4:port", "[::1", "::1]:80", "1.2.3.4:99999"])
def test_an_unreadable_entry_is_never_taken_for_a_proxy(proxies, garbage):
    # Not an address: it cannot be a trusted proxy, so the walk stops there (one shared key).
    assert client_ip(request("10.0.0.1", f"198.51.100.7, {garbage}")) == garbage.strip()
