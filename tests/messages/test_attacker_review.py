"""An attacker's review of the SMS inbox, black-box, each attempt asserting the contract's answer
(docs/design.md "Messages (receive-only inbox)", docs/spec.md 5.13 and 8.1, "Webhooks").

The attacker holds an ordinary account (and a second one), keys of both modes, and OAuth apps
with narrowed scopes. What each attempt tried and why it held is listed in docs/security.md.
"""

import json
import logging
import time

import pytest
from django.test import Client

from apps.accounts.security import sharing_update
from apps.audit.models import AuditEvent
from apps.jobs.public import run_due
from apps.messages.codes import detect_code
from apps.ratelimit.testing import frozen_clock
from apps.webhooks.models import Event
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory, make_api_key
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.oauth import signed_in
from tests.support.webhooks import key_caller

from .factories import make_message, make_sms_number, share

pytestmark = pytest.mark.django_db

TOOL = "svc_read_messages"
MINE = "+442071838750"
THEIRS = "+442071838760"
# A body whose code and text are easy to spot anywhere they should not be.
SECRET_BODY = "Your Bank code is 918273. Never share it."
SECRET_CODE = "918273"


@pytest.fixture
def number(user):
    return make_sms_number(user, MINE)


@pytest.fixture
def stranger(db):
    return UserFactory(email="mallory@example.com")


