"""manage.py run_worker: --once runs what is due and exits; orphaned kinds are named, not dropped."""

import logging
import signal
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError
from django.utils import timezone

from apps.jobs import runner
from apps.jobs.management.commands.run_worker import Command
from apps.jobs.models import Job, JobStatus
from apps.jobs.public import enqueue
from tests.support.jobs import Stopper, handlers, without_schedules

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _only_the_tests_rows():
    # These tests count the rows a worker ran; the apps' recurring work is tests/jobs/test_schedules.py's.
    with without_schedules():
        yield


def test_once_runs_every_due_row_and_exits():
    ran = []
    with handlers(tests__r=lambda p: ran.append(p["n"])):
        for n in range(12):
            enqueue("tests.r", {"n": n})
        later = enqueue("tests.r", {"n": 99}, run_at=timezone.now() + timedelta(hours=1))
        out = StringIO()
        call_command("run_worker", "--once", stdout=out)
    assert sorted(ran) == list(range(12))
    assert out.getvalue().strip() == "Ran 12 job(s)."
    later.refresh_from_db()
    assert later.status == JobStatus.READY


def test_rows_of_a_kind_without_a_handler_are_named_at_start_and_kept(caplog):
    Job.objects.create(kind="tests.gone", payload={})
    with caplog.at_level(logging.ERROR, logger="apps.jobs"):
        call_command("run_worker", "--once", stdout=StringIO())
    assert "ready jobs of kind tests.gone have no handler" in caplog.text
    assert Job.objects.get().status == JobStatus.READY


def test_poll_must_be_positive():
    with pytest.raises(CommandError, match="--poll"):
        call_command("run_worker", "--once", "--poll", "0")


@pytest.mark.django_db(transaction=True)
def test_a_database_outage_pauses_the_worker_longer_each_time_until_it_is_back(monkeypatch, caplog):
    outages = iter([OperationalError("server closed the connection unexpectedly")] * 2)
    real_claim = runner.claim

    def claim(**kwargs):
        outage = next(outages, None)
        if outage is not None:
            raise outage
        return real_claim(**kwargs)

    monkeypatch.setattr(runner, "claim", claim)
    command = Command()
    command.stopping = Stopper(after=3)
    ran = []
    with handlers(tests__r=lambda p: ran.append(p["n"])):
        enqueue("tests.r", {"n": 1})
        with caplog.at_level(logging.WARNING, logger="apps.jobs"):
            assert command._loop(once=False, poll=1.0, batch=10) == 1
    # Two outages (1 s, then 2 s), the row run once the database is back, then the idle poll.
    assert command.stopping.waits == [1.0, 2.0, 1.0]
    assert ran == [1]
    assert caplog.text.count("server closed the connection unexpectedly; trying again") == 2


@pytest.mark.django_db(transaction=True)
def test_once_fails_loudly_when_the_database_is_away(monkeypatch):
    def claim(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(runner, "claim", claim)
    with pytest.raises(OperationalError, match="connection refused"):
        call_command("run_worker", "--once", stdout=StringIO())


def _broken_claim(**kwargs):
    raise RuntimeError("a bug in the claim")


@pytest.mark.django_db(transaction=True)
def test_a_failed_thread_stops_the_whole_worker(monkeypatch, caplog):
    monkeypatch.setattr(runner, "claim", _broken_claim)
    with pytest.raises(CommandError, match="a bug in the claim"):
        call_command("run_worker", "--threads", "2", stdout=StringIO())
    assert "a thread failed; stopping" in caplog.text


def test_threads_must_be_at_least_one():
    with pytest.raises(CommandError, match="--threads"):
        call_command("run_worker", "--once", "--threads", "0")


@pytest.mark.django_db(transaction=True)
def test_the_callers_signal_handlers_are_restored(monkeypatch):
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(runner, "claim", _broken_claim)
    with pytest.raises(CommandError):
        call_command("run_worker", "--threads", "2", stdout=StringIO())
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_finished_rows_past_their_keeping_time_are_deleted_at_start():
    now = timezone.now()
    kept = [
        Job.objects.create(kind="t.recent", status=JobStatus.SUCCESSFUL, created=now - timedelta(days=6)),
        Job.objects.create(kind="t.failed", status=JobStatus.FAILED, created=now - timedelta(days=29)),
        Job.objects.create(kind="t.waiting", created=now - timedelta(days=90)),
    ]
    Job.objects.create(kind="t.old", status=JobStatus.SUCCESSFUL, created=now - timedelta(days=8))
    Job.objects.create(kind="t.old_failed", status=JobStatus.FAILED, created=now - timedelta(days=31))
    call_command("run_worker", "--once", stdout=StringIO())
    assert set(Job.objects.values_list("id", flat=True)) == {job.id for job in kept}
