"""An idle lane waits until its next row falls due (never longer than the poll); on PostgreSQL a
committed row wakes its lane through one listening connection, a rolled-back one wakes no one,
and while that connection is away the lanes keep polling and it listens again."""

import logging
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.core.sql import write_together
from apps.jobs import wakeup
from apps.jobs.management.commands.run_worker import Command
from apps.jobs.models import Job
from apps.jobs.public import CARRIER, HOUSEKEEPING, enqueue, enqueue_statement
from apps.jobs.registry import HandlerSpec
from tests.support.jobs import Stopper, frozen, register, without_schedules

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
POLL = 1.0
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="LISTEN/NOTIFY is PostgreSQL's")


@pytest.fixture(autouse=True)
def _only_the_tests_rows():
    with without_schedules():
        yield


@pytest.fixture
def ran():
    ran = []
    with (
        register(HandlerSpec(kind="tests.call_event", fn=lambda p: ran.append(p["n"]), lane=CARRIER)),
        register(HandlerSpec(kind="tests.chore", fn=lambda p: ran.append(p["n"]), lane=HOUSEKEEPING)),
    ):
        yield ran


class _RecordingBell(wakeup.Bell):
    """A lane's bell whose wait returns at once (as if its time ran out, never rung), recording the
    time asked, and stops the worker after ``after`` waits; ``meanwhile`` runs during a wait."""

    def __init__(self, command, *, after, meanwhile=None):
        super().__init__()
        self.command, self.after, self.meanwhile, self.waits = command, after, meanwhile, []

    def wait(self, seen, timeout):
        self.waits.append(round(timeout, 6))
        if self.meanwhile is not None:
            self.meanwhile(len(self.waits))
        if len(self.waits) >= self.after:
            self.command.stopping.set()
        return False


def _idle_lane(lane=CARRIER, *, after=1, meanwhile=None):
    command = Command()
    bell = command.bells[lane] = _RecordingBell(command, after=after, meanwhile=meanwhile)
    return command, bell


@pytest.mark.parametrize(
    ("rows", "waited"),
    [
        pytest.param([], POLL, id="nothing ready: the poll"),
        pytest.param([(CARRIER, 0.3)], 0.3, id="a row due in 0.3 s: 0.3 s"),
        pytest.param([(CARRIER, 5)], POLL, id="a row due after the poll: the poll"),
        pytest.param([(HOUSEKEEPING, 0.1), (CARRIER, 0.6)], 0.6, id="another lane's sooner row is not its own"),
    ],
)
def test_an_idle_lane_waits_until_the_earlier_of_the_poll_and_its_next_row(ran, rows, waited):
    kinds = {CARRIER: "tests.call_event", HOUSEKEEPING: "tests.chore"}
    with frozen(T0):
        for n, (lane, after) in enumerate(rows):
            enqueue(kinds[lane], {"n": n}, run_at=T0 + timedelta(seconds=after))
        command, bell = _idle_lane()
        assert command._loop(once=False, poll=POLL, batch=1, lane=CARRIER) == 0
    assert bell.waits == [waited]


def test_a_row_due_already_but_held_is_not_waited_for(ran):
    # Leased by another claim: the lane waits its poll rather than looking again and again.
    with frozen(T0):
        held = enqueue("tests.call_event", {"n": 0}, run_at=T0 - timedelta(seconds=1))
        Job.objects.filter(id=held.id).update(locked_by="elsewhere", locked_until=T0 + timedelta(minutes=5))
        command, bell = _idle_lane()
        command._loop(once=False, poll=POLL, batch=1, lane=CARRIER)
    assert bell.waits == [POLL]


def test_the_row_waited_for_runs_when_the_wait_ends(ran):
    with frozen(T0) as clock:

        def time_passes(waits):
            clock.at = T0 + timedelta(seconds=0.3)

        enqueue("tests.call_event", {"n": 7}, run_at=T0 + timedelta(seconds=0.3))
        command, bell = _idle_lane(after=2, meanwhile=time_passes)
        assert command._loop(once=False, poll=POLL, batch=1, lane=CARRIER) == 1
    assert ran == [7]
    assert bell.waits == [0.3, POLL]


def test_the_next_row_is_one_read():
    with frozen(T0), CaptureQueriesContext(connection) as queries:
        assert Command()._idle_wait(POLL, lane=CARRIER) == POLL
    assert len(queries) == 1


def test_a_lane_whose_bell_never_rings_still_runs_a_row_written_while_it_waited(ran):
    # The listener away (or SQLite): the wait ends with the poll, and the next look finds the row.
    def row_arrives(waits):
        if waits == 1:
            enqueue("tests.call_event", {"n": 1})

    command, bell = _idle_lane(after=2, meanwhile=row_arrives)
    assert command._loop(once=False, poll=POLL, batch=1, lane=CARRIER) == 1
    assert ran == [1]
    assert bell.waits == [POLL, POLL]


