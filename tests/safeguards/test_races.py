"""What the user decides, under concurrency, on PostgreSQL with threads against one database:
two placements of one confirmed quote make one call; one link answered twice at once is one
decision; the allowance holds when placements of quotes made earlier run together."""

import uuid

import pytest
from django.utils import timezone

from apps.audit.models import AuditEvent, EventType
from apps.billing.models import Hold
from apps.calls.models import Call
from apps.safeguards.models import Decision
from tests.calls.callbacks import CALLEE, Placer, ready
from tests.calls.factories import CallFactory
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.oauth import signed_in
from tests.support.races import postgresql_only, together
from tests.support.safeguards import answer, connect, page_path

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]

N = 8


@pytest.fixture
def owner(db):
    user = UserFactory(email="owner@example.com")
    ready(user)
    return user


def confirmed_quote(owner, placer, to=CALLEE) -> str:
    quote = placer.quote(to).json()
    refused = assert_error(placer.place(quote["id"]), 403, "user_confirmation_required", param="quote")
    answer(owner, refused["confirm_url"])
    return quote["id"]


def test_placements_of_one_confirmed_quote_make_one_call(owner):
    _app, token = connect(owner)
    placer = Placer(owner, secret=token)
    quote_id = confirmed_quote(owner, placer)
    responses = together(lambda i: placer.place(quote_id, key=str(uuid.uuid4())), N)
    assert sorted(r.status_code for r in responses) == [201] + [409] * (N - 1)
    assert {r.json()["error"]["code"] for r in responses if r.status_code == 409} == {"quote_used"}
    assert Call.objects.count() == 1 and Hold.objects.count() == 1


def test_one_link_answered_at_once_is_one_decision(owner):
    _app, token = connect(owner)
    placer = Placer(owner, secret=token)
    quote = placer.quote(CALLEE).json()
    path = page_path(
        assert_error(placer.place(quote["id"]), 403, "user_confirmation_required", param="quote")["confirm_url"]
    )
    browsers = [signed_in(owner) for _ in range(N)]
    together(lambda i: browsers[i].post(path, {"decision": "confirm" if i % 2 else "decline"}), N)
    (decision,) = Decision.objects.all()
    assert (
        AuditEvent.objects.filter(
            event_type__in=[EventType.CONNECTION_ACTION_CONFIRMED, EventType.CONNECTION_ACTION_DECLINED]
        ).count()
        == 1
    )
    placed = placer.place(quote["id"])
    assert placed.status_code == (201 if decision.decision == Decision.CONFIRMED else 403)


def test_the_allowance_holds_when_earlier_quotes_are_placed_together(owner):
    app, token = connect(owner, ask_first=False, daily_allowance=100)
    placer = Placer(owner, secret=token)
    quotes = [placer.quote(f"+1202555{n:04d}").json() for n in range(300, 300 + N)]
    assert all(quote["spend_left_today"] == 100 for quote in quotes)
    # Meanwhile a call of this app is charged 95 cents: what is left no longer buys a first minute.
    CallFactory(user=owner, created=timezone.now(), quote_id="quo_earlier", credential_id=app.client_id, spend=95)
    responses = together(lambda i: placer.place(quotes[i]["id"], key=str(uuid.uuid4())), N)
    assert [r.status_code for r in responses] == [403] * N
    assert {r.json()["error"]["code"] for r in responses} == {"spend_limit_exceeded"}
    assert Call.objects.count() == 1 and not Hold.objects.exists()


def test_parallel_placements_never_hold_more_than_the_allowance_leaves(owner):
    app, token = connect(owner, ask_first=False, daily_allowance=100)
    placer = Placer(owner, secret=token)
    quotes = [placer.quote(f"+1202555{n:04d}").json() for n in range(400, 400 + N)]
    CallFactory(user=owner, created=timezone.now(), quote_id="quo_earlier", credential_id=app.client_id, spend=40)
    responses = together(lambda i: placer.place(quotes[i]["id"], key=str(uuid.uuid4())), N)
    placed = [r.json() for r in responses if r.status_code == 201]
    assert len(placed) == 1  # one live callback at a time; the others wait their turn on the lock
    (hold,) = Hold.objects.all()
    assert hold.amount <= 60 and placed[0]["max_duration"] <= 10 * 60
