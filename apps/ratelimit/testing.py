"""Helpers for test suites: budgets outlive a single test otherwise."""

import contextlib

from . import conf
from .stores.base import StoreUnavailable


def clear_budgets() -> None:
    # An outage test's store may be down; it has nothing to clear then.
    with contextlib.suppress(StoreUnavailable):
        conf.get_store().clear()
