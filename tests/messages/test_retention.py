"""Retention (docs/design.md, Phase 3): "Kept 30 days (``MESSAGE_RETENTION_DAYS``, purged by a management
command)", run daily by the worker as recurring durable work."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from apps.jobs import schedules
from apps.jobs.public import Job, run_due
from apps.messages.jobs import PURGE_KIND
from apps.messages.models import Message
from tests.support.jobs import frozen

from .factories import make_message, make_sms_number

pytestmark = pytest.mark.django_db


def purge_rows():
    return list(Job.objects.filter(kind=PURGE_KIND).order_by("run_at"))


def test_the_command_purges_now(user):
    number = make_sms_number(user)
    keep, _gone = make_message(number, ago=29 * 86400), make_message(number, ago=31 * 86400)
    out = StringIO()
    call_command("purge_messages", stdout=out)
    assert list(Message.objects.values_list("id", flat=True)) == [keep.id]
    assert "Deleted 1 messages older than 30 days" in out.getvalue()


def test_the_worker_purges_each_day_at_three(user):
    number = make_sms_number(user)
    first = datetime(2026, 11, 28, 3, 0, tzinfo=UTC)
    old = make_message(number)
    # 30 and a half days old at the day's run; 29 and a half the day before.
    Message.objects.filter(pk=old.pk).update(created=first - timedelta(days=30, hours=12))
    with frozen(first - timedelta(days=1)) as clock:
        schedules.seed()
        assert run_due(kinds=[PURGE_KIND]) == 1
        assert Message.objects.filter(pk=old.pk).exists()
        clock.at = first
        schedules.seed()
        assert run_due(kinds=[PURGE_KIND]) == 1
    assert not Message.objects.filter(pk=old.pk).exists()
    assert [row.run_at for row in purge_rows()] == [first - timedelta(days=1), first]
