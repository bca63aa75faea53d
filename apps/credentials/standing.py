"""Whether a credential still stands, and with which scopes: asked long after the request that used it.

A webhook endpoint keeps the credential that owns it (a key, or the user's connection to
an app: whichever made it or last aimed it) and asks at each delivery what that credential may still
see. Each kind's answer comes from its issuer, named in
``settings.CREDENTIAL_STANDING`` (this app imports no issuer).
"""

from django.conf import settings
from django.utils.module_loading import import_string

from .signals import credential_ended

__all__ = ["credential_ended", "credential_scopes"]


def credential_scopes(*, kind: str, user_id, credential_id: str) -> frozenset | None:
    """The credential's scopes now, or None when it has ended (revoked, expired, disconnected)."""
    path = settings.CREDENTIAL_STANDING.get(kind)
    if path is None:
        return None
    return import_string(path)(user_id=user_id, credential_id=credential_id)
