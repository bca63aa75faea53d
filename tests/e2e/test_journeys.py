"""A user's hour, end to end: what a test-mode user does with callback calls, chained, from outside.

One live server for the module (gunicorn and ``manage.py run_worker`` on one database and one
clock, tests/e2e/worker_server.py; PostgreSQL when DATABASE_URL names it). The server's clock
stands still for the whole module and the tests move it; the simulator's next events, the
transcripts and the webhook deliveries are durable work that the worker runs once the clock made
them due, and the tests wait for that in real time, bounded. The user holds a test key
(``sk_test_``), a webhook receiver on loopback and, for the transcript, has turned call summaries on
at /settings/sharing. The simulator's magic numbers are those of /docs/calls
(apps/telephony/simulator.py); what each ends as is docs/design.md's table of a call's states.
"""

import re
from dataclasses import dataclass, field

import pytest

from tests.support.receivers import Receiver

from .assistant import ACCOUNT, EMAIL, PASSWORD
from .journey import SCOPES, Api, Browser, Hooks, Operator, expect
from .worker_server import LiveServerWithWorker

pytestmark = pytest.mark.e2e

OPERATOR = ("operator@example.com", "operator-e2e-battery-staple")
CALLS_PER_NUMBER_HOURLY = 5
HOUR = 3600
# How long, in real time, the worker gets to run what one move of the clock made due.
WORKER_DEADLINE = 30.0


@pytest.fixture(scope="module")
def server(tmp_path_factory, document_host):
    live = LiveServerWithWorker(
        tmp_path_factory.mktemp("journeys"),
        ca_file=document_host.ca_file,
        **ACCOUNT,
    )
    with live, live.clock.stopped():
        yield live


@dataclass
class User:
    """The account holder with a test key, a receiver, and what they did (to add up at the end)."""

    server: LiveServerWithWorker
    api: Api
    hooks: Hooks
    starting_balance: int
    starting_ledger: set[str]
    calls: list[str] = field(default_factory=list)  # the journeys', and the demo's still live at the start
    transcripts: list[str] = field(default_factory=list)  # of these calls

    def later(self, seconds: float) -> None:
        # Deliveries are checked against the server's clock as they come: a receiver rejects a
        # timestamp more than 5 minutes from its own time, and this moves that time on.
        self.hooks.deliveries()
        self.server.clock.advance(seconds)

    def quote(self, to: str, **extra):
        return self.api.post("/quotes", {"to": to, **extra})

    def place(self, quote_id: str):
        return self.api.post("/calls", {"quote": quote_id})

    def call(self, to: str, **extra) -> dict:
        """Quote, then place: the call rings the user's phone first."""
        quote = expect(self.quote(to, **extra), 201)
        return self.placed(quote)

    def placed(self, quote: dict) -> dict:
        call = expect(self.place(quote["id"]), 201)
        assert call["status"] == "ringing_you", call
        assert call["to"] == quote["to"]
        self.calls.append(call["id"])
        return call

    def read(self, call_id: str) -> dict:
        return expect(self.api.get(f"/calls/{call_id}"), 200)

    def wait_for(self, object_id: str, event_type: str) -> dict:
        def received():
            return next((e for e in self.hooks.events_about(object_id) if e["type"] == event_type), None)

        return self.server.wait_for(received, what=f"{event_type} about {object_id}", timeout=WORKER_DEADLINE)

    def ended(self, call_id: str, *, after: float) -> dict:
        """The call once the clock moved ``after`` seconds and the worker told the receiver it ended."""
        self.later(after)
        self.wait_for(call_id, "call.ended")
        call = self.read(call_id)
        assert call["ended_at"] is not None, call
        return call

    def balance(self) -> dict:
        return expect(self.api.get("/balance"), 200)


@pytest.fixture(scope="module")
def user(server):
    key = server.manage("createapikey", "--email", EMAIL, "--test", "--name", "journeys", "--scopes", SCOPES)
    api = Api(server.url, key.stdout.strip())
    assert key.stdout.startswith("sk_test_")
    # Transcripts are shared with apps and keys only once the account holder says so.
    Browser(server.url, EMAIL, PASSWORD).submit("/settings/sharing", {"call_summaries": "on"})
    receiver = Receiver()
    endpoint = expect(
        api.post("/webhook_endpoints", {"url": receiver.url(), "enabled_events": ["*"], "description": "my laptop"}),
        201,
    )
    assert endpoint["secret"].startswith("whsec_")
    balance, ledger, live = _starting_point(server, api)
    hooks = Hooks(receiver, endpoint["secret"], clock=server.clock)
    try:
        yield User(server, api, hooks, balance["amount"], ledger, calls=live)
    finally:
        receiver.close()


