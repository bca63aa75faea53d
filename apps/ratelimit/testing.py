"""Helpers for test suites: budgets outlive a single test otherwise, and time must not pass in one."""

import contextlib
import functools
import time

from . import conf
from .stores.base import StoreUnavailable


def clear_budgets() -> None:
    # An outage test's store may be down; it has nothing to clear then.
    with contextlib.suppress(StoreUnavailable):
        conf.get_store().clear()


# The store calls that read the clock; each takes ``now_ms`` (None: the store's own clock).
_CLOCK_READERS = ("evaluate", "credential_lookup", "credential_fill", "slot_acquire")


@contextlib.contextmanager
def frozen_clock(at_ms: int | None = None):
    """The limiter's store with its clock stopped at ``at_ms`` (now, by default) inside the block.

    A test that spends a budget and then asks once more must see it spent, however slow the
    machine: the budgets refill with time, so time is held still rather than raced.
    """
    store = conf.get_store()
    at_ms = int(time.time() * 1000) if at_ms is None else at_ms
    patched = []
    for name in _CLOCK_READERS:
        method = getattr(store, name, None)
        if method is None:
            continue

        @functools.wraps(method)
        def at(*args, _method=method, now_ms=None, **kwargs):
            return _method(*args, now_ms=at_ms if now_ms is None else now_ms, **kwargs)

        setattr(store, name, at)
        patched.append(name)
    try:
        yield store
    finally:
        for name in patched:
            delattr(store, name)
