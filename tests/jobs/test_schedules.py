"""Recurring work: each app's schedule runs once a period, however many workers run, and its
purge has taken the old rows by the time its period has begun."""

from collections import Counter
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from apps.audit.models import AuditEvent
from apps.jobs import schedules
from apps.jobs.models import Job, JobStatus
from apps.jobs.public import run_due
from tests.support.factories import UserFactory
from tests.support.jobs import frozen
from tests.support.jobs_processes import SharedDatabase

# What the issue of operations asks to run without cron: every purge and the webhook check.
EXPECTED = {
    "api_v1.purge_idempotency_keys": timedelta(hours=1),
    "audit.purge": timedelta(days=1),
    "messages.purge": timedelta(days=1),
    "oauth.purge_registrations": timedelta(days=1),
    "oauth.purge_stale": timedelta(days=1),
    "webhooks.disable_failing": timedelta(hours=1),
    "webhooks.purge_events": timedelta(days=1),
}
NOON = datetime(2026, 11, 28, 12, 20, tzinfo=UTC)


def test_every_purge_and_check_is_declared_with_its_period():
    assert {item.kind: item.every for item in schedules.schedules()} == EXPECTED


@pytest.mark.django_db
def test_seeding_twice_in_a_period_writes_one_row_and_the_next_period_another():
    schedules.seed(now=NOON)
    schedules.seed(now=NOON + timedelta(minutes=30))
    assert Counter(Job.objects.values_list("kind", flat=True)) == dict.fromkeys(EXPECTED, 1)
    schedules.seed(now=NOON + timedelta(days=1))
    counts = Counter(Job.objects.values_list("kind", flat=True))
    assert counts == dict.fromkeys(EXPECTED, 2)


@pytest.mark.django_db
def test_a_daily_run_is_due_at_its_hour_and_runs_once():
    audit = schedules.get("audit.purge")
    before = datetime(2026, 11, 28, 3, 9, tzinfo=UTC)  # the 03:10 run of the 28th has not begun
    assert audit.period_start(before) == datetime(2026, 11, 27, 3, 10, tzinfo=UTC)
    at = datetime(2026, 11, 28, 3, 10, tzinfo=UTC)
    assert audit.period_start(at) == at
    with frozen(at):
        schedules.seed(now=at)
        assert run_due(now=at, kinds=["audit.purge"]) == 1
        schedules.seed(now=at + timedelta(hours=5))
        assert run_due(now=at + timedelta(hours=5), kinds=["audit.purge"]) == 0
    (row,) = Job.objects.filter(kind="audit.purge")
    assert (row.status, row.run_at, row.payload) == (JobStatus.SUCCESSFUL, at, {"period": "2026-11-28T03:10:00Z"})


@pytest.mark.django_db
def test_the_audit_purge_has_taken_rows_past_400_days_once_its_period_begins():
    at = datetime(2026, 11, 28, 3, 10, tzinfo=UTC)
    old = AuditEvent.objects.create(event_type="t.old", actor_type="system", created=at - timedelta(days=400, hours=12))
    kept = AuditEvent.objects.create(event_type="t.kept", actor_type="system", created=at - timedelta(days=399))
    with frozen(at - timedelta(days=1)) as clock:
        schedules.seed()
        assert run_due(kinds=["audit.purge"]) == 1  # the day before: 399.5 days old, kept
        clock.at = at - timedelta(minutes=1)  # 400 days and 12 h old now, but the period has not begun
        schedules.seed()
        assert run_due(kinds=["audit.purge"]) == 0
        assert AuditEvent.objects.filter(pk=old.pk).exists()
        clock.at = at
        schedules.seed()
        assert run_due(kinds=["audit.purge"]) == 1
    assert list(AuditEvent.objects.filter(pk__in=[old.pk, kept.pk]).values_list("pk", flat=True)) == [kept.pk]


@pytest.mark.django_db(transaction=True)
def test_each_schedule_runs_once_across_two_workers(tmp_path):
    shared = SharedDatabase(tmp_path)
    shared.publish()
    env = {"JOBS_TEST_NOW": NOON.isoformat()}
    workers = [shared.process("--once", env=env) for _ in range(2)]
    for proc in workers:
        out, _ = proc.communicate(timeout=180)
        assert proc.returncode == 0, out
    rows = [(row["kind"], row["status"], row["attempts"]) for row in shared.rows("kind", "status", "attempts")]
    assert Counter(kind for kind, _, _ in rows) == dict.fromkeys(EXPECTED, 1)
    assert {(status, attempts) for _, status, attempts in rows} == {(JobStatus.SUCCESSFUL, 1)}


@pytest.mark.django_db
def test_staff_see_each_schedule_and_its_latest_period_in_the_admin():
    schedules.seed(now=NOON)
    browser = Client()
    browser.force_login(UserFactory(is_staff=True, is_superuser=True))
    page = browser.get("/admin/jobs/job/")
    assert page.status_code == 200
    text = page.content.decode()
    for kind in EXPECTED:
        assert kind in text
    assert "2026-11-28T12:05:00Z" in text  # the hourly ones' period
    only = browser.get("/admin/jobs/job/?state=scheduled")
    assert {job.kind for job in only.context["cl"].result_list} == set(EXPECTED)


@pytest.mark.django_db
def test_the_commands_stay_for_operators():
    for command in ("purge_audit_log", "purge_idempotency_keys", "purge_oauth_stale", "purge_registrations"):
        out = StringIO()
        call_command(command, stdout=out)
        assert out.getvalue().startswith("Deleted") or "deleted" in out.getvalue()
