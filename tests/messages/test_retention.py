"""Retention (docs/design.md, Phase 3): "Kept 30 days (``MESSAGE_RETENTION_DAYS``, purged by a management
command)", run daily by the worker as durable work."""

from datetime import UTC, datetime, timedelta
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command

from apps.jobs.public import Job, run_due
from apps.messages.jobs import PURGE_KIND
from apps.messages.models import Message

from .factories import make_message, make_sms_number

pytestmark = pytest.mark.django_db


def purge_rows():
    return list(Job.objects.filter(kind=PURGE_KIND).order_by("run_at"))


def test_the_command_purges_and_schedules_the_worker_once_a_day(user):
    number = make_sms_number(user)
    keep, _gone = make_message(number, ago=29 * 86400), make_message(number, ago=31 * 86400)
    out = StringIO()
    call_command("purge_messages", stdout=out)
    call_command("purge_messages", stdout=StringIO())
    assert list(Message.objects.values_list("id", flat=True)) == [keep.id]
    assert "Deleted 1 messages older than 30 days" in out.getvalue()
    (row,) = purge_rows()  # asked twice, scheduled once
    assert row.run_at.hour == 3 and row.run_at > datetime.now(UTC)


def test_the_worker_purges_each_day_and_schedules_the_next(user):
    number = make_sms_number(user)
    call_command("purge_messages", stdout=StringIO())
    (first,) = purge_rows()
    day_after = first.run_at + timedelta(minutes=1)
    # A message that is 31 days old when the job runs.
    old = make_message(number)
    Message.objects.filter(pk=old.pk).update(created=day_after - timedelta(days=31))
    with mock.patch("django.utils.timezone.now", return_value=day_after):
        assert run_due(now=day_after, kinds=[PURGE_KIND]) == 1
    assert not Message.objects.filter(pk=old.pk).exists()
    rows = purge_rows()
    assert len(rows) == 2 and rows[1].run_at == first.run_at + timedelta(days=1)