def test_a_ring_while_the_lane_looks_for_work_ends_its_wait_at_once():
    bell = wakeup.Bell()
    seen = bell.rung
    bell.ring()
    assert bell.wait(seen, timeout=60)


def test_a_listener_that_cannot_connect_tries_again_less_often_and_rings_nothing(monkeypatch, caplog):
    bells = {CARRIER: wakeup.Bell()}
    stopper = Stopper(after=3)
    listener = wakeup.Listener(bells, stopper, alias="default")

    def refused():
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(listener, "_connect", refused)
    with caplog.at_level(logging.WARNING, logger="apps.jobs"):
        listener.run()
    assert stopper.waits == [1.0, 2.0, 4.0]
    assert "connection refused; lanes poll meanwhile" in caplog.text
    assert bells[CARRIER].rung == 0


def test_lanes_only_poll_on_sqlite_and_behind_a_transaction_pooler(settings):
    if connection.vendor == "sqlite":
        assert wakeup.start_listener({}, None, alias="default") is None
    settings.DATABASE_POOLER = "pgbouncer-transaction"
    # A transaction pooler cannot keep a LISTEN: lanes poll.
    assert not wakeup.listens("default")


WAKE_TIMEOUT = 60  # generous: a wake is asserted by the bell ringing, not by how soon


def assert_carrier_not_rung(bells, seen):
    """No carrier row notified since ``seen``: one session's notifications arrive in commit
    order, so once a later row's (another lane's) has arrived, an earlier one would have."""
    enqueue("tests.chore", {"n": 2})
    assert bells[HOUSEKEEPING].wait(seen[HOUSEKEEPING], WAKE_TIMEOUT)
    assert bells[CARRIER].rung == seen[CARRIER]


@pytest.fixture
def listening(ran):
    command = Command()
    listener = wakeup.start_listener(command.bells, command.stopping, alias="default")
    assert listener.listening.wait(WAKE_TIMEOUT)
    yield command.bells, listener
    command.stopping.set()
    listener.join()


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_committed_row_wakes_its_lane_only(listening):
    bells, _listener = listening
    seen = {lane: bell.rung for lane, bell in bells.items()}
    enqueue("tests.call_event", {"n": 1})
    assert bells[CARRIER].wait(seen[CARRIER], WAKE_TIMEOUT)
    assert {lane: bell.rung for lane, bell in bells.items() if lane != CARRIER} == {
        lane: rung for lane, rung in seen.items() if lane != CARRIER
    }


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_row_written_inside_another_statement_wakes_its_lane(listening):
    bells, _listener = listening
    seen = bells[CARRIER].rung
    with transaction.atomic():
        write_together([enqueue_statement("tests.call_event", {"n": n}) for n in range(2)])
    assert bells[CARRIER].wait(seen, WAKE_TIMEOUT)


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_row_wakes_no_one(listening):
    bells, _listener = listening
    seen = {lane: bell.rung for lane, bell in bells.items()}
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue("tests.call_event", {"n": 1})
        raise RuntimeError("rolled back")
    assert_carrier_not_rung(bells, seen)
    assert not Job.objects.filter(kind="tests.call_event").exists()


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_listener_whose_connection_is_ended_listens_again_and_rings_every_lane(listening, caplog):
    bells, listener = listening
    seen = bells[CARRIER].rung
    with caplog.at_level(logging.WARNING, logger="apps.jobs"), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %%'"
        )
        assert cursor.fetchone() == (True,)
        # Back: it rings every lane (a row written meanwhile is looked for), then wakes on new rows again.
        assert bells[CARRIER].wait(seen, WAKE_TIMEOUT)
        assert listener.listening.wait(WAKE_TIMEOUT)
    assert "lanes poll meanwhile" in caplog.text
    seen = bells[CARRIER].rung
    enqueue("tests.call_event", {"n": 1})
    assert bells[CARRIER].wait(seen, WAKE_TIMEOUT)


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_an_operator_turns_the_notifications_off_where_no_worker_listens(listening):
    bells, _listener = listening
    seen = {lane: bell.rung for lane, bell in bells.items()}
    with connection.cursor() as cursor:
        cursor.execute("SET jobs.notify = 'off'")
        try:
            enqueue("tests.call_event", {"n": 1})
        finally:
            cursor.execute("RESET jobs.notify")
    assert_carrier_not_rung(bells, seen)
    assert Job.objects.filter(kind="tests.call_event").exists()
