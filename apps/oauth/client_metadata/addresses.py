"""Which addresses a client metadata document may be fetched from: globally routable ones only.

``ipaddress.is_global`` is the base, and is not enough on Python 3.11: it calls
IPv4 and IPv6 multicast, IPv6 site-local and the newer special-use ranges
global, and it judges an IPv6 address that carries an IPv4 one by its IPv6
prefix alone, so ``::ffff:0:a00:5`` or ``64:ff9b:1::a00:5`` would reach
10.0.0.5 through a translator. Every IPv4-in-IPv6 form is refused outright,
whatever IPv4 it carries: a client's document host has a native address of
its own, and decoding each form (as DOT's check tries) misses the forms it
does not know.
"""

import ipaddress

from django.conf import settings

REFUSED_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in (
        # IPv4 inside IPv6.
        "::/96",  # IPv4-compatible (RFC 4291 2.5.5.1), with :: and ::1
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated (RFC 2765)
        "64:ff9b::/96",  # NAT64 well-known prefix (RFC 6052)
        "64:ff9b:1::/48",  # NAT64 local use (RFC 8215)
        "2002::/16",  # 6to4 (RFC 3056)
        "2001::/32",  # Teredo (RFC 4380)
        # Special-use ranges that is_global lets through on Python 3.11.
        "2001::/23",  # IETF protocol assignments (RFC 2928)
        "fec0::/10",  # site-local (deprecated, RFC 3879)
        "ff00::/8",  # IPv6 multicast
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # SRv6 segment identifiers (RFC 9602)
        "224.0.0.0/4",  # IPv4 multicast
        "192.0.0.0/24",  # IETF protocol assignments (RFC 6890)
        "192.88.99.0/24",  # 6to4 relay anycast (deprecated, RFC 7526)
    )
)


def address_allowed(ip: str) -> bool:
    """Whether a document may be fetched from ``ip`` (an address as ``getaddrinfo`` gives it).

    Tests admit their local fixture server through ``CIMD_TEST_ALLOWED_ADDRESSES``,
    a setting no deployment defines.
    """
    if ip in getattr(settings, "CIMD_TEST_ALLOWED_ADDRESSES", ()):
        return True
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if any(address.version == network.version and address in network for network in REFUSED_NETWORKS):
        return False
    return address.is_global
