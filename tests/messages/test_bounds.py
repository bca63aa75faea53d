"""Message reads and the test helper cost what the shortest input costs: the statements' text is the
same for a filter's shortest form and its longest (docs/decisions/boundary.md, "For new endpoints"),
input past its bound is refused before any statement, and the tool quotes a number it was given
without the characters that reorder or hide text."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from apps.messages.models import MAX_BODY, Message
from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.sql import statement_texts

from .factories import make_message, make_sms_number

pytestmark = pytest.mark.django_db

# The shortest and longest possible numbers of one country (7 and 15 digits: E.164's most).
SHORT_NUMBER = "+4930123"
LONG_NUMBER = "+493012345678901"
LONGEST_SENDER = "+1234567890123456"  # "+" and 16: the filter's pattern
HIDING = "\u202e\u200b"  # a right-to-left override and a zero-width space


def cached_secret(user, scopes, *, livemode=True) -> str:
    """A key whose credential is cached (two reads: the user's epoch, then the entry)."""
    _key, secret = make_api_key(user, scopes=scopes, livemode=livemode)
    for _ in range(2):
        assert Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    return secret


@pytest.fixture
def numbers(user):
    short, long = make_sms_number(user, SHORT_NUMBER), make_sms_number(user, LONG_NUMBER)
    make_message(short, "Your code is 123456", sender="A")
    make_message(long, "Your code is 654321", sender=LONGEST_SENDER[:16])
    return short, long


@pytest.fixture
def secret(user, store, numbers):
    return cached_secret(user, ["messages:read", "messages:history"])


def listed(secret, **query):
    with statement_texts() as sent:
        response = Client().get("/v1/messages", query, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200, response.content
    return response, sent


def test_every_filter_in_its_longest_form_sends_the_statements_of_its_shortest(secret):
    shortest = {"number": SHORT_NUMBER, "from": "A", "created[gte]": "1", "created[lt]": "2"}
    longest = {"number": LONG_NUMBER, "from": LONGEST_SENDER, "created[gte]": "9" * 11, "created[lt]": "9" * 11}
    listed(secret, **shortest)
    _, sent_short = listed(secret, **shortest)
    _, sent_long = listed(secret, **longest)
    assert sent_short == sent_long


def test_a_number_as_a_short_or_long_e164_reads_its_messages_with_the_same_statements(secret):
    listed(secret, number=SHORT_NUMBER)
    short, sent_short = listed(secret, number=SHORT_NUMBER)
    long, sent_long = listed(secret, number=LONG_NUMBER)
    assert [m["to"] for m in short.json()["data"]] == [SHORT_NUMBER]
    assert [m["to"] for m in long.json()["data"]] == [LONG_NUMBER]
    assert sent_short == sent_long


@pytest.mark.parametrize(
    ("query", "status", "code", "param"),
    [
        ({"from": LONGEST_SENDER + "7"}, 400, "invalid_request", "from"),
        ({"from": "A" * 5000}, 400, "invalid_request", "from"),
        ({"created[gte]": "9" * 12}, 400, "invalid_request", "created[gte]"),
        ({"created[lt]": "1" * 5000}, 400, "invalid_request", "created[lt]"),
        ({"number": "+4930123456789012"}, 404, "not_found", "number"),
        ({"number": "num_" + "A" * 29}, 404, "not_found", "number"),
        ({"number": HIDING + "+" + "4" * 5000}, 404, "not_found", "number"),
    ],
)
def test_a_filter_past_its_bound_is_refused_before_any_statement(secret, query, status, code, param):
    with CaptureQueriesContext(connection) as captured:
        response = Client().get("/v1/messages", query, HTTP_AUTHORIZATION=f"Bearer {secret}")
    error = assert_error(response, status, code, param=param)
    assert not any(c in error["message"] for c in HIDING) and len(error["message"]) < 300
    assert captured.captured_queries == []


def test_a_message_id_of_any_allowed_length_sends_the_same_statements(secret):
    def read(message_id):
        with statement_texts() as sent:
            response = Client().get(f"/v1/messages/{message_id}", HTTP_AUTHORIZATION=f"Bearer {secret}")
        assert_error(response, 404, "not_found", param="message_id")
        return sent

    read("msg_A")
    assert read("msg_A") == read("msg_" + "A" * 28)
    with CaptureQueriesContext(connection) as captured:
        read("msg_" + "A" * 29)
    assert captured.captured_queries == []


class TestHelper:
    @pytest.fixture
    def deliver(self, user, store):
        make_sms_number(user, SHORT_NUMBER, livemode=False)
        make_sms_number(user, LONG_NUMBER, livemode=False)
        secret = cached_secret(user, ["messages:read"], livemode=False)

        def deliver(**body):
            with statement_texts() as sent:
                response = Client().post(
                    "/v1/test_helpers/messages",
                    body,
                    content_type="application/json",
                    HTTP_AUTHORIZATION=f"Bearer {secret}",
                )
            return response, sent

        return deliver

    def test_the_longest_message_sends_the_statements_of_the_shortest(self, deliver):
        deliver(number=SHORT_NUMBER, **{"from": "A"}, body="x")
        short, sent_short = deliver(number=SHORT_NUMBER, **{"from": "A"}, body="x")
        long, sent_long = deliver(number=LONG_NUMBER, **{"from": LONGEST_SENDER[:16]}, body="y" * MAX_BODY)
        assert short.status_code == long.status_code == 201, long.content
        assert long.json()["body"] == "y" * MAX_BODY and long.json()["from"] == LONGEST_SENDER[:16]
        assert sent_short == sent_long

    @pytest.mark.parametrize(
        ("body", "param"),
        [
            ({"number": SHORT_NUMBER, "from": "A", "body": "x" * (MAX_BODY + 1)}, "body"),
            ({"number": SHORT_NUMBER, "from": "A" * 5000, "body": "x"}, "from"),
            # One character more than a sender is stored with: the pattern's longest form, refused
            # before the INSERT that a 16-character column would refuse.
            ({"number": SHORT_NUMBER, "from": LONGEST_SENDER, "body": "x"}, "from"),
            ({"number": SHORT_NUMBER, "from": "A" * 17, "body": "x"}, "from"),
        ],
    )
    def test_a_field_past_its_bound_is_refused_before_any_statement(self, deliver, body, param):
        response, sent = deliver(**body)
        assert_error(response, 400, "invalid_request", param=param)
        assert sent == []
        assert Message.objects.count() == 0


def test_sim_sms_refuses_a_sender_longer_than_a_stored_one(user):
    make_sms_number(user, SHORT_NUMBER)
    with pytest.raises(CommandError):
        call_command(
            "sim_sms", "--email", user.email, "--number", SHORT_NUMBER, "--from", LONGEST_SENDER, "--body", "hi",
            stdout=StringIO(),
        )  # fmt: skip
    assert not Message.objects.exists()


class TestTool:
    @pytest.fixture
    def mcp(self, settings, user, numbers):
        return McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"messages:read"})))

    def read(self, mcp, **arguments):
        with statement_texts() as sent:
            response = mcp.request("tools/call", {"name": "svc_read_messages", "arguments": arguments})
        return response.json()["result"], sent

    def test_a_sender_in_its_longest_form_sends_the_statements_of_its_shortest(self, mcp):
        self.read(mcp, number=SHORT_NUMBER, **{"from": "Z"})
        short, sent_short = self.read(mcp, number=SHORT_NUMBER, **{"from": "Z"})
        long, sent_long = self.read(mcp, number=LONG_NUMBER, **{"from": "+" + "Z" * 16})
        assert short["isError"] is False and long["isError"] is False
        assert short["structuredContent"]["messages"] == long["structuredContent"]["messages"] == []
        assert sent_short == sent_long

    def test_a_number_not_the_users_is_quoted_without_hiding_characters(self, mcp):
        asked = HIDING + "+44 20 7183 8751" + HIDING
        result, _ = self.read(mcp, number=asked)
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert text.startswith("+44 20 7183 8751 is not one of the user's numbers")
        assert not any(c in text for c in HIDING)
