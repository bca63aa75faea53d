"""The caller's address, trusting X-Forwarded-For only from configured proxies."""

import functools
import ipaddress

from django.conf import settings


def client_ip(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or ""
    trusted = getattr(settings, "TRUSTED_PROXIES", [])
    if not trusted or not _in_networks(remote, trusted):
        return remote
    forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
    # Walk from the nearest hop outwards; the first untrusted hop is the client.
    for hop in reversed(forwarded):
        if not _in_networks(hop, trusted):
            return hop
    return forwarded[0] if forwarded else remote


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
    return any(ip in network for network in networks)
