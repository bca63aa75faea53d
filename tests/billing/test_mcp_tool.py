"""svc_get_balance (docs/design.md, Phase 2): its listing, its exact output, and that it says what GET /v1/balance
says."""

import jsonschema
import pytest

from apps.billing.mcp_tools import spoken_balance
from apps.mcp_bridge import registry
from tests.billing.factories import append
from tests.support.factories import UserFactory, make_api_key
from tests.support.mcp import McpClient
from tests.support.resources import listed_read_only_tool, successful_result

pytestmark = pytest.mark.django_db

OUTPUT = {"amount", "currency", "amount_display", "low_balance", "billing_url", "spoken"}


@pytest.fixture
def mcp(user, tokens):
    return McpClient(tokens.issue(user, scopes=frozenset({"credits:read"})))


def call(mcp):
    return successful_result(mcp, "svc_get_balance")


def test_the_tool_is_listed_read_only_with_no_input(mcp):
    tool = listed_read_only_tool(
        mcp, "svc_get_balance", title="Get credit balance", scope="credits:read", output=OUTPUT
    )
    assert tool["inputSchema"] == {"type": "object", "properties": {}, "additionalProperties": False}


def test_credits_read_alone_is_enough(mcp):
    assert call(mcp)["structuredContent"]["amount"] == 0


def test_the_result(user, mcp):
    append(user, amount=1234)
    result = call(mcp)
    structured = result["structuredContent"]
    assert structured == {
        "amount": 1234,
        "currency": "usd",
        "amount_display": "$12.34",
        "low_balance": False,
        "billing_url": "http://testserver/billing",
        "spoken": "Your balance is 12.34 US dollars.",
    }
    jsonschema.validate(structured, registry.TOOLS["svc_get_balance"].output_schema)
    assert result["content"][0]["type"] == "text"


def test_a_low_balance_says_where_to_add_credit(user, mcp):
    append(user, amount=450)
    structured = call(mcp)["structuredContent"]
    assert structured["low_balance"] is True
    assert structured["amount_display"] == "$4.50"
    assert (
        structured["spoken"] == "Your balance is 4.50 US dollars. That is low: add credit at http://testserver/billing."
    )


def test_an_empty_account(mcp):
    structured = call(mcp)["structuredContent"]
    assert (structured["amount"], structured["amount_display"], structured["low_balance"]) == (0, "$0.00", True)


def test_a_balance_below_zero(user, mcp):
    append(user, amount=100)
    append(user, type="call", amount=-250)
    structured = call(mcp)["structuredContent"]
    assert structured["amount"] == -150
    assert structured["amount_display"] == "-$1.50"
    assert structured["spoken"].startswith("Your balance is 1.50 US dollars below zero.")


def test_the_tool_says_what_the_rest_view_says(user, mcp, client):
    append(user, amount=987)
    append(user, amount=55, livemode=False)
    structured = call(mcp)["structuredContent"]
    _key, secret = make_api_key(user, scopes=["credits:read"])
    rest = client.get("/v1/balance", HTTP_AUTHORIZATION=f"Bearer {secret}").json()
    assert {k: rest[k] for k in ("amount", "currency", "low_balance", "billing_url")} == {
        k: structured[k] for k in ("amount", "currency", "low_balance", "billing_url")
    }


def test_another_accounts_balance_is_not_the_callers(user, mcp):
    append(UserFactory(), amount=5000)
    assert call(mcp)["structuredContent"]["amount"] == 0


@pytest.mark.parametrize(
    ("amount", "low", "expected"),
    [
        (100, False, "Your balance is 1.00 US dollar."),
        (0, True, "Your balance is 0.00 US dollars. That is low: add credit at U."),
        (-1, True, "Your balance is 0.01 US dollars below zero. That is low: add credit at U."),
    ],
)
def test_spoken_lines(amount, low, expected):
    assert spoken_balance(amount=amount, currency="usd", low=low, url="U") == expected


def test_a_zero_digit_currency_is_spoken_and_shown_in_whole_units(user, mcp, settings):
    settings.SERVICE_CURRENCY = "jpy"
    append(user, amount=1500)
    structured = call(mcp)["structuredContent"]
    assert (structured["currency"], structured["amount_display"]) == ("jpy", "¥1,500")
    assert structured["spoken"] == "Your balance is 1500 Japanese yen."
