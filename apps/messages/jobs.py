"""The daily purge of old messages, as recurring durable work (apps.jobs schedules).

``manage.py purge_messages`` purges at once, for an operator who wants it now.
"""

from datetime import timedelta

from apps.jobs.public import schedule

from .services import messages_purge

PURGE_KIND = "messages.purge"


# Idempotent: a second run deletes what is old by then.
schedule(
    PURGE_KIND,
    messages_purge,
    every=timedelta(days=1),
    at=timedelta(hours=3),  # UTC: a quiet hour
    description="Messages older than MESSAGE_RETENTION_DAYS (30) are deleted.",
)
