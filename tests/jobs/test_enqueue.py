"""enqueue: a row in the caller's transaction, due when asked, written once per dedupe key."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction

from apps.jobs.models import Job, JobStatus
from apps.jobs.public import enqueue, run_due
from tests.support.jobs import frozen, handlers

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def noop(payload):
    pass


def test_a_row_is_ready_and_due_now_by_default():
    with handlers(tests__noop=noop), frozen(T0):
        job = enqueue("tests.noop", {"call": "cl_1"})
    job.refresh_from_db()
    assert (job.kind, job.payload, job.status, job.run_at, job.attempts) == (
        "tests.noop",
        {"call": "cl_1"},
        JobStatus.READY,
        T0,
        0,
    )


def test_a_rolled_back_change_leaves_no_work():
    with handlers(tests__noop=noop), pytest.raises(RuntimeError), transaction.atomic():
        enqueue("tests.noop", {})
        raise RuntimeError("the change failed")
    assert not Job.objects.exists()


def test_a_kind_without_a_handler_is_refused():
    with pytest.raises(LookupError, match=r"tests\.nobody"):
        enqueue("tests.nobody", {})
    assert not Job.objects.exists()


def test_an_event_that_arrives_twice_is_applied_once():
    applied = []
    with handlers(tests__apply=lambda payload: applied.append(payload["event"])):
        first = enqueue("tests.apply", {"event": "answered"}, dedupe_key="cl_1:answered")
        second = enqueue("tests.apply", {"event": "answered"}, dedupe_key="cl_1:answered")
        assert second.pk == first.pk
        assert run_due() == 1
        # Still once after it ran: the key outlives the run.
        third = enqueue("tests.apply", {"event": "answered"}, dedupe_key="cl_1:answered")
        assert third.pk == first.pk
        assert third.status == JobStatus.SUCCESSFUL
        assert run_due() == 0
    assert applied == ["answered"]
    assert Job.objects.count() == 1


def test_a_dedupe_key_is_per_kind_and_none_means_no_dedupe():
    with handlers(tests__a=noop, tests__b=noop):
        enqueue("tests.a", {}, dedupe_key="k")
        enqueue("tests.b", {}, dedupe_key="k")
        enqueue("tests.a", {})
        enqueue("tests.a", {})
    assert Job.objects.count() == 4


def test_a_duplicate_returns_the_row_already_there_unchanged():
    with handlers(tests__noop=noop):
        first = enqueue("tests.noop", {"v": 1}, dedupe_key="k", run_at=T0)
        again = enqueue("tests.noop", {"v": 2}, dedupe_key="k", run_at=T0 + timedelta(hours=1))
    assert (again.pk, again.payload, again.run_at) == (first.pk, {"v": 1}, T0)


def test_enqueue_writes_one_statement_without_a_dedupe_key(django_assert_num_queries):
    with handlers(tests__noop=noop), django_assert_num_queries(1):
        enqueue("tests.noop", {}, subject="cl_1")


def test_enqueue_with_a_dedupe_key_writes_two_statements(django_assert_num_queries):
    with handlers(tests__noop=noop), django_assert_num_queries(2):
        enqueue("tests.noop", {}, dedupe_key="k")
