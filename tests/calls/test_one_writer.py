"""One writer of a call's state (docs/design.md "One writer of a call's state"): placing, the carrier's events,
an end request and the demo's calls all go through ``states.call_change``; placing publishes
``call.ringing_you`` in its own transaction; nothing else in the code writes a call's status."""

import ast
import random
from datetime import timedelta

import pytest

from apps.billing.models import BalanceTransaction
from apps.calls import demo
from apps.calls.models import Call, Status
from apps.jobs.public import run_due
from apps.webhooks.models import Event
from tests.calls.callbacks import CALLEE, Placer, ready
from tests.support.code_scan import WriteFinder, callee, offenders, writes_in
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def placer(owner, clock):
    ready(owner)
    return Placer(owner)


def call_events(call_id: str) -> list[str]:
    events = Event.objects.filter(type__startswith="call.").order_by("created", "id")
    return [e.type for e in events if e.data.get("id") == call_id]


def test_placing_publishes_call_ringing_you(placer, clock):
    call = placer.quote_and_place(CALLEE)
    assert call_events(call["id"]) == ["call.ringing_you"]
    event = Event.objects.get(type="call.ringing_you")
    assert event.data["status"] == "ringing_you" and event.data["quote"] == call["quote"]
    assert event.data == {**call, "transcript": None}


def test_a_whole_call_publishes_each_state_once_in_order(placer, clock):
    call = placer.quote_and_place(CALLEE)  # answers in 5 s, talks 30 s, hangs up
    for _ in range(6):
        run_due(now=clock.tick(10))
    assert call_events(call["id"]) == ["call.ringing_you", "call.in_progress", "call.ended"]
    ended = Event.objects.get(type="call.ended")
    assert ended.data["status"] == "completed" and ended.data["end_reason"] == "callee_hung_up"
    charges = BalanceTransaction.objects.filter(source=call["id"])
    assert [c.amount for c in charges] == [-ended.data["amount"]]
    assert charges[0].description == "Call to +1 202-555-0100 (30 s)"


def test_a_refused_placement_publishes_nothing(placer, clock, owner):
    quote = placer.quote(CALLEE).json()
    placer.quote_and_place(CALLEE)
    assert_error(placer.place(quote["id"]), 409, "call_in_progress")
    assert Event.objects.filter(type="call.ringing_you").count() == 1


def test_the_demo_plays_its_live_calls_through_the_one_writer(owner):
    ready(owner, credit=100)  # seed_demo writes the seeded charges; a ledger row is what matters here
    now = demo_now = Call._meta.get_field("created").default()
    demo.seed(user=owner, livemode=True, rng=random.Random(3), now=demo_now, contacts=[], rate_for=_flat_rate)
    live = list(Call.objects.filter(user=owner, status__in=[Status.RINGING_YOU, Status.RINGING, Status.IN_PROGRESS]))
    assert live
    run_due(now=now + timedelta(hours=1))
    for call in live:
        call.refresh_from_db()
        assert call.status == Status.COMPLETED
        assert call_events(call.id)[-1] == "call.ended"
        if call.direction == "outbound" and call.duration:
            assert BalanceTransaction.objects.filter(source=call.id).count() == 1


def _flat_rate(e164):
    from decimal import Decimal
    from types import SimpleNamespace

    return SimpleNamespace(
        prefix=e164[1:3], country="US", currency="usd", per_minute=Decimal("0.01"), first_seconds=60, next_seconds=60
    )


def test_ending_another_accounts_call_touches_nothing_of_it(owner, stranger, clock):
    ready(stranger, rates_too=False)
    ready(owner, rates_too=True, phone="+14155550124")
    theirs = Placer(stranger).quote_and_place(CALLEE)
    clock.tick(20)  # the stranger's call has events due: you pressed 1, the callee answered
    response = Placer(owner).end(theirs["id"])
    assert_error(response, 404, "not_found", param="call_id")
    row = Call.objects.get(pk=theirs["id"])
    assert row.status == Status.RINGING_YOU and row.ringing_at is None  # its due events were not run
    assert call_events(theirs["id"]) == ["call.ringing_you"]


# --- nothing else writes a call's status ----------------------------------------------------------

# Where a call's status is written, and why each is not a change of a stored call's state.
ALLOWED = {
    ("calls/states.py", "advance"): "the table itself: a change in memory, written only by call_change",
    ("calls/states.py", "call_change"): "the one writer",
    ("calls/services.py", "_placed_call"): "a new call's first state (queued), before the writer places it",
    ("calls/demo.py", "_ended_call"): "seeded history, written once before anything reads it",
    ("calls/demo.py", "_live_calls"): "seeded live calls' starting states; their next states play through the writer",
    ("calls/examples.py", "*"): "OpenAPI examples, never saved",
}


class StatusWrites(WriteFinder):
    """Assignments to ``<x>.status`` where x names a call, ``Call(status=...)``, and ``status=`` in an
    ``update``/``update_row_statement`` of the calls table."""

    def visit_Assign(self, node):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == "status" and _names_a_call(target.value):
                self.note(node)
        self.generic_visit(node)

    def visit_Call(self, node):
        name = callee(node.func)
        keywords = {k.arg for k in node.keywords}
        if name == "Call" and "status" in keywords:
            self.note(node)
        writes_status = "status" in keywords or None in keywords  # status=, or **fields
        # The calls table: Call.objects...update(), update_row_statement(Call, ...), bulk_update of calls.
        names_calls = "Call.objects" in ast.unparse(node.func) or (
            bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id == "Call"
        )
        if name in ("update", "update_row_statement", "bulk_update") and writes_status and names_calls:
            self.note(node)
        self.generic_visit(node)


def _names_a_call(node) -> bool:
    return isinstance(node, ast.Name) and "call" in node.id.lower()


def test_nothing_else_writes_a_calls_status():
    found = offenders(StatusWrites, allowed=ALLOWED, relevant=lambda source: "Call" in source or "call" in source)
    assert found == [], "write a call's state through apps.calls.states.call_change: " + ", ".join(found)


def test_the_check_sees_a_writer_it_does_not_allow():
    sneak = writes_in(StatusWrites, "def sneak(call):\n    call.status = 'completed'\n    call.save()\n")
    bulk = writes_in(StatusWrites, "def bulk():\n    Call.objects.filter(pk=1).update(status='failed')\n")
    assert [function for function, _line in sneak + bulk] == ["sneak", "bulk"]
