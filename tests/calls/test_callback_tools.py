"""svc_quote_call, svc_place_call, svc_end_call over /mcp; the scope matrix of the three endpoints and
three tools; the quote and placement budgets (docs/spec.md 8.1)."""

import jsonschema
import pytest

from apps.calls.models import Call
from apps.credentials.scopes import ALL_SCOPES
from apps.mcp_bridge import registry
from apps.mcp_bridge.protocol import INSTRUCTIONS
from apps.ratelimit.testing import frozen_clock as limiter_clock_stopped
from tests.calls.callbacks import CALLEE, Placer, ready
from tests.support.envelope import assert_error
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.scopes import challenge

pytestmark = pytest.mark.django_db

TOOLS = ("svc_quote_call", "svc_place_call", "svc_end_call")


@pytest.fixture
def tokens(settings):
    return install_fake_tokens(settings)


@pytest.fixture
def mcp_for(tokens, owner):
    def make(scopes=("calls:place",), **overrides):
        return McpClient(tokens.issue(owner, scopes=frozenset(scopes), **overrides))

    return make


@pytest.fixture
def mcp(mcp_for, owner, clock):
    ready(owner)
    return mcp_for()


def tool(mcp, name, arguments):
    response = mcp.request("tools/call", {"name": name, "arguments": arguments})
    assert response.status_code == 200, response.content
    return response.json()["result"]


def ok(mcp, name, arguments):
    result = tool(mcp, name, arguments)
    assert result["isError"] is False, result
    jsonschema.validate(result["structuredContent"], registry.TOOLS[name].output_schema)
    return result["structuredContent"]


def test_annotations_are_designs():
    quote, place, end = (registry.TOOLS[name] for name in TOOLS)
    assert (quote.read_only, quote.destructive, quote.idempotent, quote.open_world) == (False, False, False, False)
    assert (place.read_only, place.destructive, place.idempotent, place.open_world) == (False, False, False, True)
    assert (end.read_only, end.destructive, end.idempotent, end.open_world) == (False, True, True, True)
    assert {quote.scope, place.scope, end.scope} == {"calls:place"}


def test_the_instructions_say_when_to_place(mcp):
    assert "only after the user agreed to the quoted price" in INSTRUCTIONS
    assert "press 1" in INSTRUCTIONS


def test_quote_place_end(mcp, owner, clock):
    quote = ok(mcp, "svc_quote_call", {"to": CALLEE})
    assert quote["id"].startswith("quo_") and quote["price_display"] == "$0.06"
    assert "your phone +1 415-555-0123 will ring first" in quote["spoken"]
    assert "Say yes to place it; the quote is valid 10 minutes." in quote["spoken"]
    placed = ok(mcp, "svc_place_call", {"quote_id": quote["id"]})
    assert placed["status"] == "ringing_you"
    assert "press 1" in placed["spoken"]
    # The quote id is the idempotency key: a retry places nothing and names the call.
    again = tool(mcp, "svc_place_call", {"quote_id": quote["id"]})
    assert again["isError"] is True and placed["id"] in again["content"][0]["text"]
    assert Call.objects.count() == 1
    clock.tick(20)  # in progress since +9
    ended = ok(mcp, "svc_end_call", {"call_id": placed["id"]})
    assert ended["status"] == "completed" and ended["end_reason"] == "ended_by_request"
    assert "$0.06" in ended["spoken"]
    again = ok(mcp, "svc_end_call", {"call_id": placed["id"]})
    assert {**again, "spoken": ""} == {**ended, "spoken": ""} and "already ended" in again["spoken"]


def test_refusals_are_error_results(mcp, stranger):
    assert tool(mcp, "svc_quote_call", {"to": "+12025550105"})["isError"] is True
    assert "no call" in tool(mcp, "svc_end_call", {"call_id": "call_nosuch"})["content"][0]["text"]
    assert tool(mcp, "svc_place_call", {"quote_id": "quo_nosuch"})["isError"] is True


# --- the scope matrix: three endpoints, three tools ----------------------------------------------


@pytest.mark.parametrize("scope", ALL_SCOPES)
def test_endpoints_need_calls_place(owner, scope, clock):
    ready(owner)
    quote = Placer(owner).quote().json()
    call = Placer(owner).place(quote["id"]).json()
    other = Placer(owner, scopes=[scope])
    answers = [other.quote(), other.place(quote["id"]), other.end(call["id"])]
    for response in answers:
        if scope == "calls:place":
            assert response.status_code != 403, response.content
        else:
            assert_error(response, 403, "insufficient_scope", type_="permission_error")
            assert response["WWW-Authenticate"] == challenge("calls:place", "v1")


@pytest.mark.parametrize("scope", ALL_SCOPES)
@pytest.mark.parametrize("name", TOOLS)
def test_tools_need_calls_place(mcp_for, owner, clock, scope, name):
    ready(owner)
    arguments = {
        "svc_quote_call": {"to": CALLEE},
        "svc_place_call": {"quote_id": "quo_x"},
        "svc_end_call": {"call_id": "call_x"},
    }
    response = mcp_for([scope]).request("tools/call", {"name": name, "arguments": arguments[name]})
    if scope == "calls:place":
        assert response.status_code == 200
    else:
        assert_error(response, 403, "insufficient_scope")
        assert response["WWW-Authenticate"].startswith('Bearer error="insufficient_scope", scope="calls:place"')


# --- budgets -------------------------------------------------------------------------------------


def test_quotes_are_20_a_minute_rest_and_tool_alike(mcp, owner):
    placer = Placer(owner)
    # The limiter's clock stands still: a slow machine must not refill the budget mid-test.
    with limiter_clock_stopped():
        for _ in range(10):
            assert placer.quote().status_code == 201
            assert ok(mcp, "svc_quote_call", {"to": CALLEE})
        # The user's 20 a minute are spent across both; the tool's refusal is the HTTP 429 envelope.
        assert_error(placer.quote(), 429, "rate_limited", type_="rate_limit_error")
        limited = mcp.request("tools/call", {"name": "svc_quote_call", "arguments": {"to": CALLEE}})
        assert_error(limited, 429, "rate_limited", type_="rate_limit_error")
    assert int(limited["Retry-After"]) >= 1


def test_placements_are_10_a_minute(owner, clock):
    ready(owner)
    placer = Placer(owner)
    for _ in range(10):
        response = placer.place("quo_nosuch")
        assert response.status_code == 404
    assert_error(placer.place("quo_nosuch"), 429, "rate_limited")


def test_place_and_end_return_the_call_as_svc_get_call_does(mcp_for, owner, clock):
    # One shape of one thing: the call flat, display fields included, plus what the tool says of it.
    ready(owner)
    mcp = mcp_for(("calls:place", "calls:read"))
    quote = ok(mcp, "svc_quote_call", {"to": CALLEE})
    placed = ok(mcp, "svc_place_call", {"quote_id": quote["id"]})
    got = ok(mcp, "svc_get_call", {"call_id": placed["id"]})
    assert set(placed) == set(got)
    assert {k: v for k, v in placed.items() if k != "spoken"} == {k: v for k, v in got.items() if k != "spoken"}
    assert placed["per_minute_display"] == "$0.06" and placed["amount_display"] is None
    clock.tick(20)
    ended = ok(mcp, "svc_end_call", {"call_id": placed["id"]})
    after = ok(mcp, "svc_get_call", {"call_id": placed["id"]})
    assert {k: v for k, v in ended.items() if k != "spoken"} == {k: v for k, v in after.items() if k != "spoken"}
    assert ended["amount_display"] == "$0.06"