def _starting_point(server, api: Api) -> tuple[dict, set[str], list[str]]:
    """The balance, the ledger's rows and the calls still live, read when they agree: the demo's live
    calls (seed_demo) end, charged, within minutes of the clock, and the worker may be ending one."""

    def settled():
        balance = expect(api.get("/balance"), 200)
        live = [call["id"] for call in api.every("/calls") if call["ended_at"] is None]
        ledger = api.every("/balance_transactions")
        same = expect(api.get("/balance"), 200) == balance and sum(row["amount"] for row in ledger) == balance["amount"]
        return same and (balance, {row["id"] for row in ledger}, live)

    balance, ledger, live = server.wait_for(settled, what="a settled balance to start from", timeout=WORKER_DEADLINE)
    assert balance["amount"] > 0, balance
    return balance, ledger, live


@pytest.fixture(scope="module")
def operator(server, user):
    email, password = OPERATOR
    server.env["DJANGO_SUPERUSER_PASSWORD"] = password
    server.manage("createsuperuser", "--noinput", "--email", email, "--display_name", "Operator")
    account_id = expect(user.api.get("/me"), 200)["id"]
    return Operator(server.url, email, password, account_id=account_id)


def an_hour_later(user: User) -> None:
    """Each journey is its own hour: the five-calls-a-number count of another does not reach into it."""
    user.later(HOUR + 60)


# --- 1. An ordinary hour ---------------------------------------------------------------------------


def test_an_ordinary_hour_of_calls_to_several_numbers(user):
    an_hour_later(user)
    first = None
    # Six different numbers, one call each, one after the other: the sixth is placed like the first.
    for to in ("+12025550100", "+12025550171", "+12025550172", "+12025550173", "+12025550174", "+12025550175"):
        call = user.call(to)
        first = first or call
        assert call["to"] == to
        assert user.ended(call["id"], after=40)["status"] == "completed"
    # Numbers as people type them are the numbers they dial.
    for typed, dialled in (("+1 202-555-0177", "+12025550177"), ("+1 (202) 555 0178", "+12025550178")):
        call = user.call(typed)
        assert call["to"] == dialled
        assert user.ended(call["id"], after=40)["status"] == "completed"
    # +12025550100 again, typed four more ways: it is one number, called five times in all.
    for typed in ("+1 1 202 555 0100", "+1 (202) 555-0100", "+1 202.555.0100"):
        call = user.call(typed)
        assert call["to"] == "+12025550100"
        assert user.ended(call["id"], after=40)["status"] == "completed"
    fifth = expect(user.quote("+1 202 555 0100"), 201)
    sixth = expect(user.quote("+12025550100"), 201)  # four placed so far: under the cap when quoted
    assert fifth["to"] == sixth["to"] == "+12025550100"
    last = user.placed(fifth)
    assert user.ended(last["id"], after=40)["status"] == "completed"
    assert last["created"] - first["created"] < HOUR

    # Placing counts again: the quote made under the cap is refused now, naming the number.
    refused = expect(user.place(sixth["id"]), 403)["error"]
    assert refused["code"] == "spend_limit_exceeded", refused
    assert f"At most {CALLS_PER_NUMBER_HOURLY} calls an hour" in refused["message"]
    assert "+1 202-555-0100" in refused["message"], refused
    # And a new quote, typed with the country code twice, is the same number: refused at once.
    again = expect(user.quote("+1 1 202 555 0100"), 403)["error"]
    assert again["code"] == "spend_limit_exceeded" and "+1 202-555-0100" in again["message"], again
    # Other numbers are not held back by it.
    assert expect(user.quote("+12025550179"), 201)["to"] == "+12025550179"


# --- 2. The simulator's numbers --------------------------------------------------------------------

# (destination, seconds the simulator takes to end it from placing, status, end_reason)
DESTINATIONS = (
    ("+12025550100", 4 + 5 + 30, "completed", "callee_hung_up"),
    ("+12025550101", 4 + 3, "busy", "callee_busy"),
    ("+12025550102", 4 + 45, "no_answer", "callee_no_answer"),
    ("+12025550103", 4 + 1, "failed", "failed"),
)
# (your number, seconds, status, end_reason): the call to any destination never gets that far.
YOUR_NUMBERS = (
    ("+12025550190", 30, "no_answer", "you_did_not_answer"),
    ("+12025550191", 17, "canceled", "you_did_not_press_1"),
    ("+12025550192", 3, "canceled", "you_declined"),
)


@pytest.mark.parametrize(("to", "seconds", "status", "end_reason"), DESTINATIONS, ids=lambda v: str(v))
def test_each_magic_destination_ends_as_the_docs_say(user, to, seconds, status, end_reason):
    an_hour_later(user)
    call = user.call(to)
    user.later(seconds - 1)
    assert user.read(call["id"])["ended_at"] is None  # not a second early
    ended = user.ended(call["id"], after=1)
    assert (ended["status"], ended["end_reason"]) == (status, end_reason), ended
    if to == "+12025550102":
        transitions = ended["status_transitions"]
        assert transitions["ended_at"] - transitions["ringing_at"] == 45, transitions
    assert (ended["amount"] or 0) > 0 if status == "completed" else not ended["amount"], ended


