"""Retention of docs/spec.md 8.5: entries older than 400 days are deleted, the rest kept."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from apps.audit.models import AuditEvent, EventType
from apps.audit.services import RETENTION, audit_purge, audit_record

pytestmark = pytest.mark.django_db


def make(user, age):
    event = audit_record(event_type=EventType.API_KEY_CREATED, user=user)
    AuditEvent.objects.filter(pk=event.pk).update(created=timezone.now() - age)
    return event.pk


def test_retention_is_400_days():
    assert timedelta(days=400) == RETENTION


def test_purge_boundary(user):
    now = timezone.now()
    exactly = audit_record(event_type=EventType.API_KEY_CREATED, user=user, at=now - timedelta(days=400)).pk
    just_older = audit_record(
        event_type=EventType.API_KEY_CREATED, user=user, at=now - timedelta(days=400, microseconds=1)
    ).pk
    just_younger = audit_record(
        event_type=EventType.API_KEY_CREATED, user=user, at=now - timedelta(days=399, hours=23, minutes=59)
    ).pk

    assert audit_purge(now=now) == 1

    remaining = set(AuditEvent.objects.values_list("pk", flat=True))
    assert remaining == {exactly, just_younger}
    assert just_older not in remaining


def test_purge_works_in_batches(user):
    old = [make(user, timedelta(days=401 + i)) for i in range(5)]
    young = make(user, timedelta(days=1))
    assert audit_purge(batch_size=2) == 5
    assert list(AuditEvent.objects.values_list("pk", flat=True)) == [young]
    assert not AuditEvent.objects.filter(pk__in=old).exists()


def test_purge_command(user):
    make(user, timedelta(days=500))
    kept = make(user, timedelta(days=10))
    out = StringIO()
    call_command("purge_audit_log", stdout=out)
    assert "Deleted 1 audit log entries older than 400 days." in out.getvalue()
    assert list(AuditEvent.objects.values_list("pk", flat=True)) == [kept]


def test_purge_with_nothing_to_do(user):
    make(user, timedelta(days=399))
    assert audit_purge() == 0
    assert AuditEvent.objects.count() == 1
