"""The authorization server's recurring work (apps.jobs schedules)."""

from datetime import timedelta

from apps.jobs.public import schedule

from .registration.services import client_purge_unused
from .services import oauth_purge_stale

schedule(
    "oauth.purge_stale",
    oauth_purge_stale,
    every=timedelta(days=1),
    at=timedelta(hours=3, minutes=20),
    description="Consent transactions and authorization codes a day past their expiry are deleted.",
)

schedule(
    "oauth.purge_registrations",
    client_purge_unused,
    every=timedelta(days=1),
    at=timedelta(hours=3, minutes=30),
    description="Self-registered clients never used within 30 days of registering are deleted (docs/spec.md 4.3, 8.5).",
)
