"""manage.py run_worker: --once runs what is due and exits; orphaned kinds are named, not dropped."""

import logging
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.jobs.public import enqueue
from tests.support.jobs import handlers

pytestmark = pytest.mark.django_db


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
