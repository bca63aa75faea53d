"""GET /v1/calls and GET /v1/calls/{id} (docs/design.md, Phase 2): shapes, filters, pagination, ids, modes."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.calls.models import Call
from apps.core.timefmt import unix_seconds
from tests.calls.factories import CallFactory, TranscriptFactory, live_call, unanswered_call
from tests.calls.shapes import CALL_FIELDS
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


def ids(response):
    assert response.status_code == 200, response.content
    return [c["id"] for c in response.json()["data"]]


# --- shapes ---------------------------------------------------------------------------------


def test_a_completed_call_has_the_designed_fields_and_the_billing_rules_amount(caller, owner):
    call = CallFactory(user=owner, duration=88, contact_id="ct_abc")
    transcript = TranscriptFactory(call=call)
    response = caller.get(f"/v1/calls/{call.id}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == CALL_FIELDS
    assert body == {
        "id": call.id,
        "object": "call",
        "direction": "outbound",
        "status": "completed",
        "from": "+14155550100",
        "to": "+4915112345678",
        "to_country": "DE",
        "contact": "ct_abc",
        "created": unix_seconds(call.created),
        "answered_at": unix_seconds(call.answered_at),
        "ended_at": unix_seconds(call.ended_at),
        "duration": 88,
        "billed_duration": 120,  # 60 + one started block of 60
        "per_minute_amount_decimal": "4.5",
        "billing_increment": {"first_seconds": 60, "next_seconds": 60},
        "amount": 9,  # 120 s at 4.5 cents a minute
        "currency": "usd",
        "transcript": transcript.id,
        "livemode": True,
        # Not a callback call: no quote, no numbers of the callback, not recorded.
        "quote": None,
        "your_number": None,
        "caller_id": None,
        "record": False,
        "max_duration": None,
        "end_reason": None,
        "status_transitions": {
            "ringing_you_at": None,
            "ringing_at": None,
            "answered_at": unix_seconds(call.answered_at),
            "ended_at": unix_seconds(call.ended_at),
        },
    }
    assert response["Cache-Control"] == "no-store"
    assert response["Request-Id"].startswith("req_")


def test_the_list_is_the_phase_1_list_newest_first(caller, owner):
    older = CallFactory(user=owner)
    newer = CallFactory(user=owner, created=older.created + timedelta(minutes=5))
    response = caller.get("/v1/calls")
    body = response.json()
    assert set(body) == {"object", "data", "has_more", "url"}
    assert body["object"] == "list"
    assert body["url"] == "/v1/calls"
    assert body["has_more"] is False
    assert [c["id"] for c in body["data"]] == [newer.id, older.id]
    assert all(set(c) == CALL_FIELDS for c in body["data"])


def test_a_call_without_contact_or_transcript_has_nulls(caller, owner):
    call = CallFactory(user=owner, to_country="")
    body = caller.get(f"/v1/calls/{call.id}").json()
    assert body["contact"] is None
    assert body["transcript"] is None
    assert body["to_country"] is None


def test_a_live_call_shows_its_cost_so_far(caller, owner):
    call = live_call(user=owner, talked=125)
    body = caller.get(f"/v1/calls/{call.id}").json()
    assert body["status"] == "in_progress"
    assert body["ended_at"] is None
    # 125 s (or 126 if the clock ticked): billed 180 s, 13.5 cents -> 14.
    assert body["duration"] in (125, 126)
    assert body["billed_duration"] == 180
    assert body["amount"] == 14


@pytest.mark.parametrize("status", ["queued", "ringing_you", "ringing", "busy", "no_answer", "failed", "canceled"])
def test_a_call_never_answered_has_no_amount(caller, owner, status):
    call = unanswered_call(status, user=owner)
    body = caller.get(f"/v1/calls/{call.id}").json()
    assert body["status"] == status
    assert body["answered_at"] is None
    assert body["duration"] == 0
    assert body["billed_duration"] == 0
    assert body["amount"] is None


def test_an_inbound_call_and_a_sub_cent_rate(caller, owner):
    call = CallFactory(
        user=owner,
        direction="inbound",
        from_number="+442071838750",
        to_number="+14155550100",
        to_country="US",
        per_minute_amount_decimal="0.35",
        first_seconds=30,
        next_seconds=6,
        duration=100,
    )
    body = caller.get(f"/v1/calls/{call.id}").json()
    assert (body["direction"], body["from"], body["to"]) == ("inbound", "+442071838750", "+14155550100")
    assert body["per_minute_amount_decimal"] == "0.35"
    assert body["billing_increment"] == {"first_seconds": 30, "next_seconds": 6}
    assert body["billed_duration"] == 102
    assert body["amount"] == 1  # 0.595 -> 1


# --- filters --------------------------------------------------------------------------------


def test_filters_by_direction_and_status(caller, owner):
    out_done = CallFactory(user=owner, direction="outbound", status="completed")
    in_done = CallFactory(user=owner, direction="inbound", status="completed")
    out_busy = unanswered_call("busy", user=owner, direction="outbound")
    assert set(ids(caller.get("/v1/calls", {"direction": "inbound"}))) == {in_done.id}
    assert set(ids(caller.get("/v1/calls", {"direction": "outbound"}))) == {out_done.id, out_busy.id}
    assert set(ids(caller.get("/v1/calls", {"status": "busy"}))) == {out_busy.id}
    assert set(ids(caller.get("/v1/calls", {"status": "completed", "direction": "outbound"}))) == {out_done.id}
    assert ids(caller.get("/v1/calls", {"status": "in_progress"})) == []


@pytest.mark.parametrize(
    ("param", "value"),
    [("direction", "sideways"), ("direction", ""), ("status", "done"), ("status", "IN_PROGRESS"), ("status", "")],
)
def test_an_unknown_filter_value_is_400_naming_the_param(caller, param, value):
    error = assert_error(caller.get("/v1/calls", {param: value}), 400, "invalid_request", param=param)
    assert param in error["message"]


# --- pagination -----------------------------------------------------------------------------


@pytest.fixture
def five(owner):
    base = timezone.now() - timedelta(days=2)
    # Newest first: five[0] is the newest. Two share a creation second, ordered by id.
    calls = [CallFactory(user=owner, created=base - timedelta(minutes=n)) for n in range(5)]
    return sorted(calls, key=lambda c: (c.created, c.id), reverse=True)


def test_pages_forward_with_starting_after(caller, five):
    first = caller.get("/v1/calls", {"limit": 2}).json()
    assert [c["id"] for c in first["data"]] == [five[0].id, five[1].id]
    assert first["has_more"] is True
    second = caller.get("/v1/calls", {"limit": 2, "starting_after": five[1].id}).json()
    assert [c["id"] for c in second["data"]] == [five[2].id, five[3].id]
    assert second["has_more"] is True
    last = caller.get("/v1/calls", {"limit": 2, "starting_after": five[3].id}).json()
    assert [c["id"] for c in last["data"]] == [five[4].id]
    assert last["has_more"] is False


def test_pages_back_with_ending_before(caller, five):
    page = caller.get("/v1/calls", {"limit": 2, "ending_before": five[4].id}).json()
    assert [c["id"] for c in page["data"]] == [five[2].id, five[3].id]
    assert page["has_more"] is True
    page = caller.get("/v1/calls", {"limit": 2, "ending_before": five[2].id}).json()
    assert [c["id"] for c in page["data"]] == [five[0].id, five[1].id]
    assert page["has_more"] is False


def test_calls_created_in_the_same_second_page_by_id(caller, owner):
    moment = timezone.now() - timedelta(days=3)
    same = sorted((CallFactory(user=owner, created=moment) for _ in range(3)), key=lambda c: c.id, reverse=True)
    walked, after = [], None
    for _ in range(3):
        params = {"limit": 1, **({"starting_after": after} if after else {})}
        (after,) = ids(caller.get("/v1/calls", params))
        walked.append(after)
    assert walked == [c.id for c in same]


def test_a_cursor_with_a_filter_pages_within_the_filter(caller, owner):
    inbound = [CallFactory(user=owner, direction="inbound") for _ in range(3)]
    CallFactory(user=owner, direction="outbound")
    inbound.sort(key=lambda c: (c.created, c.id), reverse=True)
    page = caller.get("/v1/calls", {"direction": "inbound", "limit": 1, "starting_after": inbound[0].id}).json()
    assert [c["id"] for c in page["data"]] == [inbound[1].id]
    assert page["has_more"] is True


def test_a_cursor_the_filter_leaves_out_still_marks_a_position(caller, owner):
    base = timezone.now() - timedelta(days=4)
    newest_in = CallFactory(user=owner, direction="inbound", created=base)
    middle_out = CallFactory(user=owner, direction="outbound", created=base - timedelta(minutes=1))
    oldest_in = CallFactory(user=owner, direction="inbound", created=base - timedelta(minutes=2))
    after = caller.get("/v1/calls", {"direction": "inbound", "starting_after": middle_out.id})
    assert ids(after) == [oldest_in.id]
    before = caller.get("/v1/calls", {"direction": "inbound", "ending_before": middle_out.id})
    assert ids(before) == [newest_in.id]


def test_both_cursors_are_refused(caller, five):
    response = caller.get("/v1/calls", {"starting_after": five[0].id, "ending_before": five[1].id})
    assert_error(response, 400, "invalid_cursor", param="ending_before")


@pytest.mark.parametrize("cursor", ["nope", "key_abc", "call_", "call_abc!", "ct_abc", "call_doesnotexist"])
def test_a_cursor_that_is_not_one_of_the_lists_calls_is_400(caller, five, cursor):
    assert_error(caller.get("/v1/calls", {"starting_after": cursor}), 400, "invalid_cursor", param="starting_after")
    assert_error(caller.get("/v1/calls", {"ending_before": cursor}), 400, "invalid_cursor", param="ending_before")


def test_another_accounts_call_as_cursor_is_400(caller, stranger):
    theirs = CallFactory(user=stranger)
    response = caller.get("/v1/calls", {"starting_after": theirs.id})
    assert_error(response, 400, "invalid_cursor", param="starting_after")


def test_the_other_modes_call_as_cursor_is_400(caller, owner):
    test_call = CallFactory(user=owner, livemode=False)
    assert_error(caller.get("/v1/calls", {"ending_before": test_call.id}), 400, "invalid_cursor", param="ending_before")


@pytest.mark.parametrize("limit", ["0", "101", "ten", "-1"])
def test_limit_is_checked(caller, limit):
    assert_error(caller.get("/v1/calls", {"limit": limit}), 400, "invalid_limit", param="limit")


def test_limit_defaults_to_10_and_goes_to_100(caller, owner):
    CallFactory.create_batch(12, user=owner)
    assert len(ids(caller.get("/v1/calls"))) == 10
    assert len(ids(caller.get("/v1/calls", {"limit": 100}))) == 12


# --- ids, accounts and modes ----------------------------------------------------------------


@pytest.mark.parametrize("call_id", ["call_doesnotexist", "call_", "nope", "trs_abc", "call_" + "a" * 65])
def test_an_unknown_or_malformed_id_is_404(caller, call_id):
    response = caller.get(f"/v1/calls/{call_id}")
    assert_error(response, 404, "not_found", param="call_id")


def test_a_malformed_id_never_reaches_the_database(caller, django_assert_num_queries):
    caller.get("/v1/me")  # the key's lookup and last-use stamp, done before counting
    with django_assert_num_queries(1):  # the key's lookup only (not cached here)
        response = caller.get("/v1/calls/call_bad!id")
    assert response.status_code == 404


def test_another_accounts_call_is_404_and_absent_from_the_list(caller, owner, stranger):
    theirs = CallFactory(user=stranger)
    mine = CallFactory(user=owner)
    assert_error(caller.get(f"/v1/calls/{theirs.id}"), 404, "not_found", param="call_id")
    assert ids(caller.get("/v1/calls")) == [mine.id]


def test_a_test_key_sees_only_test_calls(caller_for, owner):
    live = CallFactory(user=owner, livemode=True)
    test = CallFactory(user=owner, livemode=False)
    test_caller = caller_for(["calls:read"], livemode=False)
    live_caller = caller_for(["calls:read"], livemode=True)
    assert ids(test_caller.get("/v1/calls")) == [test.id]
    assert test_caller.get(f"/v1/calls/{test.id}").json()["livemode"] is False
    assert_error(test_caller.get(f"/v1/calls/{live.id}"), 404, "not_found", param="call_id")
    assert ids(live_caller.get("/v1/calls")) == [live.id]
    assert_error(live_caller.get(f"/v1/calls/{test.id}"), 404, "not_found", param="call_id")


def test_no_call_is_written_by_reading(caller, owner):
    call = live_call(user=owner)
    before = list(Call.objects.values())
    caller.get("/v1/calls")
    caller.get(f"/v1/calls/{call.id}")
    assert list(Call.objects.values()) == before


# --- scopes ---------------------------------------------------------------------------------

CHALLENGE = (
    'Bearer error="insufficient_scope", scope="calls:read", '
    'resource_metadata="http://testserver/.well-known/oauth-protected-resource/v1"'
)


@pytest.mark.parametrize("scopes", [["rates:read"], ["contacts:read", "transcripts:read"], ["credits:read"]])
def test_both_endpoints_need_calls_read(caller_for, owner, scopes):
    call = CallFactory(user=owner)
    without = caller_for(scopes)
    for path in ("/v1/calls", f"/v1/calls/{call.id}"):
        response = without.get(path)
        assert_error(response, 403, "insufficient_scope", type_="permission_error")
        assert response["WWW-Authenticate"] == CHALLENGE


def test_calls_read_alone_is_enough(caller_for, owner):
    call = CallFactory(user=owner, contact_id="ct_abc")
    only = caller_for(["calls:read"])
    assert ids(only.get("/v1/calls")) == [call.id]
    body = only.get(f"/v1/calls/{call.id}").json()
    # Without contacts:read the call still lists: the contact is an id, no name anywhere.
    assert body["contact"] == "ct_abc"


def test_an_oauth_token_for_v1_reads_calls(settings, owner):
    from django.test import Client

    from tests.support.mcp import install_fake_tokens

    tokens = install_fake_tokens(settings)
    call = CallFactory(user=owner)
    token = tokens.issue(owner, scopes=frozenset({"calls:read"}), resource=f"{settings.BASE_URL}/v1")
    response = Client().get("/v1/calls", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert ids(response) == [call.id]


def test_no_credential_is_401(db):
    from django.test import Client

    response = Client().get("/v1/calls")
    assert_error(response, 401, "invalid_token")