def auth(secret: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def read(secret: str, path: str = "/v1/messages", **query):
    return Client().get(path, query, **auth(secret))


def ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [m["id"] for m in response.json()["data"]]


def tool(token: str, arguments: dict):
    return McpClient(token).request("tools/call", {"name": TOOL, "arguments": arguments})


def tool_result(token: str, arguments: dict) -> dict:
    response = tool(token, arguments)
    assert response.status_code == 200, response.content
    return response.json()["result"]


def app_token(settings, user, scopes=("messages:read",)) -> str:
    return install_fake_tokens(settings).issue(user, scopes=frozenset(scopes))


# --- Another account's messages and numbers ---------------------------------------------------------


def test_another_accounts_number_in_every_form_is_not_found(user, stranger, live_secret, settings):
    theirs = make_sms_number(stranger, THEIRS)
    make_message(theirs, SECRET_BODY)
    # Their id, their E.164 (escaped, and as an unescaped "+" arrives).
    for value in (theirs.id, THEIRS, " " + THEIRS[1:]):
        response = read(live_secret, number=value)
        assert_error(response, 404, "not_found", param="number")
        assert SECRET_BODY not in response.content.decode()
    token = app_token(settings, user)
    for value in (theirs.id, THEIRS):
        result = tool_result(token, {"number": value})
        assert result["isError"] is True and SECRET_CODE not in json.dumps(result)


def test_another_accounts_message_by_id_and_as_a_cursor_reads_nothing(user, stranger, number, live_secret):
    history = make_api_key(user, scopes=["messages:read", "messages:history"])[1]
    theirs = make_message(make_sms_number(stranger, THEIRS), SECRET_BODY)
    for secret in (live_secret, history):
        assert_error(read(secret, f"/v1/messages/{theirs.id}"), 404, "not_found", param="message_id")
        for param in ("starting_after", "ending_before"):
            assert_error(read(secret, **{param: theirs.id}), 400, "invalid_cursor", param=param)


def test_the_same_e164_held_by_another_account_in_the_other_mode_stays_theirs(user, stranger, live_secret):
    # One number, one account in each mode: the stranger's test number is our live number's E.164.
    mine = make_message(make_sms_number(user, MINE), "mine")
    theirs = make_message(make_sms_number(stranger, MINE, livemode=False), SECRET_BODY)
    their_test_key = make_api_key(stranger, scopes=["messages:read"], livemode=False)[1]
    assert ids(read(their_test_key, number=MINE)) == [theirs.id]
    assert_error(read(their_test_key, f"/v1/messages/{mine.id}"), 404, "not_found", param="message_id")
    assert ids(read(live_secret, number=MINE)) == [mine.id]
    # Their ten reads of their number spend their number's budget, never ours (the limiter's clock
    # held still: a budget refills with time, however slow the machine).
    with frozen_clock():
        for _ in range(9):
            assert read(their_test_key, number=MINE).status_code == 200
        assert_error(read(their_test_key, number=MINE), 429, "rate_limited")
        assert ids(read(live_secret, number=MINE)) == [mine.id]


def test_the_test_helper_delivers_only_to_the_callers_test_numbers(user, stranger):
    live_number = make_sms_number(user, MINE)
    their_test = make_sms_number(stranger, THEIRS, livemode=False)
    test_key = make_api_key(user, scopes=["messages:read"], livemode=False)[1]
    for value in (live_number.id, MINE, their_test.id, THEIRS):
        response = Client().post(
            "/v1/test_helpers/messages",
            {"number": value, "from": "+12025550150", "body": "hi"},
            content_type="application/json",
            **auth(test_key),
        )
        assert_error(response, 404, "not_found", param="number")


def test_the_sharing_page_never_switches_another_accounts_number(user, stranger):
    theirs = make_sms_number(stranger, THEIRS, shared=False)
    page = signed_in(user).post(
        "/settings/sharing", {"message_reading": "on", "numbers_shown": [theirs.id], "messages_opt_in": [theirs.id]}
    )
    assert page.status_code == 302
    theirs.refresh_from_db()
    assert theirs.messages_opt_in is False


# --- Crossing modes -----------------------------------------------------------------------------


def test_a_key_never_reads_the_other_modes_messages_by_any_door(user, live_secret, test_secret):
    live = make_message(make_sms_number(user, MINE), "live")
    test = make_message(make_sms_number(user, "+442071838770", livemode=False), "test")
    for secret, other in ((live_secret, test), (test_secret, live)):
        assert_error(read(secret, f"/v1/messages/{other.id}"), 404, "not_found", param="message_id")
        assert_error(read(secret, number=other.number_id), 404, "not_found", param="number")
        assert_error(read(secret, number=other.to_number), 404, "not_found", param="number")
        for param in ("starting_after", "ending_before"):
            assert_error(read(secret, **{param: other.id}), 400, "invalid_cursor", param=param)


# --- Racing the sharing switches ----------------------------------------------------------------------


def test_a_cursor_of_a_number_switched_off_between_two_pages_is_refused(user, number, live_secret):
    messages = [make_message(number, f"m{n}", ago=100 - n) for n in range(3)]
    first = read(live_secret, limit=1)
    assert ids(first) == [messages[-1].id] and first.json()["has_more"] is True
    share(user, number, on=False)
    response = read(live_secret, limit=1, starting_after=messages[-1].id)
    assert_error(response, 400, "invalid_cursor", param="starting_after")
    assert ids(read(live_secret)) == []


def test_the_account_switch_off_between_two_tool_calls(settings, user, number):
    make_message(number, SECRET_BODY)
    token = app_token(settings, user)
    assert len(tool_result(token, {"number": number.id})["structuredContent"]["messages"]) == 1
    sharing_update(user=user, call_summaries=False, message_reading=False)
    for arguments in ({"number": number.id}, {"number": MINE}, {}):
        result = tool_result(token, arguments)
        assert result["isError"] is True and SECRET_CODE not in json.dumps(result)


def test_a_cached_credential_lists_nothing_once_the_account_switch_is_off(store, user, number):
    from tests.support.credentials import cached_key_secret

    secret = cached_key_secret(user, ["messages:read"])
    message = make_message(number)
    assert ids(read(secret)) == [message.id]
    sharing_update(user=user, call_summaries=False, message_reading=False)
    assert ids(read(secret)) == []
    assert_error(read(secret, number=number.id), 403, "number_not_opted_in", param="number")
    share(user, number)  # both switches on again: readable again at once, as nothing was cached
    assert ids(read(secret)) == [message.id]


def test_an_event_whose_account_switch_went_off_is_neither_sent_nor_redelivered(user, number):
    from tests.support.receivers import Receiver

    test_number = make_sms_number(user, "+12025550180", livemode=False)
    _key, caller = key_caller(user)
    receiver = Receiver()
    try:
        endpoint = caller.post(
            "/v1/webhook_endpoints", {"url": receiver.url(), "enabled_events": ["message.received"]}
        ).json()
        response = caller.post(
            "/v1/test_helpers/messages", {"number": test_number.id, "from": "+12025550150", "body": SECRET_BODY}
        )
        assert response.status_code == 201
        sharing_update(user=user, call_summaries=False, message_reading=False)
        run_due()
        [event] = caller.get("/v1/events", {"type": "message.received"}).json()["data"]
        redelivered = caller.post(f"/v1/events/{event['id']}/redeliver", {"endpoint": endpoint["id"]})
        assert redelivered.status_code == 202, redelivered.content
        run_due()
        assert receiver.requests == []
    finally:
        receiver.close()


# --- Cursors ------------------------------------------------------------------------------------------


def test_both_cursors_at_once_are_refused(number, live_secret):
    a, b = make_message(number, "a", ago=20), make_message(number, "b", ago=10)
    response = read(live_secret, starting_after=b.id, ending_before=a.id)
    assert_error(response, 400, "invalid_cursor", param="ending_before")


def test_a_cursor_of_another_number_keeps_the_page_to_this_filter(user, number, live_secret):
    other = make_sms_number(user, "+442071838751")
    mine = [make_message(number, f"n{n}", ago=ago) for n, ago in enumerate((300, 250, 200))]
    pivot = make_message(other, "o", ago=275)
    make_message(other, "older", ago=290)
    # Page 2 asks for this number beside a message of the other one: only this number's, on the right side.
    assert ids(read(live_secret, number=number.id, starting_after=pivot.id)) == [mine[0].id]
    assert ids(read(live_secret, number=number.id, ending_before=pivot.id)) == [mine[2].id, mine[1].id]


def test_the_last_page_of_the_window_never_says_older_ones_exist(number, live_secret):
    inside = make_message(number, "inside", ago=3500)
    make_message(number, SECRET_BODY, ago=3700)
    last = read(live_secret, starting_after=inside.id)
    assert ids(last) == [] and last.json()["has_more"] is False
    first = read(live_secret, limit=1)
    assert ids(first) == [inside.id] and first.json()["has_more"] is False


def test_a_cursor_read_through_history_is_refused_to_a_key_without_it(user, number, live_secret):
    history = make_api_key(user, scopes=["messages:read", "messages:history"])[1]
    old = make_message(number, SECRET_BODY, ago=7200)
    make_message(number, "older", ago=7300)
    assert len(ids(read(history, starting_after=old.id))) == 1
    for param in ("starting_after", "ending_before"):
        response = read(live_secret, **{param: old.id})
        assert_error(response, 400, "invalid_cursor", param=param)
        assert SECRET_BODY not in response.content.decode()


# --- The 60-minute window ------------------------------------------------------------------------------


@pytest.mark.parametrize("query", [{"created[gte]": "0"}, {"created[gte]": "1"}, {"created[lt]": "0"}])
def test_the_earliest_times_need_history(number, live_secret, query):
    make_message(number, SECRET_BODY, ago=7200)
    response = read(live_secret, **query)
    assert_error(response, 403, "insufficient_scope")
    assert SECRET_BODY not in response.content.decode()


def test_times_inside_the_window_and_in_the_future_read_only_the_window(number, live_secret):
    recent = make_message(number, "recent", ago=60)
    make_message(number, SECRET_BODY, ago=7200)
    now = int(time.time())
    assert ids(read(live_secret, **{"created[gte]": now - 3500})) == [recent.id]
    assert ids(read(live_secret, **{"created[lt]": now + 86400})) == [recent.id]
    assert ids(read(live_secret, **{"created[lt]": now - 3500})) == []
    assert ids(read(live_secret, **{"created[gte]": "99999999999"})) == []
    assert ids(read(live_secret, **{"created[gte]": now - 3500, "created[lt]": now - 3550})) == []


def test_history_alone_reads_nothing(user, number):
    only_history = make_api_key(user, scopes=["messages:history"])[1]
    message = make_message(number, SECRET_BODY)
    for path in ("/v1/messages", f"/v1/messages/{message.id}"):
        response = read(only_history, path)
        assert_error(response, 403, "insufficient_scope")
        assert 'scope="messages:read"' in response["WWW-Authenticate"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"window_minutes": 61},
        {"window_minutes": 0},
        {"window_minutes": -5},
        {"window_minutes": 60.5},
        {"window_minutes": "120"},
        {"window_minutes": True},
        {"since": 0},
        {"created[gte]": 0},
        {"starting_after": "msg_x"},
        {"limit": 11},
    ],
)
def test_the_tool_reaches_no_further_than_sixty_minutes_by_any_argument(settings, user, number, arguments):
    make_message(number, SECRET_BODY, ago=3700)
    response = tool(
        app_token(settings, user, ("messages:read", "messages:history")), {"number": number.id, **arguments}
    )
    assert response.json()["error"]["code"] == -32602
    assert SECRET_CODE not in response.content.decode()


