"""Bearer credentials cached in the rate limiter's store, kept exactly consistent with revocation.

On the hot path a bearer request costs one store round trip that both finds
the credential (keyed by its digest) and applies the request's budgets; the
database is read only on a miss. Issue 9 asks for this, and for revocation to
stay immediate on every worker, whatever is cached. How that holds:

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

from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction
from django.utils import timezone

from apps.apikeys.services import LAST_USED_GRANULARITY, apikey_mark_used_by_id
from apps.core.ids import digest
from apps.ratelimit import budgets as table
from apps.ratelimit.limiter import subject_of
from apps.ratelimit.services import (
    credential_cache_revoke,
    credential_store,
    ratelimit_cached_credential,
    ratelimit_class_and_cache,
)
from apps.ratelimit.stores.base import CredentialMiss

from .principal import Principal

logger = logging.getLogger(__name__)

ENTRY_TTL_MS = 60_000
LAST_USED_MS = int(LAST_USED_GRANULARITY.total_seconds() * 1000)
USER_FIELDS = ("id", "email", "display_name", "is_active")
SUBJECT_DIMENSIONS = (table.PRINCIPAL, table.USER, table.CLIENT)


def lookup(request, secret: str, *, resource_path: str, budget_class: str):
    """``(store, answer)``: the principal of a cached credential with the budgets applied, or a miss.

    ``(None, None)`` when no store caches credentials. Raises RateLimited when a
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
        on_hit=_stamp_if_due,  # before a refusal, as the database path stamps before the budgets
    )
    if isinstance(answer, CredentialMiss):
        return store, answer
    payload, _stamped = answer
    return store, principal_from(payload)


def _stamp_if_due(payload: dict, stamped: bool) -> None:
    if stamped and payload["kind"] == "api_key":
        stamp_last_use(payload["credential_id"])


def stamp_last_use(key_id: str) -> None:
    """Best effort: a cached key keeps working while the database is down; only its stamp waits."""
    try:
        apikey_mark_used_by_id(key_id=key_id)
    except DatabaseError:
        logger.warning("last use of %s not stamped: database unavailable", key_id)


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
        used_key = store.credential_used_key(credential.id)
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


# --- Revocation ------------------------------------------------------------------


def invalidate_user(user_id) -> None:
    """Every cached credential of this user is dead now and again once the transaction commits."""
    _invalidate(str(user_id))


def invalidate_everyone() -> None:
    """Every cached credential is dead (a client disabled or deleted)."""
    _invalidate(None)


def _invalidate(user_id: str | None) -> None:
    # At once, failing closed: a revocation the cache cannot see rolls back (503) rather than
    # commit. Again on commit, best effort, for reads that raced the open transaction.
    credential_cache_revoke(user_id=user_id, fail_closed=True)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: credential_cache_revoke(user_id=user_id, fail_closed=False))


def connect_signals() -> None:
    """Saves and deletes of the rows a cached credential comes from move an epoch."""
    from django.db.models.signals import post_delete, post_save
    from oauth2_provider.models import get_access_token_model, get_application_model

    from apps.apikeys.models import ApiKey

    def by_owner(sender, instance, created=False, **kwargs):
        if not created and instance.user_id is not None:
            invalidate_user(instance.user_id)

    def by_user(sender, instance, created=False, update_fields=None, **kwargs):
        # A sign-in stamps last_login and nothing a credential carries.
        if not created and set(update_fields or ()) != {"last_login"}:
            invalidate_user(instance.pk)

    def by_client(sender, instance, created=False, update_fields=None, **kwargs):
        # Disabling a client ends its tokens without touching them; metadata refreshes do not.
        # Deleting one deletes its tokens, whose own signals move their users' epochs.
        if not created and (update_fields is None or "disabled_at" in update_fields):
            invalidate_everyone()

    for model, receiver in (
        (ApiKey, by_owner),
        (get_access_token_model(), by_owner),
        (get_user_model(), by_user),
    ):
        uid = f"credential_cache.{model._meta.label}"
        post_save.connect(receiver, sender=model, weak=False, dispatch_uid=uid + ".save")
        post_delete.connect(receiver, sender=model, weak=False, dispatch_uid=uid + ".delete")
    post_save.connect(
        by_client, sender=get_application_model(), weak=False, dispatch_uid="credential_cache.application.save"
    )
