"""SQL statements per messages answer on a cached credential, pinned (docs/design.md, "Messages (receive-only
inbox)": a message list costs at most 3 statements). Writes count like reads: the audit row is one of them.

The credential costs none. A list is its page (both sharing switches read in the same statement) and the
audit rows of what it read, written in one statement however many numbers the page holds; a cursor's
position is one statement more, except beside a named number, whose statement reads it too; so a list
with ``number`` and a cursor is still three.
"""

import pytest
from django.test import Client

from apps.audit.models import AuditEvent, EventType
from apps.messages.models import Message
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.mcp import McpClient, install_fake_tokens

from .factories import make_message, make_sms_number

pytestmark = pytest.mark.django_db

SECOND = "+442071838751"


@pytest.fixture
def rows(user):
    """Six messages, alternating between two shared numbers, oldest first."""
    numbers = [make_sms_number(user), make_sms_number(user, SECOND)]
    return [make_message(numbers[n % 2], f"m{n}", ago=600 - n) for n in range(6)]


def named(rows, query: dict) -> dict:
    """The query with its placeholders filled in: an int is that row's id, NUMBER/E164 row 0's number."""
    values = {"NUMBER": rows[0].number_id, "E164": rows[0].to_number}
    return {
        key: rows[value].id if isinstance(value, int) and key != "limit" else values.get(value, value)
        for key, value in query.items()
    }


def listed(secret, query, django_assert_num_queries, statements):
    with django_assert_num_queries(statements):
        response = Client().get("/v1/messages", query, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200, response.content
    return [message["id"] for message in response.json()["data"]]


@pytest.mark.parametrize(
    ("query", "statements"),
    [
        ({}, 2),  # a page of two numbers: the page, one audit statement
        ({"limit": 100}, 2),
        ({"from": "+447700900123"}, 2),
        ({"from": "+447700900123", "starting_after": 3}, 3),
        ({"number": "NUMBER"}, 3),
        ({"number": "E164"}, 3),
        ({"number": "NUMBER", "starting_after": 4}, 3),
        ({"number": "NUMBER", "starting_after": 3}, 3),  # a cursor of the other number marks a position too
        ({"number": "E164", "ending_before": 0}, 3),
        ({"number": "NUMBER", "from": "+447700900123", "starting_after": 4}, 3),
        ({"starting_after": 3}, 3),
        ({"ending_before": 1}, 3),
    ],
)
def test_a_message_list_is_at_most_three_statements(rows, cached_secret, django_assert_num_queries, query, statements):
    listed(cached_secret, named(rows, query), django_assert_num_queries, statements)
    assert statements <= 3


def test_a_list_with_a_number_and_a_cursor_pages_as_before(rows, cached_secret, django_assert_num_queries):
    first_number = [m.id for m in reversed(rows) if m.number_id == rows[0].number_id]  # newest first
    query = {"number": rows[0].number_id, "starting_after": rows[4].id}
    assert listed(cached_secret, query, django_assert_num_queries, 3) == first_number[1:]
    # A cursor of the other number: this number's messages older than it.
    query = {"number": rows[0].to_number, "starting_after": rows[3].id}
    assert listed(cached_secret, query, django_assert_num_queries, 3) == [rows[2].id, rows[0].id]
    query = {"number": rows[0].number_id, "ending_before": rows[1].id, "limit": 1}
    assert listed(cached_secret, query, django_assert_num_queries, 3) == [rows[2].id]


def test_one_audit_statement_still_records_each_number_read(rows, cached_secret, django_assert_num_queries):
    listed(cached_secret, {}, django_assert_num_queries, 2)
    events = AuditEvent.objects.filter(event_type=EventType.MESSAGES_READ)
    assert sorted(event.data["number"] for event in events) == sorted({m.to_number for m in rows})
    assert {event.data["count"] for event in events} == {3}


def test_a_cursor_beside_a_number_is_still_one_the_caller_can_read_now(user, rows, cached_secret):
    number = Message.objects.get(pk=rows[0].id).number
    theirs = make_message(make_sms_number(UserFactory(), "+442071838760"), ago=5)
    hidden = make_message(make_sms_number(user, "+442071838761", shared=False), "hidden", ago=5)
    old = make_message(number, "old", ago=4000)
    test_mode = make_message(make_sms_number(user, "+442071838770", livemode=False))
    for cursor in (theirs.id, hidden.id, old.id, test_mode.id, "msg_madeup", "call_x", rows[0].id + "x"):
        for param in ("starting_after", "ending_before"):
            for value in (number.id, number.number):
                response = Client().get(
                    "/v1/messages", {"number": value, param: cursor}, HTTP_AUTHORIZATION=f"Bearer {cached_secret}"
                )
                assert_error(response, 400, "invalid_cursor", param=param)
    # A number's refusals come before the cursor's, as before.
    response = Client().get(
        "/v1/messages",
        {"number": hidden.number_id, "starting_after": "msg_madeup"},
        HTTP_AUTHORIZATION=f"Bearer {cached_secret}",
    )
    assert_error(response, 403, "number_not_opted_in", param="number")


def test_a_message_by_id_is_two_statements(rows, cached_secret, django_assert_num_queries):
    with django_assert_num_queries(2):  # the message with its number and the account's switch; the audit row
        response = Client().get(f"/v1/messages/{rows[2].id}", HTTP_AUTHORIZATION=f"Bearer {cached_secret}")
    assert response.status_code == 200


@pytest.mark.parametrize("by", ["id", "e164", "the only one shared"])
def test_the_tool_is_three_statements(user, settings, django_assert_num_queries, by):
    number = make_sms_number(user)
    for n in range(6):
        make_message(number, f"m{n}", ago=600 - n)
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"messages:read"})))
    arguments = {"window_minutes": 60, **({"id": {"number": number.id}, "e164": {"number": number.number}}.get(by, {}))}
    with django_assert_num_queries(3):  # the number (or the opted-in numbers), the page, the audit row
        response = mcp.request("tools/call", {"name": "svc_read_messages", "arguments": arguments})
    assert len(response.json()["result"]["structuredContent"]["messages"]) == 5