def test_the_tools_longest_window_is_the_last_sixty_minutes_even_with_history(settings, user, number):
    recent = make_message(number, "recent", ago=59 * 60)
    make_message(number, SECRET_BODY, ago=61 * 60)
    token = app_token(settings, user, ("messages:read", "messages:history"))
    for minutes in (60, 60.0):
        content = tool_result(token, {"number": number.id, "window_minutes": minutes})["structuredContent"]
        assert [m["id"] for m in content["messages"]] == [recent.id]


# --- Codes and bodies where they should not be ---------------------------------------------------------


def test_a_read_failing_midway_leaks_no_body_or_code(monkeypatch, caplog, settings, user, number, live_secret):
    from apps.messages import reading

    message = make_message(number, SECRET_BODY)

    def audit_down(*args, **kwargs):
        raise RuntimeError("the audit table is unavailable")

    monkeypatch.setattr(reading, "audit_record_all", audit_down)
    caplog.set_level(logging.INFO)
    for path in ("/v1/messages", f"/v1/messages/{message.id}"):
        response = read(live_secret, path)
        assert_error(response, 500, "internal_error")
        assert SECRET_CODE not in response.content.decode()
    result = tool_result(app_token(settings, user), {"number": number.id})
    assert result["isError"] is True and SECRET_CODE not in json.dumps(result)
    assert caplog.records, "the failures are logged"
    logged = "\n".join(caplog.text.splitlines())
    assert SECRET_CODE not in logged and "Never share it" not in logged


