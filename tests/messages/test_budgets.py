"""Budgets (docs/design.md, Phase 3): "docs/spec.md 8.1 message reads plus 10/min per number, for REST and the tool
alike (the tool's refusal is the same HTTP 429 envelope, as docs/spec.md 7.4 puts 429 at the HTTP level)"."""

import pytest

from apps.ratelimit import budgets
from apps.ratelimit.testing import frozen_clock
from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import McpClient, install_fake_tokens

from .factories import make_message, make_sms_number

pytestmark = pytest.mark.django_db


def test_the_budgets_table_has_the_message_reads_and_the_number():
    assert (budgets.MESSAGES_PRINCIPAL.burst, budgets.MESSAGES_USER.burst, budgets.MESSAGES_NUMBER.burst) == (
        60,
        120,
        10,
    )
    assert budgets.CLASSES["messages"] == (budgets.MESSAGES_PRINCIPAL, budgets.MESSAGES_USER)
    assert budgets.CLASSES["messages.number"] == (budgets.MESSAGES_NUMBER,)


def test_ten_reads_a_minute_of_one_number_across_rest_and_the_tool(client, settings, user):
    number = make_sms_number(user)
    other = make_sms_number(user, "+442071838751")
    message = make_message(number)
    make_message(other)
    _key, secret = make_api_key(user, scopes=["messages:read"])
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"messages:read"})))
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    # The limiter's clock held still: a budget refills with time, however slow the machine.
    with frozen_clock():
        for n in range(10):
            if n % 3 == 0:
                response = mcp.request("tools/call", {"name": "svc_read_messages", "arguments": {"number": number.id}})
                assert response.json()["result"]["isError"] is False
            elif n % 3 == 1:
                response = client.get("/v1/messages", {"number": number.id}, **auth)
            else:
                response = client.get(f"/v1/messages/{message.id}", **auth)
            assert response.status_code == 200, (n, response.content)
        for refused in (
            client.get("/v1/messages", {"number": number.id}, **auth),
            client.get(f"/v1/messages/{message.id}", **auth),
            mcp.request("tools/call", {"name": "svc_read_messages", "arguments": {"number": number.id}}),
            # Unfiltered, the page holds a message of the spent number: refused too.
            client.get("/v1/messages", **auth),
        ):
            assert_error(refused, 429, "rate_limited", type_="rate_limit_error")
            assert int(refused["Retry-After"]) >= 1
        # Another number's budget is its own.
        assert client.get("/v1/messages", {"number": other.id}, **auth).status_code == 200


def test_message_reads_spend_the_message_reads_budget_not_the_reads_budget(client, user):
    make_sms_number(user)
    _key, secret = make_api_key(user, scopes=["messages:read"])
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    for n in range(3):
        response = client.get("/v1/messages", **auth)
        assert response["RateLimit"] == f"limit=60, remaining={59 - n}, reset=0"
    assert client.get("/v1/me", **auth)["RateLimit"].startswith("limit=60, remaining=59,")
    # A page holding a number's messages advertises the tightest budget: that number's ten.
    make_message(make_sms_number(user, "+442071838751"))
    assert client.get("/v1/messages", **auth)["RateLimit"] == "limit=10, remaining=9, reset=0"