def test_a_call_that_stays_until_ended_by_request(user):
    an_hour_later(user)
    call = user.call("+12025550104")
    user.later(4 + 5)
    user.wait_for(call["id"], "call.in_progress")
    user.later(120)
    assert user.read(call["id"])["status"] == "in_progress"
    ended = expect(user.api.post(f"/calls/{call['id']}/end"), 200)
    assert (ended["status"], ended["end_reason"]) == ("completed", "ended_by_request"), ended
    assert ended["duration"] == 120 and ended["amount"] > 0, ended
    user.wait_for(call["id"], "call.ended")


@pytest.mark.parametrize("typed", ["+12025550105", "+1 202 555 0105", "+1 1 202 555 0105"])
def test_the_blocked_number_is_refused_at_the_quote_however_typed(user, typed):
    refused = expect(user.quote(typed), 422)["error"]
    assert (refused["code"], refused["param"]) == ("destination_not_allowed", "to"), refused


def test_the_blocked_numbers_refusal_says_why_in_one_sentence(user):
    message = expect(user.quote("+12025550105"), 422)["error"]["message"]
    # The number, then the reason as the rest of the same sentence (the carrier's reason is one of them).
    assert re.fullmatch(r"\+1 202-555-0105 is [a-z][^.]*: it cannot be called\.", message), message


@pytest.mark.parametrize(("your_number", "seconds", "status", "end_reason"), YOUR_NUMBERS, ids=lambda v: str(v))
def test_each_magic_number_of_yours_ends_as_the_docs_say(user, operator, your_number, seconds, status, end_reason):
    an_hour_later(user)
    mine = expect(user.quote("+12025550100"), 201)["your_number"]
    operator.make_default(your_number)
    try:
        quote = expect(user.quote("+12025550100"), 201)
        assert quote["your_number"] == your_number, quote
        call = user.placed(quote)
        user.later(seconds - 1)
        assert user.read(call["id"])["ended_at"] is None
        ended = user.ended(call["id"], after=1)
    finally:
        operator.make_default(mine)
    assert (ended["status"], ended["end_reason"], ended["amount"] or 0) == (status, end_reason, 0), ended
    assert ended["status_transitions"]["ringing_at"] is None, ended


# --- 3. A call's webhooks, then its transcript -----------------------------------------------------


def test_a_receiver_gets_a_call_in_order_of_state_then_its_transcript(user):
    an_hour_later(user)
    call = user.call("+12025550181", record=True)
    ringing = user.wait_for(call["id"], "call.ringing_you")
    assert ringing["data"]["object"]["status"] == "ringing_you"
    user.later(4 + 5)
    answered = user.wait_for(call["id"], "call.in_progress")
    assert answered["data"]["object"]["status"] == "in_progress"
    ended = user.ended(call["id"], after=30)
    assert (ended["status"], ended["end_reason"]) == ("completed", "callee_hung_up")
    assert user.hooks.types_about(call["id"]) == ["call.ringing_you", "call.in_progress", "call.ended"]
    told = user.wait_for(call["id"], "call.ended")["data"]["object"]
    assert (told["status"], told["amount"]) == ("completed", ended["amount"]), told

    transcript = expect(user.api.post(f"/calls/{call['id']}/transcript"), 202)
    assert transcript["status"] == "queued", transcript
    user.later(5)
    done = user.wait_for(transcript["id"], "transcript.completed")["data"]["object"]
    assert done == {"id": transcript["id"], "object": "transcript", "call": call["id"], "status": "completed"}
    read = expect(user.api.get(f"/calls/{call['id']}", **{"expand[]": "transcript"}), 200)["transcript"]
    assert read["status"] == "completed" and read["amount"] > 0, read
    user.transcripts.append(call["id"])


# --- 4. The money adds up --------------------------------------------------------------------------


def test_at_the_end_the_balance_adds_up_to_the_ledger(user):
    calls = {call_id: user.read(call_id) for call_id in user.calls}  # a read also applies what is due
    assert all(call["ended_at"] is not None for call in calls.values()), calls
    transcripts = {
        call_id: expect(user.api.get(f"/calls/{call_id}", **{"expand[]": "transcript"}), 200)["transcript"]
        for call_id in user.transcripts
    }
    spent_on_calls = sum(call["amount"] or 0 for call in calls.values())
    spent_on_transcripts = sum(transcript["amount"] for transcript in transcripts.values())
    balance = user.balance()
    assert balance["amount"] == user.starting_balance - spent_on_calls - spent_on_transcripts, balance
    assert (balance["held_amount"], balance["available_amount"]) == (0, balance["amount"]), balance
    ledger = user.api.every("/balance_transactions")
    assert sum(row["amount"] for row in ledger) == balance["amount"]
    # What changed is one row for each call charged and one for the transcript, each naming what it paid for.
    new = sorted((row["type"], row["source"], row["amount"]) for row in ledger if row["id"] not in user.starting_ledger)
    expected = [("call", call_id, -call["amount"]) for call_id, call in calls.items() if call["amount"]]
    expected += [("transcript", transcript["id"], -transcript["amount"]) for transcript in transcripts.values()]
    assert new == sorted(expected)
