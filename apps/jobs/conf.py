"""``settings.JOBS``, read on every access so ``override_settings`` works.

Keys: ``LEASE_SECONDS`` (how long a claim holds a row: a worker killed while holding one
gives it back when this runs out, so every handler must finish well inside it),
``MAX_ATTEMPTS`` (runs before a row is marked failed), ``RETRY_BASE_SECONDS`` and
``RETRY_MAX_SECONDS`` (the back-off: base * 2^(attempt-1), capped, ±10 %),
``POLL_SECONDS`` (the longest a lane with nothing due waits: less when its next row falls due
sooner, and on PostgreSQL a new row wakes it, apps/jobs/wakeup.py), ``BATCH_SIZE`` (rows a
claim takes at once), ``THREADS`` (threads a worker gives every lane, each claiming one row of
its lane at a time; None: each lane's own count for the database, apps/jobs/lanes.py),
``KEEP_SUCCESSFUL_DAYS`` and ``KEEP_FAILED_DAYS`` (how long finished rows stay, counted
from their creation; the worker deletes older ones, and with them their dedupe keys).
"""

from django.conf import settings

DEFAULTS = {
    "LEASE_SECONDS": 300,
    "MAX_ATTEMPTS": 8,
    "RETRY_BASE_SECONDS": 10,
    "RETRY_MAX_SECONDS": 3600,
    "POLL_SECONDS": 1.0,
    "BATCH_SIZE": 10,
    "THREADS": None,
    "KEEP_SUCCESSFUL_DAYS": 7,
    "KEEP_FAILED_DAYS": 30,
}


def get(name: str):
    configured = getattr(settings, "JOBS", None) or {}
    return configured.get(name, DEFAULTS[name])
