"""IP allowlists: single addresses or CIDR ranges, IPv4 and IPv6."""

import ipaddress

MAX_ENTRIES = 50


def parse_entry(entry: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """Raise ValueError unless ``entry`` is an address or a CIDR range.

    Host bits set in a range (``10.0.0.1/8``) are refused rather than silently
    widened: the user should see exactly what they allow.
    """
    if not isinstance(entry, str) or not entry or entry != entry.strip():
        raise ValueError("not an IP address or CIDR range")
    if "%" in entry:
        # A zone id (fe80::1%eth0) only means something on this host's own links.
        raise ValueError("zone ids are not allowed")
    return ipaddress.ip_network(entry, strict=True)


def normalise(entries) -> list[str]:
    if not isinstance(entries, list) or len(entries) > MAX_ENTRIES:
        raise ValueError("too many entries")
    normalised = []
    for entry in entries:
        network = parse_entry(entry)
        single = "/" not in entry
        normalised.append(str(network.network_address) if single else str(network))
    return list(dict.fromkeys(normalised))


def allows(entries: list[str], address: str | None) -> bool:
    if not entries:
        return True
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip in ipaddress.ip_network(e, strict=False) for e in entries)
