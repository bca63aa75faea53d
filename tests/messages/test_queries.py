"""SQL statements per messages answer on a cached credential, pinned: the credential costs none; a list
is its page (both switches read in the same statement) and the audit row of what it read, plus the
named number when there is one, plus a cursor's row when there is one."""

import pytest
from django.test import Client

from tests.support.credentials import cached_key_secret
from tests.support.mcp import McpClient, install_fake_tokens

from .factories import make_message, make_sms_number

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(user):
    number = make_sms_number(user)
    return [make_message(number, f"m{n}", ago=600 - n) for n in range(6)]


@pytest.fixture
def cached_secret(store, user):
    return cached_key_secret(user, ["messages:read"])


@pytest.mark.parametrize(
    ("query", "statements"),
    [
        ({}, 2),
        ({"limit": 100}, 2),
        ({"from": "+447700900123"}, 2),
        ({"number": "NUMBER"}, 3),
        ({"number": "+442071838750"}, 3),
        ({"starting_after": 3}, 3),
        ({"ending_before": 1}, 3),
    ],
)
def test_a_message_list_is_at_most_three_statements(rows, cached_secret, django_assert_num_queries, query, statements):
    query = {
        k: (rows[v].id if isinstance(v, int) and k != "limit" else rows[0].number_id if v == "NUMBER" else v)
        for k, v in query.items()
    }
    with django_assert_num_queries(statements):
        response = Client().get("/v1/messages", query, HTTP_AUTHORIZATION=f"Bearer {cached_secret}")
    assert response.status_code == 200, response.content
    assert statements <= 3


def test_a_message_by_id_is_two_statements(rows, cached_secret, django_assert_num_queries):
    with django_assert_num_queries(2):  # the message with its number and the account's switch; the audit row
        response = Client().get(f"/v1/messages/{rows[2].id}", HTTP_AUTHORIZATION=f"Bearer {cached_secret}")
    assert response.status_code == 200


def test_the_tool_is_three_statements(rows, user, settings, django_assert_num_queries):
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"messages:read"})))
    with django_assert_num_queries(3):  # the opted-in numbers, the page, the audit row
        response = mcp.request("tools/call", {"name": "svc_read_messages", "arguments": {"window_minutes": 60}})
    assert len(response.json()["result"]["structuredContent"]["messages"]) == 5