def test_refusals_never_echo_a_body_or_a_code(user, number, live_secret):
    make_message(number, SECRET_BODY)
    test_number = make_sms_number(user, "+442071838770", livemode=False)
    test_key = make_api_key(user, scopes=["messages:read"], livemode=False)[1]
    too_long = SECRET_BODY + " " + "x" * 1600
    refusals = [
        read(live_secret, **{"from": f"<{SECRET_CODE}>"}),
        read(live_secret, number=SECRET_CODE),
        read(live_secret, starting_after=f"msg_{SECRET_CODE}"),
        read(live_secret, f"/v1/messages/msg_{SECRET_CODE}"),
        Client().post(
            "/v1/test_helpers/messages",
            {"number": test_number.id, "from": "+12025550150", "body": too_long},
            content_type="application/json",
            **auth(test_key),
        ),
    ]
    for response in refusals:
        assert 400 <= response.status_code < 500, response.content
        assert SECRET_CODE not in response.json()["error"]["message"]


def test_audit_rows_hold_numbers_and_counts_only(user, number, live_secret):
    make_message(number, SECRET_BODY)
    assert read(live_secret).status_code == 200
    rows = list(AuditEvent.objects.values_list("data", flat=True))
    assert rows and all(SECRET_CODE not in json.dumps(row) and "Bank" not in json.dumps(row) for row in rows)


