"""run_due: due rows run once in due order; failures retry with back-off, then fail visibly; leases."""

import logging
from datetime import UTC, datetime, timedelta

import pytest
from django.test import override_settings

from apps.jobs import runner
from apps.jobs.models import Job, JobStatus
from apps.jobs.public import RetryLater, enqueue, run_due
from apps.jobs.registry import HandlerSpec
from tests.support.jobs import frozen, handlers, register

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


class Boom(Exception):
    pass


def fail(payload):
    raise Boom(f"receiver down for {payload.get('n')}")


def test_a_row_runs_when_due_and_not_before():
    ran = []
    with handlers(tests__r=lambda p: ran.append(p["n"])):
        enqueue("tests.r", {"n": 1}, run_at=T0)
        assert run_due(now=T0 - timedelta(seconds=1)) == 0
        assert run_due(now=T0) == 1
        assert run_due(now=T0 + timedelta(days=1)) == 0
    assert ran == [1]
    job = Job.objects.get()
    assert (job.status, job.attempts, job.locked_until, job.locked_by) == (JobStatus.SUCCESSFUL, 1, None, "")


def test_the_patched_clock_decides_what_is_due():
    ran = []
    with handlers(tests__r=lambda p: ran.append(p["n"])), frozen(T0) as clock:
        enqueue("tests.r", {"n": 1}, run_at=T0 + timedelta(seconds=5))
        assert run_due() == 0
        clock.at = T0 + timedelta(seconds=5)
        assert run_due() == 1
    assert ran == [1]
    assert Job.objects.get().finished_at == T0 + timedelta(seconds=5)


def test_rows_run_in_due_order_and_limit_stops_early():
    ran = []
    with handlers(tests__r=lambda p: ran.append(p["n"])):
        for n, offset in [(3, 30), (1, 10), (2, 20), (4, 40)]:
            enqueue("tests.r", {"n": n}, run_at=T0 + timedelta(seconds=offset))
        assert run_due(now=T0 + timedelta(minutes=1), limit=3) == 3
        assert ran == [1, 2, 3]
        assert run_due(now=T0 + timedelta(minutes=1)) == 1
    assert ran == [1, 2, 3, 4]


def test_work_a_handler_enqueues_that_is_already_due_runs_in_the_same_call():
    ran = []

    def first(payload):
        ran.append("first")
        enqueue("tests.second", {}, run_at=T0)

    with handlers(tests__first=first, tests__second=lambda p: ran.append("second")):
        enqueue("tests.first", {}, run_at=T0)
        assert run_due(now=T0) == 2
    assert ran == ["first", "second"]


def test_kinds_subject_and_where_restrict_a_run():
    ran = []
    with handlers(tests__a=lambda p: ran.append(p["n"]), tests__b=lambda p: ran.append(p["n"])):
        enqueue("tests.a", {"n": 1, "call": "cl_1"}, subject="cl_1", run_at=T0)
        enqueue("tests.a", {"n": 2, "call": "cl_2"}, subject="cl_2", run_at=T0)
        enqueue("tests.b", {"n": 3, "call": "cl_1"}, subject="cl_1", run_at=T0)
        enqueue("tests.b", {"n": 4, "call": "cl_2"}, subject="cl_2", run_at=T0)
        assert run_due(now=T0, subject="cl_1", kinds=["tests.a"]) == 1
        assert ran == [1]
        assert run_due(now=T0, where={"call": "cl_2"}) == 2
        assert sorted(ran) == [1, 2, 4]
        assert run_due(now=T0, kinds=[]) == 0
        assert run_due(now=T0) == 1
    assert sorted(ran) == [1, 2, 3, 4]


@override_settings(JOBS={"MAX_ATTEMPTS": 3, "RETRY_BASE_SECONDS": 10, "RETRY_MAX_SECONDS": 15})
def test_a_failing_handler_is_retried_with_back_off_then_failed_with_one_error_line(caplog):
    with handlers(tests__fail=fail):
        job = enqueue("tests.fail", {"n": 7}, run_at=T0)
        with caplog.at_level(logging.WARNING, logger="apps.jobs"):
            assert run_due(now=T0) == 1
            job.refresh_from_db()
            assert (job.status, job.attempts) == (JobStatus.READY, 1)
            assert T0 + timedelta(seconds=9) <= job.run_at <= T0 + timedelta(seconds=11)
            assert "Boom: receiver down for 7" in job.last_error
            assert run_due(now=job.run_at - timedelta(microseconds=1)) == 0

            second = job.run_at
            assert run_due(now=second) == 1
            job.refresh_from_db()
            # 20 s doubled, capped at 15 s.
            assert job.attempts == 2
            assert second + timedelta(seconds=13.5) <= job.run_at <= second + timedelta(seconds=16.5)

            assert run_due(now=job.run_at) == 1
        job.refresh_from_db()
        assert (job.status, job.attempts) == (JobStatus.FAILED, 3)
        assert "Boom: receiver down for 7" in job.last_error
        assert run_due(now=T0 + timedelta(days=30)) == 0
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
    assert f"job {job.id} tests.fail failed after 3 attempts: Boom: receiver down for 7" == errors[0].getMessage()


