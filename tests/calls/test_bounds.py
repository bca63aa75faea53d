"""Quoting, placing and ending a callback cost what the shortest input costs: the statements' text is
the same for the shortest value a field takes and for its longest (docs/decisions/boundary.md, "For
new endpoints"), and a value past its bound is refused before any statement."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.calls.models import Quote
from tests.calls.callbacks import Placer, ready
from tests.support.credentials import cached_key_secret
from tests.support.envelope import assert_error
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.sql import statement_texts

pytestmark = pytest.mark.django_db

# The shortest and the longest possible numbers of one country (5 and 15 digits: E.164's most).
SHORTEST = "+49301"
LONGEST = "+493012345678901"
LONGEST_ID_BODY = "A" * 64


@pytest.fixture
def placer(owner, store):
    ready(owner)
    placer = Placer(owner, secret=cached_key_secret(owner, ["calls:place", "calls:read"]))
    assert placer.quote(SHORTEST).status_code == 201  # the key and the compiled statements, once
    return placer


def quote_statements(placer, to) -> list[str]:
    with statement_texts() as sent:
        response = placer.quote(to)
    assert response.status_code == 201, response.content
    assert response.json()["to"] == to and response.json()["label"] == "Germany"
    return sent


def test_a_quote_to_the_longest_number_is_the_statements_of_the_shortest(placer):
    shortest, longest = quote_statements(placer, SHORTEST), quote_statements(placer, LONGEST)
    assert shortest == longest  # the digits' count is in the values, never in the IN list


def test_the_tool_quotes_the_longest_number_with_the_statements_of_the_shortest(owner, settings, placer):
    mcp = McpClient(install_fake_tokens(settings).issue(owner, scopes=frozenset({"calls:place"})))

    def quoted(to):
        with statement_texts() as sent:
            result = mcp.request("tools/call", {"name": "svc_quote_call", "arguments": {"to": to}}).json()["result"]
        assert result["isError"] is False, result
        return sent

    quoted(SHORTEST)
    assert quoted(SHORTEST) == quoted(LONGEST)


@pytest.mark.parametrize("to", ["+4930123456789012", "+49" + "1" * 5000, "ct_" + "A" * 65])
def test_a_destination_past_its_bound_is_refused_before_any_statement(placer, to):
    with CaptureQueriesContext(connection) as captured:
        response = placer.quote(to)
    if to.startswith("ct_"):
        assert_error(response, 404, "not_found", param="to")
    else:
        error = assert_error(response, 400, "invalid_request", param="to")
        assert to not in error["message"]
    assert captured.captured_queries == []
    assert Quote.objects.count() == 1


@pytest.mark.parametrize(
    ("action", "prefix", "param"),
    [(Placer.place, "quo_", "quote"), (Placer.end, "call_", "call_id")],
    ids=["place", "end"],
)
def test_an_id_of_any_allowed_length_sends_the_same_statements(placer, action, prefix, param):
    """Placing a quote and ending a call: the id's length changes no statement."""

    def sent_for(object_id):
        with statement_texts() as sent:
            response = action(placer, object_id)
        assert_error(response, 404, "not_found", param=param)
        return sent

    sent_for(prefix + "A")
    assert sent_for(prefix + "A") == sent_for(prefix + LONGEST_ID_BODY)


def test_a_quote_id_past_its_bound_is_refused_before_any_statement(placer):
    placer.place("quo_A")  # the idempotency store's statements, once
    with CaptureQueriesContext(connection) as captured:
        response = placer.place("quo_" + LONGEST_ID_BODY + "A")
    assert_error(response, 404, "not_found", param="quote")
    assert not [q for q in captured.captured_queries if "calls_quote" in q["sql"]]


def test_the_end_tool_sends_the_same_statements_for_any_allowed_call_id(owner, settings, placer):
    mcp = McpClient(install_fake_tokens(settings).issue(owner, scopes=frozenset({"calls:place"})))

    def ended(call_id):
        with statement_texts() as sent:
            result = mcp.request("tools/call", {"name": "svc_end_call", "arguments": {"call_id": call_id}})
        assert result.json()["result"]["isError"] is True
        return sent

    ended("call_A")
    assert ended("call_A") == ended("call_" + LONGEST_ID_BODY)