def test_the_event_is_thin_and_hidden_from_a_credential_without_messages_read(user):
    test_number = make_sms_number(user, "+12025550180", livemode=False)
    _key, caller = key_caller(user)
    caller.post("/v1/test_helpers/messages", {"number": test_number.id, "from": "+12025550150", "body": SECRET_BODY})
    [event] = Event.objects.filter(type="message.received")
    assert set(event.data) == {"id", "object", "number", "created"}
    assert SECRET_CODE not in json.dumps(event.data)
    _key, manager = key_caller(user, scopes=["webhooks:manage"])
    assert manager.get("/v1/events").json()["data"] == []
    assert_error(manager.get(f"/v1/events/{event.id}"), 404, "not_found", param="event_id")


def test_the_reference_documents_only_the_example_code():
    from apps.messages.examples import BODY

    document = Client().get("/v1/openapi.json")
    if document.status_code != 200:
        pytest.skip("the OpenAPI document is served elsewhere")
    text = document.content.decode()
    assert detect_code(BODY).code in text
    assert SECRET_CODE not in text


# --- Budgets ------------------------------------------------------------------------------------------


def test_a_stranger_cannot_spend_our_numbers_budget(user, stranger, number, live_secret, settings):
    message = make_message(number)
    theirs = make_api_key(stranger, scopes=["messages:read", "messages:history"])[1]
    their_token = app_token(settings, stranger)
    for _ in range(12):
        assert read(theirs, number=number.id).status_code == 404
        assert read(theirs, number=MINE).status_code == 404
        assert read(theirs, f"/v1/messages/{message.id}").status_code == 404
    for _ in range(3):
        assert tool_result(their_token, {"number": number.id})["isError"] is True
    for _ in range(10):
        assert read(live_secret, number=number.id).status_code == 200


def test_our_budget_is_one_whatever_names_the_number(client, settings, user, number, live_secret):
    message = make_message(number)
    token = app_token(settings, user)
    doors = [
        lambda: read(live_secret, number=number.id),
        lambda: read(live_secret, number=MINE),
        lambda: client.get(f"/v1/messages?number=+{MINE[1:]}", **auth(live_secret)),
        lambda: read(live_secret),
        lambda: read(live_secret, f"/v1/messages/{message.id}"),
        lambda: tool(token, {"number": MINE}),
        lambda: tool(token, {}),
    ]
    for n in range(10):
        assert doors[n % len(doors)]().status_code == 200
    for door in doors:
        assert_error(door(), 429, "rate_limited")


def test_a_page_holding_two_numbers_spends_both(user, number, live_secret):
    other = make_sms_number(user, "+442071838751")
    make_message(number, "a")
    make_message(other, "b")
    for _ in range(10):
        assert read(live_secret).status_code == 200
    assert_error(read(live_secret, number=number.id), 429, "rate_limited")
    assert_error(read(live_secret, number=other.id), 429, "rate_limited")


# --- What a message's text makes of its stored fields ----------------------------------------------------


def test_an_origin_bound_line_naming_a_host_longer_than_a_host_name_is_no_site(user):
    """A host name is at most 253 characters (RFC 1035): a longer one names no site, so the stored
    domain (253 characters) never meets a longer value (PostgreSQL refused it: a 500 for the
    sender of such a text, and the message lost)."""
    test_number = make_sms_number(user, "+442071838770", livemode=False)
    test_key = make_api_key(user, scopes=["messages:read"], livemode=False)[1]
    host = ".".join(["a" * 60] * 5) + ".example"  # 312 characters, every label within 63
    # One line: the body's last line is the whole body (the guard refuses a newline in JSON text).
    response = Client().post(
        "/v1/test_helpers/messages",
        {"number": test_number.id, "from": "+12025550151", "body": f"@{host} #123456"},
        content_type="application/json",
        **auth(test_key),
    )
    assert response.status_code == 201, response.content
    assert response.json()["one_time_code"] is None
    # After a code word, the digits are still the code, without a site.
    assert detect_code(f"Your code is 654321.\n@{host} #123456") == detect_code("Your code is 654321.")
    longest = ".".join(["a" * 61] * 4) + ".b"  # 249 characters: still a host name
    assert detect_code(f"Hi\n@{longest} #123456").domain == longest
