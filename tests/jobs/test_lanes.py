"""Lanes: each kind runs in the lane its app declares; a lane's claim takes only its own rows; the
deliveries lane runs at most 2 rows of one tenant and 1 of one subject at once, across claims."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from apps.jobs import registry, runner
from apps.jobs.models import Job, JobStatus
from apps.jobs.public import CARRIER, DELIVERIES, HOUSEKEEPING, TRANSCRIPTS, enqueue, handler, run_due
from apps.jobs.registry import HandlerSpec
from tests.support.jobs import register

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _noop(payload):
    pass


@pytest.fixture
def delivery_kind():
    with register(HandlerSpec(kind="tests.deliver", fn=_noop, lane=DELIVERIES)) as spec:
        yield spec.kind


def test_each_apps_kinds_run_in_the_lane_its_jobs_module_declares():
    assert registry.get("telephony.simulated_event").lane == CARRIER
    assert registry.get("calls.demo_event").lane == CARRIER
    assert registry.get("telephony.simulated_transcript").lane == TRANSCRIPTS
    assert registry.get("webhooks.deliver").lane == DELIVERIES
    assert registry.get("messages.purge").lane == HOUSEKEEPING


def test_a_kind_that_names_no_lane_is_housekeeping_and_an_unknown_lane_is_refused_at_start_up():
    with register(HandlerSpec(kind="tests.plain", fn=_noop)):
        assert enqueue("tests.plain", {}).lane == HOUSEKEEPING
    with pytest.raises(ImproperlyConfigured, match="Unknown job lane 'fast'"):
        handler("tests.fast", lane="fast")


def test_a_lanes_claim_takes_only_that_lanes_rows(delivery_kind):
    with register(HandlerSpec(kind="tests.call", fn=_noop, lane=CARRIER)):
        backlog = [enqueue(delivery_kind, {"n": n}, run_at=T0, subject=f"we_{n}", tenant="1") for n in range(5)]
        call_event = enqueue("tests.call", {}, run_at=T0 + timedelta(seconds=1))
        _token, jobs = runner.claim(now=T0 + timedelta(seconds=2), limit=1, lane=CARRIER)
    # Due after five deliveries, and first in its own lane.
    assert [job.id for job in jobs] == [call_event.id]
    assert backlog[0].id < call_event.id


def _claim(lane=DELIVERIES, limit=1):
    return runner.claim(now=T0, limit=limit, lane=lane)[1]


def test_a_tenant_runs_at_most_two_rows_at_once_and_another_tenants_row_is_taken_meanwhile(delivery_kind):
    earlier = T0 - timedelta(minutes=1)
    hung = [enqueue(delivery_kind, {}, run_at=earlier, subject=f"we_a{n}", tenant="1") for n in range(16)]
    other = enqueue(delivery_kind, {}, run_at=T0, subject="we_b", tenant="2")
    first, second = _claim(), _claim()
    assert [first[0].id, second[0].id] == [hung[0].id, hung[1].id]
    # Tenant 1 holds its two slots: its other 14 rows, due earlier, are passed over.
    assert [job.id for job in _claim()] == [other.id]
    assert _claim() == []
    # One of tenant 1's attempts ends: its next row is taken.
    runner.run_one(first[0], first[0].locked_by, now=T0)
    assert [job.id for job in _claim()] == [hung[2].id]


def test_one_subject_runs_one_row_at_a_time(delivery_kind):
    rows = [enqueue(delivery_kind, {"n": n}, run_at=T0, subject="we_same", tenant="1") for n in range(3)]
    assert [job.id for job in _claim(limit=5)] == [rows[0].id]
    assert _claim(limit=5) == []


def test_one_claim_takes_several_rows_within_the_bounds(delivery_kind):
    rows = [enqueue(delivery_kind, {}, run_at=T0, subject=f"we_{n}", tenant="1") for n in range(3)]
    rows += [enqueue(delivery_kind, {}, run_at=T0, subject="we_x", tenant="2") for _ in range(2)]
    assert [job.id for job in _claim(limit=10)] == [rows[0].id, rows[1].id, rows[3].id]


def test_a_lease_run_out_frees_its_slot(delivery_kind):
    rows = [enqueue(delivery_kind, {}, run_at=T0, subject=f"we_{n}", tenant="1") for n in range(3)]
    _claim(), _claim()
    later = T0 + timedelta(seconds=runner.conf.get("LEASE_SECONDS") + 1)
    # The two rows whose worker died are due again, before the third.
    taken = runner.claim(now=later, limit=5, lane=DELIVERIES)[1]
    assert [job.id for job in taken] == [rows[0].id, rows[1].id]


def test_run_due_with_a_lane_keeps_its_bounds(delivery_kind):
    ran = []
    with register(HandlerSpec(kind=delivery_kind, fn=lambda p: ran.append(p["n"]), lane=DELIVERIES)):
        for n in range(4):
            enqueue(delivery_kind, {"n": n}, run_at=T0, subject=f"we_{n}", tenant="1")
        # Each row finishes before the next claim, so every one runs.
        assert run_due(now=T0, lane=DELIVERIES) == 4
    assert sorted(ran) == [0, 1, 2, 3]


@pytest.mark.django_db(transaction=True)
def test_the_worker_moves_ready_rows_into_their_kinds_lane():
    with register(HandlerSpec(kind="tests.moved", fn=_noop, lane=TRANSCRIPTS)):
        row = enqueue("tests.moved", {}, run_at=T0)
        Job.objects.filter(pk=row.pk).update(lane="")  # written before the kind had a lane
        call_command("run_worker", "--once", stdout=StringIO())
    row.refresh_from_db()
    assert (row.lane, row.status) == (TRANSCRIPTS, JobStatus.SUCCESSFUL)
