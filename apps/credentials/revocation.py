"""Ending cached credentials: the user's or the global revocation epoch moves (apps.credentials.cache).

A change that can end a credential (a key or token revoked, a user
deactivated or given a new password, a client disabled) moves the epoch at
once, failing closed: a revocation the cache cannot see rolls back with a 503
rather than commit. It moves again when the transaction commits, for reads
that raced it. Within one transaction a user's epoch moves once, however many
rows the change touches: services that end several kinds of credential at
once (a password change revokes tokens and keys) wrap the work in
``invalidation_batch()``.
"""

import contextlib
import contextvars

from django.db import transaction

from apps.ratelimit.public import credential_cache_revoke

EVERYONE = None


def invalidate_user(user_id) -> None:
    """Every cached credential of this user is dead now and again once the transaction commits."""
    _invalidate(str(user_id))


def invalidate_everyone() -> None:
    """Every cached credential is dead (a client disabled or deleted)."""
    _invalidate(EVERYONE)


def refresh_user_soon(user_id) -> None:
    """A change that ends no credential but alters what a cached one carries (a display name):
    the cached copy is dropped now and after commit, best effort: the write never waits for the store."""
    target = str(user_id)
    credential_cache_revoke(user_id=target, fail_closed=False)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: credential_cache_revoke(user_id=target, fail_closed=False))


_batch: contextvars.ContextVar[set | None] = contextvars.ContextVar("credential_invalidation_batch", default=None)


@contextlib.contextmanager
def invalidation_batch():
    """Invalidations requested inside run once each, when the block ends without error."""
    if _batch.get() is not None:  # nested: the outer batch runs them
        yield
        return
    pending: set = set()
    token = _batch.set(pending)
    try:
        yield
    finally:
        _batch.reset(token)
    for user_id in [EVERYONE] if EVERYONE in pending else pending:
        _invalidate(user_id)


def _invalidate(user_id: str | None) -> None:
    pending = _batch.get()
    if pending is not None:
        pending.add(user_id)
        return
    credential_cache_revoke(user_id=user_id, fail_closed=True)
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        transaction.on_commit(lambda: credential_cache_revoke(user_id=user_id, fail_closed=False))
