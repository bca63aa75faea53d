"""Addresses and whether a server may connect to them (apps/core/egress.py), shared by the tests of both fetchers."""

CASES = [
    # Public addresses: fetched.
    ("93.184.216.34", True),
    ("8.8.8.8", True),
    ("2606:4700::1111", True),
    ("2001:4860:4860::8888", True),
    ("2a00:1450:4001:82b::200e", True),
    # IPv4 ranges that are not public.
    ("127.0.0.1", False),
    ("10.0.0.5", False),
    ("172.16.4.4", False),
    ("192.168.1.20", False),
    ("169.254.169.254", False),
    ("100.64.0.1", False),
    ("0.0.0.0", False),
    ("255.255.255.255", False),
    ("198.18.0.1", False),
    ("240.0.0.1", False),
    ("192.0.2.1", False),
    ("224.0.0.1", False),  # multicast: is_global on Python 3.11
    ("239.255.255.250", False),
    ("192.0.0.9", False),  # IETF protocol assignments
    ("192.88.99.1", False),  # 6to4 relay anycast
    # IPv6 ranges that are not public.
    ("::1", False),
    ("::", False),
    ("fd00::1", False),
    ("fe80::1", False),
    ("fe80::1%1", False),
    ("2001:db8::1", False),
    ("100::1", False),
    ("fec0::1", False),  # site-local: is_global on Python 3.11
    ("ff02::1", False),  # multicast: is_global on Python 3.11
    ("ff0e::1", False),
    ("3fff::1", False),  # documentation (RFC 9637)
    ("5f00::1", False),  # SRv6 segment identifiers (RFC 9602)
    # Every IPv4-in-IPv6 form, carrying an internal and a public IPv4 alike.
    ("::a00:5", False),  # IPv4-compatible ::/96
    ("::808:808", False),
    ("::ffff:10.0.0.5", False),  # IPv4-mapped ::ffff:0:0/96
    ("::ffff:8.8.8.8", False),
    ("::ffff:0:a00:5", False),  # IPv4-translated ::ffff:0:0:0/96
    ("::ffff:0:808:808", False),
    ("64:ff9b::a00:5", False),  # NAT64 64:ff9b::/96
    ("64:ff9b::808:808", False),
    ("64:ff9b:1::a00:5", False),  # local-use NAT64 64:ff9b:1::/48
    ("64:ff9b:1::808:808", False),
    ("2002:a00:5::", False),  # 6to4 2002::/16
    ("2002:808:808::", False),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo 2001::/32
    ("2001:0:808:808::1", False),
    # Not an address at all.
    ("", False),
    ("localhost", False),
    ("10.0.0.5.", False),
]


# What a name may resolve to that no fetcher connects to: one private or special-use address, or a
# public one beside a private one (every address of an answer is checked, not only the first).
INTERNAL_ANSWERS = [
    ["10.0.0.5"],
    ["192.168.1.20"],
    ["172.16.4.4"],
    ["169.254.169.254"],
    ["100.64.0.1"],
    ["0.0.0.0"],
    ["fd00::1"],
    ["fe80::1"],
    ["::ffff:10.0.0.5"],
    ["64:ff9b::a00:5"],
    ["93.184.216.34", "10.0.0.5"],
]
