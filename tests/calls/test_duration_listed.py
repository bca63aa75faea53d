"""An ended callback call is listed with its length wherever the user reads of it: the ledger's
row of its charge (Billing) and the audit row of its end (Activity, Connected apps)."""

import pytest

from apps.audit.models import AuditEvent
from apps.billing.models import BalanceTransaction
from tests.calls.callbacks import STAYS, Placer, ready

pytestmark = pytest.mark.django_db


@pytest.fixture
def placer(owner, clock):
    ready(owner)
    return Placer(owner)


def test_a_call_ended_by_the_app_is_listed_with_its_length(placer, clock):
    call = placer.quote_and_place(STAYS)
    clock.tick(9)  # the callee answered at +9
    placer.get(f"/v1/calls/{call['id']}")
    clock.tick(61)
    placer.end(call["id"])
    ended = AuditEvent.objects.get(event_type="call.ended")
    assert ended.data["summary"] == "ended a call to +1 202-555-0104 after 1 min 1 s"
    assert ended.data["duration"] == 61
    charge = BalanceTransaction.objects.get(type="call")
    assert charge.description == "Call to +1 202-555-0104 (1 min 1 s)"


def test_a_call_ended_before_the_answer_says_so(placer, clock):
    call = placer.quote_and_place()
    clock.tick(2)
    placer.end(call["id"])
    ended = AuditEvent.objects.get(event_type="call.ended")
    assert ended.data["summary"] == "ended a call to +1 202-555-0100 before it was answered"
    assert ended.data["duration"] == 0


def test_a_call_the_callee_ended_is_charged_with_its_length(placer, clock):
    call = placer.quote_and_place()
    clock.tick(4 + 5 + 30)  # the quick start: answered at +9, the callee hangs up 30 s later
    assert placer.get(f"/v1/calls/{call['id']}").json()["status"] == "completed"
    assert BalanceTransaction.objects.get(type="call").description == "Call to +1 202-555-0100 (30 s)"
