"""Bearer credentials cached in the rate limiter's store, kept exactly consistent with revocation.

On the hot path a bearer request costs one store round trip that both finds
the credential (keyed by its digest) and applies the request's budgets; the
database is read only on a miss, and revocation stays immediate on every
worker, whatever is cached. How that holds:

- Every entry names the global epoch and its user's epoch current when it was
  written; the lookup ignores an entry whose epochs have moved since.
- Every change that can end or alter a cached credential (a key, token, user
  or client saved or deleted; the bulk revocations of services) moves the
  user's epoch, or the global one for a client, at once and again when its
  transaction commits (``invalidate_user``, ``invalidate_everyone``).
- A miss takes the store's time before the database is read; the fill is
  refused when an epoch moved after that time. A revocation that committed
  after the read moved an epoch after it (its commit hook runs after the
  commit), so a stale read is never cached.
- The store must be shared by every process: the in-process store of the
  quick start caches nothing and every request reads the database.

Entries live at most ``ENTRY_TTL_MS`` and never past the credential's expiry.
Keys with an IP allowlist are not cached (the address is checked per request
before any budget is spent).
"""

import json
import logging
import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import DatabaseError
from django.utils import timezone

from apps.core.ids import digest
from apps.ratelimit.public import (
    CredentialMiss,
    credential_store,
    ratelimit_cached_credential,
    ratelimit_class_and_cache,
    subject_of,
)
from apps.ratelimit.public import budgets as table

from .principal import Principal

logger = logging.getLogger(__name__)

ENTRY_TTL_MS = 60_000
# A credential's last-use stamp is written at most this often (docs/design.md: no writes on the hot path).
LAST_USED_GRANULARITY = timedelta(minutes=1)
LAST_USED_MS = int(LAST_USED_GRANULARITY.total_seconds() * 1000)
USER_FIELDS = ("id", "email", "display_name", "is_active")
SUBJECT_DIMENSIONS = (table.PRINCIPAL, table.USER, table.CLIENT)


def lookup(request, secret: str, *, resource_path: str, budget_class: str, stamp=None):
    """``(store, answer)``: the principal of a cached credential with the budgets applied, or a miss.

    ``stamp(credential_id)``, when given, is called for a found credential whose
    last-use stamp falls due. ``(None, None)`` when no store caches credentials. Raises RateLimited when a
    budget refuses a cached credential, LimiterUnavailable when the store is down.
    """
    store = credential_store()
    if store is None:
        return None, None
    answer = ratelimit_cached_credential(
        request=request,
        store=store,
        digest=digest(secret),
        audience=resource_path,
        name=budget_class,
        # Before a refusal, as the database path stamps before the budgets.
        on_hit=None if stamp is None else lambda payload, stamped: stamped and stamp_last_use(stamp, payload),
    )
    if isinstance(answer, CredentialMiss):
        return store, answer
    payload, _stamped = answer
    return store, principal_from(payload)


def stamp_last_use(stamp, payload: dict) -> None:
    """Best effort: a cached credential keeps working while the database is down; only its stamp waits."""
    try:
        stamp(payload["credential_id"])
    except DatabaseError:
        logger.warning("last use of %s not stamped: database unavailable", payload["credential_id"])


def charge_and_fill(request, secret: str, *, store, miss: CredentialMiss, principal, resource_path: str, name: str):
    """Budget class ``name`` for a principal read from the database, caching it in the same round trip."""
    entry = entry_for(principal, secret=secret, resource_path=resource_path, store=store)
    return ratelimit_class_and_cache(
        request=request, store=store, name=name, principal=principal, miss=miss, entry=entry
    )


def entry_for(principal: Principal, *, secret: str, resource_path: str, store) -> dict:
    now_ms = int(time.time() * 1000)
    credential = principal.credential
    expires = credential.expires_at if principal.kind == "api_key" else credential.expires
    expires_ms = int(expires.timestamp() * 1000)
    cacheable = principal.kind == "oauth" or not credential.ip_allowlist
    ttl_ms = min(ENTRY_TTL_MS, expires_ms - now_ms) if cacheable else 0
    # An API key's entry names its last-use marker; the fill sets the marker for what is left
    # of the minute since the key was last stamped (none left: the next hit stamps).
    used_key, used_ttl_ms = "", 0
    if principal.kind == "api_key":
        used_key = store.credential_used_key(credential.id, str(principal.user.pk))
        if credential.last_used_at is not None:
            used_ttl_ms = LAST_USED_MS - int((timezone.now() - credential.last_used_at).total_seconds() * 1000)
    subject = subject_of(None, principal=principal)
    user = principal.user
    control = {
        "aud": resource_path,
        "exp": str(expires_ms),
        "uid": str(user.pk),
        "used": used_key,
        "used_ms": str(LAST_USED_MS),
        **{f"s_{name}": subject[name] or "" for name in SUBJECT_DIMENSIONS},
    }
    payload = {
        "kind": principal.kind,
        "user": {name: getattr(user, name) for name in USER_FIELDS},
        "credential_id": principal.credential_id,
        "scopes": sorted(principal.scopes),
        "livemode": principal.livemode,
        "api_version": principal.api_version,
        "resource": principal.resource,
        "client_id": principal.client_id,
        "subject": {name: subject[name] for name in SUBJECT_DIMENSIONS},
    }
    return {
        "digest": digest(secret),
        "user_id": str(user.pk),
        "control": json.dumps(control, separators=(",", ":")),
        "payload": json.dumps(payload, separators=(",", ":")),
        "ttl_ms": max(0, ttl_ms),  # 0: budgets only, nothing cached
        "used_key": used_key if used_ttl_ms > 0 else "",
        "used_ttl_ms": max(1, used_ttl_ms),
    }


def principal_from(payload: dict) -> Principal:
    fields = payload["user"]
    # A real User row as loaded from the database with only these fields; any
    # other field read loads from the database, and save() writes only these.
    user = get_user_model().from_db("default", list(USER_FIELDS), [fields[name] for name in USER_FIELDS])
    return Principal(
        kind=payload["kind"],
        user=user,
        credential_id=payload["credential_id"],
        scopes=frozenset(payload["scopes"] or ()),
        livemode=payload["livemode"],
        api_version=payload["api_version"],
        resource=payload["resource"],
        client_id=payload["client_id"],
    )
