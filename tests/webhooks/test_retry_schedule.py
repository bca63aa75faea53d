"""One schedule of a delivery's attempts, the one docs/design.md words: "Retries: at 5 s, 5 min, 30 min,
2 h, 5 h, 10 h, 10 h (±10 %); test mode stops after 5 min". A receiver's failure is retried on it
(tests/webhooks/test_delivery.py follows the attempts on a controlled clock); a run of an attempt
that fails before it is recorded (the database away) is run again by the work queue on the same
schedule, never on one of the queue's own."""

import re
from pathlib import Path

import pytest
from django.db import OperationalError
from django.utils import timezone

from apps.jobs.models import Job
from apps.jobs.public import run_due
from apps.webhooks import jobs as webhook_jobs
from apps.webhooks.models import Delivery
from apps.webhooks.public import JITTER, RETRY_DELAYS, TEST_MODE_RETRY_DELAYS, publish
from tests.support.jobs import frozen

pytestmark = pytest.mark.django_db

DESIGN_MD = Path(__file__).resolve().parents[2] / "docs" / "design.md"
UNITS = {"s": 1, "min": 60, "h": 3600}
CALL = {"id": "call_123", "object": "call", "status": "completed", "livemode": False}


def database_away(delivery_id):
    raise OperationalError("the database went away")


def documented() -> tuple[list[int], float, int]:
    """The delays, the jitter and where test mode stops, read from docs/design.md's sentence."""
    text = " ".join(DESIGN_MD.read_text().split())
    found = re.search(r"Retries: at (.+?) \(±(\d+) %\); test mode stops after (\d+) (s|min|h)", text)
    assert found, "docs/design.md no longer words the retry schedule"
    delays = [int(n) * UNITS[unit] for n, unit in re.findall(r"(\d+) (s|min|h)\b", found.group(1))]
    return delays, int(found.group(2)) / 100, int(found.group(3)) * UNITS[found.group(4)]


def test_the_schedule_is_the_documented_one():
    delays, jitter, test_mode_stop = documented()
    assert list(RETRY_DELAYS) == delays == [5, 300, 1800, 7200, 18000, 36000, 36000]
    assert jitter == JITTER
    assert list(TEST_MODE_RETRY_DELAYS) == [d for d in delays if d <= test_mode_stop]


def test_a_run_that_fails_before_it_records_is_run_again_on_the_same_schedule(caller, owner, receiver, monkeypatch):
    response = caller.post("/v1/webhook_endpoints", {"url": receiver.url(), "enabled_events": ["call.ended"]})
    assert response.status_code == 201, response.content
    runs = []

    def away(delivery_id):
        runs.append(delivery_id)
        database_away(delivery_id)

    monkeypatch.setattr(webhook_jobs, "deliver", away)
    start = timezone.now()
    with frozen(start) as clock:
        publish(owner, "call.ended", CALL, livemode=False)
        job = Job.objects.get(kind="webhooks.deliver")
        gaps = []
        for _ in range(3):
            clock.at = max(clock.at, job.run_at)
            before = clock.at
            run_due()
            job.refresh_from_db()
            gaps.append((job.run_at - before).total_seconds())
    assert len(runs) == 3 and len(set(runs)) == 1  # the same attempt each time, never a second one
    for gap, nominal in zip(gaps, RETRY_DELAYS, strict=False):
        assert nominal * (1 - JITTER) <= gap <= nominal * (1 + JITTER)
    assert Delivery.objects.count() == 1 and not receiver.requests


def test_the_queue_gives_up_on_an_attempt_when_the_schedule_is_spent(caller, owner, receiver, monkeypatch):
    caller.post("/v1/webhook_endpoints", {"url": receiver.url(), "enabled_events": ["call.ended"]})
    monkeypatch.setattr(webhook_jobs, "deliver", database_away)
    with frozen(timezone.now()) as clock:
        publish(owner, "call.ended", CALL, livemode=False)
        job = Job.objects.get(kind="webhooks.deliver")
        for _ in range(len(RETRY_DELAYS) + 1):
            clock.at = max(clock.at, job.run_at)
            run_due()
            job.refresh_from_db()
    assert job.status == "failed" and job.attempts == len(RETRY_DELAYS) + 1
