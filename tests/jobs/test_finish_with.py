"""finish_with: a handler that calls out writes its outcome last, and on PostgreSQL that write marks
its row done too; the row is marked done once either way, and never over a claim that took it over."""

import logging
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from apps.jobs import runner
from apps.jobs.models import Job, JobStatus
from apps.jobs.public import enqueue, finish_with
from apps.jobs.registry import HandlerSpec
from tests.support.jobs import register
from tests.support.sql import statement_texts

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def outcome(payload):
    # The outcome is written to another row of the table: what a handler's own model would be.
    return finish_with(Job.objects.filter(id=payload["other"], status=JobStatus.READY), last_error="recorded")


@pytest.fixture
def calls_out():
    with register(HandlerSpec(kind="tests.out", fn=outcome, atomic=False)) as spec:
        yield spec


def test_the_outcome_and_the_success_mark(calls_out):
    other = enqueue("tests.out", {"other": "none"}, run_at=T0 + timedelta(days=1))
    job = enqueue("tests.out", {"other": other.id}, run_at=T0)
    token, [claimed] = runner.claim(now=T0, limit=1)
    with statement_texts() as sent:
        assert runner.run_one(claimed, token, now=T0) == JobStatus.SUCCESSFUL
    job.refresh_from_db()
    other.refresh_from_db()
    assert (job.status, job.locked_by, job.locked_until, job.finished_at is not None) == (
        JobStatus.SUCCESSFUL,
        "",
        None,
        True,
    )
    assert other.last_error == "recorded"
    # One statement on PostgreSQL; the update and the runner's mark on SQLite.
    assert len(sent) == (1 if connection.vendor == "postgresql" else 2)


def test_a_run_that_outlived_its_lease_marks_nothing(calls_out, caplog):
    other = enqueue("tests.out", {"other": "none"}, run_at=T0 + timedelta(days=1))
    job = enqueue("tests.out", {"other": other.id}, run_at=T0)
    stale_token, [stale] = runner.claim(now=T0, limit=1)
    late = T0 + timedelta(seconds=301)
    taker, [_taken] = runner.claim(now=late, limit=1)
    with caplog.at_level(logging.WARNING, logger="apps.jobs"):
        assert runner.run_one(stale, stale_token, now=late) == JobStatus.READY
    job.refresh_from_db()
    assert (job.status, job.locked_by) == (JobStatus.READY, taker)
    assert "outlived its lease" in caplog.text


def test_outside_a_running_row_it_is_the_update_alone(calls_out):
    row = enqueue("tests.out", {"other": "none"}, run_at=T0 + timedelta(days=1))
    assert finish_with(Job.objects.filter(id=row.id), last_error="x") == 1
    row.refresh_from_db()
    assert (row.status, row.last_error) == (JobStatus.READY, "x")