def test_a_handler_may_set_its_own_retry_schedule_and_ask_for_a_wait():
    calls = []

    def flaky(payload):
        calls.append(len(calls))
        if len(calls) == 1:
            raise RetryLater(120, "429 Retry-After: 120")
        raise Boom("still down")

    spec = HandlerSpec(kind="tests.flaky", fn=flaky, max_attempts=3, retry_delays=(5, 300))
    with register(spec):
        job = enqueue("tests.flaky", {}, run_at=T0)
        run_due(now=T0)
        job.refresh_from_db()
        assert job.run_at == T0 + timedelta(seconds=120)
        assert "429 Retry-After: 120" in job.last_error
        run_due(now=job.run_at)
        previous = job.run_at
        job.refresh_from_db()
        assert previous + timedelta(seconds=270) <= job.run_at <= previous + timedelta(seconds=330)
        run_due(now=job.run_at)
        job.refresh_from_db()
    assert (job.status, job.attempts, len(calls)) == (JobStatus.FAILED, 3, 3)


def test_an_atomic_handler_that_raises_leaves_none_of_its_writes():
    def half(payload):
        enqueue("tests.noop", {"written": "by the failed run"})
        raise Boom("after writing")

    with handlers(tests__half=half, tests__noop=lambda p: None):
        enqueue("tests.half", {}, run_at=T0)
        run_due(now=T0)
    assert list(Job.objects.values_list("kind", flat=True)) == ["tests.half"]


def test_a_claim_whose_worker_died_comes_due_again_after_its_lease():
    ran = []
    with handlers(tests__r=lambda p: ran.append(p["n"])):
        job = enqueue("tests.r", {"n": 1}, run_at=T0)
        # A worker claims the row and dies before recording anything.
        _token, claimed = runner.claim(now=T0, limit=10)
        assert [j.id for j in claimed] == [job.id]
        job.refresh_from_db()
        assert job.locked_until == T0 + timedelta(seconds=300)
        assert run_due(now=T0 + timedelta(seconds=299)) == 0
        assert run_due(now=T0 + timedelta(seconds=300)) == 1
    job.refresh_from_db()
    assert (ran, job.status, job.attempts) == ([1], JobStatus.SUCCESSFUL, 2)


def test_a_run_that_outlived_its_lease_cannot_record_over_the_claim_that_took_over(caplog):
    writes = []

    def write(payload):
        writes.append(payload["n"])
        enqueue("tests.noop", {"n": payload["n"]})

    with handlers(tests__write=write, tests__noop=lambda p: None):
        job = enqueue("tests.write", {"n": 1}, run_at=T0)
        stale_token, [stale] = runner.claim(now=T0, limit=1)
        late = T0 + timedelta(seconds=301)
        assert run_due(now=late, kinds=["tests.write"]) == 1
        with caplog.at_level(logging.WARNING, logger="apps.jobs"):
            assert runner.run_one(stale, stale_token, now=late) == JobStatus.READY
    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.SUCCESSFUL, 2)
    # The stale run's writes rolled back with it: the work took effect once.
    assert Job.objects.filter(kind="tests.noop").count() == 1
    assert "outlived its lease" in caplog.text


@override_settings(JOBS={"MAX_ATTEMPTS": 2})
def test_a_row_whose_workers_keep_dying_is_failed_without_running_it_again():
    ran = []
    with handlers(tests__r=lambda p: ran.append(1)):
        job = enqueue("tests.r", {}, run_at=T0)
        now = T0
        for _ in range(2):
            runner.claim(now=now, limit=1)
            now += timedelta(seconds=301)
        assert run_due(now=now) == 1
    job.refresh_from_db()
    assert (job.status, ran) == (JobStatus.FAILED, [])
    assert "no outcome after 2 runs" in job.last_error


def test_rows_of_a_kind_nobody_handles_are_kept_not_claimed():
    Job.objects.create(kind="tests.gone", payload={}, run_at=T0)
    assert run_due(now=T0 + timedelta(days=1)) == 0
    job = Job.objects.get()
    assert (job.status, job.attempts, job.locked_until) == (JobStatus.READY, 0, None)


def test_released_rows_are_due_again_at_once_with_the_attempt_uncounted():
    with handlers(tests__r=lambda p: None):
        enqueue("tests.r", {}, run_at=T0)
        token, jobs = runner.claim(now=T0, limit=1)
        runner.release(token, jobs)
        job = Job.objects.get()
        assert (job.attempts, job.locked_until, job.locked_by) == (0, None, "")
        assert run_due(now=T0) == 1


def test_a_run_that_finds_nothing_due_costs_one_statement(django_assert_num_queries):
    with handlers(tests__r=lambda p: None):
        enqueue("tests.r", {}, subject="cl_other", run_at=T0)
        enqueue("tests.r", {}, subject="cl_1", run_at=T0 + timedelta(minutes=1))
        with django_assert_num_queries(1):
            assert run_due(now=T0, subject="cl_1") == 0


def test_running_one_due_row_costs_five_statements(django_assert_num_queries):
    # The claim (select, lease), then the handler's savepoint around the success mark.
    with handlers(tests__r=lambda p: None):
        enqueue("tests.r", {}, subject="cl_1", run_at=T0)
        with django_assert_num_queries(5):
            assert run_due(now=T0, subject="cl_1") == 1
