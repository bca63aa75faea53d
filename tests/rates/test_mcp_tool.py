"""svc_get_rate (docs/design.md, Phase 2): its listing, its exact output (what GET /v1/rates says, plus display
strings and a spoken line), failures as isError results, and its scope."""

import json
from decimal import Decimal

import pytest

from tests.rates.factories import RateFactory, germany_on_the_deck
from tests.rates.shapes import RATE_FIELDS
from tests.support.mcp import McpClient
from tests.support.resources import listed_read_only_tool, successful_result, tool_result

pytestmark = pytest.mark.django_db

TOOL = "svc_get_rate"
OUTPUT = RATE_FIELDS | {"per_minute_display", "per_minute_min_display", "per_minute_max_display", "spoken"}


@pytest.fixture
def mcp(user, tokens):
    return McpClient(tokens.issue(user, scopes=frozenset({"rates:read"})))


def structured(mcp, destination) -> dict:
    result = successful_result(mcp, TOOL, {"destination": destination})
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    return result["structuredContent"]


def failure(mcp, destination) -> str:
    result = tool_result(mcp, TOOL, {"destination": destination})
    assert result["isError"] is True
    assert "structuredContent" not in result
    return result["content"][0]["text"]


def test_the_tool_is_listed_read_only_with_one_bounded_input(mcp):
    tool = listed_read_only_tool(mcp, TOOL, title="Get a call rate", scope="rates:read", output=OUTPUT)
    assert tool["inputSchema"] == {
        "type": "object",
        "properties": {
            "destination": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
                "description": "A phone number in E.164 format, or a country name or ISO 3166-1 alpha-2 code.",
            }
        },
        "required": ["destination"],
        "additionalProperties": False,
    }


def test_a_number(deck, mcp):
    assert structured(mcp, "+4915212345678") == {
        "object": "rate",
        "query": "+4915212345678",
        "to": "+4915212345678",
        "estimate": False,
        "country": "DE",
        "country_name": "Germany",
        "label": "Germany - Mobile",
        "prefix": "4915",
        "currency": "usd",
        "per_minute_amount_decimal": "4.5",
        "per_minute_min_amount_decimal": "4.5",
        "per_minute_max_amount_decimal": "4.5",
        "billing_increment": {"first_seconds": 60, "next_seconds": 60},
        "next_step": None,
        "livemode": True,
        "per_minute_display": "$0.045",
        "per_minute_min_display": "$0.045",
        "per_minute_max_display": "$0.045",
        "spoken": "Calls to +49 1521 2345678 (Germany - Mobile) cost $0.045 a minute, billed per full minute.",
    }


def test_a_country(deck, mcp):
    assert structured(mcp, "Allemagne") == {
        **germany_on_the_deck("Allemagne"),
        "per_minute_display": "$0.012 to $0.09",  # the range an assistant reads, never null
        "per_minute_min_display": "$0.012",
        "per_minute_max_display": "$0.09",
        "spoken": (
            "Calls to Germany cost $0.012 to $0.09 a minute depending on the number; "
            "tell me the full number for the exact rate."
        ),
    }


def test_a_country_of_one_price_shows_that_price(mcp):
    RateFactory(prefix="354", country="IS", label="Iceland", per_minute=Decimal("0.03"))
    RateFactory(prefix="3546", country="IS", label="Iceland - Mobile", per_minute=Decimal("0.03"))
    assert structured(mcp, "Iceland")["per_minute_display"] == "$0.03"


@pytest.mark.parametrize(
    ("destination", "spoken"),
    [
        ("+12125551234", "Calls to +1 212-555-1234 (United States) cost $0.013 a minute, billed per second."),
        (
            "+33612345678",
            "Calls to +33 6 12 34 56 78 (France - Mobile) cost $0.04 a minute, billed per full minute.",
        ),
        (
            "+33123456789",
            "Calls to +33 1 23 45 67 89 (France) cost $0.011 a minute, "
            "billed for the first 30 seconds, then per 6 seconds.",
        ),
        ("Jamaica", "Calls to Jamaica cost $0.15 a minute; tell me the full number for the exact rate."),
    ],
)
def test_the_spoken_line(deck, mcp, destination, spoken):
    assert structured(mcp, destination)["spoken"] == spoken


def test_the_tool_says_what_rest_says(deck, mcp, rates):
    for destination in ("+18765551234", "Perú", "FR"):
        rest = rates(destination).json()
        tool = structured(mcp, destination)
        assert {k: tool[k] for k in RATE_FIELDS} == rest


@pytest.mark.parametrize(
    ("destination", "says"),
    [
        ("Narnia", "neither a phone number in E.164 format"),
        ("4915112345678", "with + and the country code"),
        ("+49 1", "not a possible phone number"),
        ("   ", "A destination is required"),
        ("Korea", "North Korea (KP), South Korea (KR)"),
    ],
)
def test_a_bad_destination_is_an_is_error_sentence(deck, mcp, destination, says):
    assert says in failure(mcp, destination)


@pytest.mark.parametrize(("destination", "says"), [("+8613812345678", "+8613812345678"), ("Japan", "Japan")])
def test_no_rate_is_an_is_error_saying_so(deck, mcp, destination, says):
    message = failure(mcp, destination)
    assert message.startswith("There is no rate for") and says in message


@pytest.mark.parametrize("arguments", [{}, {"destination": ""}, {"destination": "x" * 101}, {"to": "DE"}])
def test_malformed_arguments_are_a_json_rpc_error(deck, mcp, arguments):
    response = mcp.request("tools/call", {"name": TOOL, "arguments": arguments})
    assert response.json()["error"]["code"] == -32602


def test_rates_read_alone_is_enough(deck, mcp):
    assert structured(mcp, "DE")["country"] == "DE"
