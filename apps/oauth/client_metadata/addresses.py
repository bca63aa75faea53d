"""Which addresses a client metadata document may be fetched from: globally routable ones only.

The rule is the one every request to a caller-chosen address follows
(apps/core/egress.py); tests admit their local fixture server through
``CIMD_TEST_ALLOWED_ADDRESSES``, a setting no deployment defines.
"""

from django.conf import settings

from apps.core import egress


def admitted() -> tuple:
    return tuple(getattr(settings, "CIMD_TEST_ALLOWED_ADDRESSES", ()))


def address_allowed(ip: str) -> bool:
    """Whether a document may be fetched from ``ip`` (an address as ``getaddrinfo`` gives it)."""
    return egress.address_allowed(ip, admitted=admitted())
