"""The caller's address, trusting X-Forwarded-For only from configured proxies.

Each trusted proxy appends the address it received the connection from, so the
header is read from the right: a trusted hop vouches for the entry to its left,
and the first entry that is not a trusted proxy is the client. Anything further
left was written by the client itself and is never believed. Only when every
entry is a trusted proxy (a request made from inside) is the leftmost one used.

Proxies write entries with a port (``198.51.100.7:5678``, ``[2001:db8::1]:443``)
or an IPv6 address in brackets; each is read as its address, so that such
clients keep budget keys of their own.
"""

import functools
import ipaddress
import re

from django.conf import settings

# "[v6]" or "[v6]:port", and "v4:port"; a bare IPv6 address has several colons and no port.
_BRACKETED = re.compile(r"\[([^\[\]]+)\](?::(\d{1,5}))?")
_V4_WITH_PORT = re.compile(r"([0-9.]+):(\d{1,5})")


def client_ip(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or ""
    trusted = getattr(settings, "TRUSTED_PROXIES", [])
    if not trusted or not _in_networks(remote, trusted):
        return remote
    header = request.META.get("HTTP_X_FORWARDED_FOR", "")
    forwarded = [forwarded_address(entry) for entry in header.split(",") if entry.strip()]
    for hop in reversed(forwarded):
        if not _in_networks(hop, trusted):
            return hop
    return forwarded[0] if forwarded else remote


@functools.lru_cache(maxsize=4096)  # a handful of proxies and clients, asked on every request
def forwarded_address(entry: str) -> str:
    """The address of one X-Forwarded-For entry, normalized; the entry itself when it is not one."""
    entry = entry.strip()
    match = _BRACKETED.fullmatch(entry) or _V4_WITH_PORT.fullmatch(entry)
    host = entry
    if match:
        host, port = match.groups()
        if port is not None and not 0 < int(port) < 65536:
            return entry
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return entry


def _in_networks(address: str, networks: list[str]) -> bool:
    return _in_parsed_networks(address, _parsed(tuple(networks)))


@functools.lru_cache(maxsize=64)
def _parsed(networks: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(n, strict=False) for n in networks)


@functools.lru_cache(maxsize=4096)  # asked on every request; parsing an address is not free
def _in_parsed_networks(address: str, networks: tuple) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in networks)
