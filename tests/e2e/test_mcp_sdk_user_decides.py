"""End to end with the official MCP SDK client: a self-registered app asks first, and the person
confirms each call on the service's own page, signed in (docs/decisions/user-decides.md).

- At 2025-11-25 (the SDK's handshake, ``mode="legacy"``) a client with an elicitation callback
  declares URL elicitation; placing answers error -32042 with the page's URL, the person opens it
  and presses Confirm, and the assistant places the quote again.
- At 2026-07-28 (``mode="auto"`` negotiates it) the same client gets an input_required result; the
  SDK calls its elicitation callback (which opens the page and presses Confirm) and retries by itself.
- A client that declares no elicitation gets an isError result with the link, in either era.

Each call is ended at once: one live callback at a time per account.
"""

import re

import pytest
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import URL_ELICITATION_REQUIRED, ElicitResult

from .assistant import Assistant, run

pytestmark = pytest.mark.e2e

LINK = re.compile(r"http://127\.0\.0\.1:\d+/confirm/\S+[^\s.]")


def consented_to_ask_first(assistant):
    person = assistant.person
    assert person.consent["rules"]["ask_first"] is True  # self-registered: on by default
    assert person.page_ask_first is True and "calls:place" in assistant.storage.tokens.scope.split()


def test_2025_11_25_error_32042_then_the_person_confirms_on_the_page(service):
    async def elicit(context, params):  # declares URL elicitation; never called at this version
        raise AssertionError("no elicitation request is sent at 2025-11-25")

    assistant = Assistant(service, mode="legacy", tick=["calls:place"], elicitation=elicit)

    async def scenario():
        async with assistant.http() as http, assistant.session(http) as client:
            quote = await client.call_tool("svc_quote_call", {"to": "+12025550100"})
            quote_id = quote.structured_content["id"]
            with pytest.raises(MCPError) as refused:
                await client.call_tool("svc_place_call", {"quote_id": quote_id})
            assert refused.value.code == URL_ELICITATION_REQUIRED
            (elicitation,) = UrlElicitationRequiredError.from_error(refused.value.error).elicitations
            page = await assistant.person.confirm(elicitation.url)
            placed = await client.call_tool("svc_place_call", {"quote_id": quote_id})
            ended = await client.call_tool("svc_end_call", {"call_id": placed.structured_content["id"]})
            return quote, elicitation, page, placed, ended

    quote, elicitation, page, placed, ended = run(scenario)
    consented_to_ask_first(assistant)
    assert client_version(assistant) == "2025-11-25"
    assert "of today's spending allowance is left" in quote.structured_content["spoken"]
    assert LINK.fullmatch(elicitation.url) and elicitation.mode == "url" and elicitation.elicitation_id
    assert "You confirmed this." in page
    assert placed.is_error is False and placed.structured_content["status"] == "ringing_you"
    assert ended.is_error is False


def test_2026_07_28_input_required_the_sdk_asks_the_person_and_retries(service):
    asked = []

    async def elicit(context, params):
        asked.append(params)
        assert params.mode == "url" and LINK.fullmatch(params.url)
        page = await assistant.person.confirm(params.url)
        assert "You confirmed this." in page
        return ElicitResult(action="accept")

    assistant = Assistant(service, mode="auto", tick=["calls:place"], elicitation=elicit)

    async def scenario():
        async with assistant.http() as http, assistant.session(http) as client:
            quote = await client.call_tool("svc_quote_call", {"to": "+12025550102"})
            placed = await client.call_tool("svc_place_call", {"quote_id": quote.structured_content["id"]})
            ended = await client.call_tool("svc_end_call", {"call_id": placed.structured_content["id"]})
            return placed, ended

    placed, ended = run(scenario)
    consented_to_ask_first(assistant)
    assert client_version(assistant) == "2026-07-28"
    assert len(asked) == 1
    assert placed.is_error is False and placed.structured_content["status"] == "ringing_you"
    assert ended.is_error is False
    # Two tools/call of svc_place_call reached the server: the request and the SDK's retry.
    assert [method for method, _status in assistant.rpc].count("tools/call") == 4


@pytest.mark.parametrize(("mode", "to"), [("legacy", "+12025550101"), ("auto", "+12025550104")])
def test_a_client_without_elicitation_gets_the_link(service, mode, to):
    assistant = Assistant(service, mode=mode, tick=["calls:place"])

    async def scenario():
        async with assistant.http() as http, assistant.session(http) as client:
            quote = await client.call_tool("svc_quote_call", {"to": to})
            quote_id = quote.structured_content["id"]
            refused = await client.call_tool("svc_place_call", {"quote_id": quote_id})
            (link,) = set(LINK.findall(refused.content[0].text))
            await assistant.person.confirm(link)
            placed = await client.call_tool("svc_place_call", {"quote_id": quote_id})
            ended = await client.call_tool("svc_end_call", {"call_id": placed.structured_content["id"]})
            return refused, placed, ended

    refused, placed, ended = run(scenario)
    consented_to_ask_first(assistant)
    assert refused.is_error is True
    assert "spoken: I need your yes on the service's own page first." in refused.content[0].text
    assert placed.is_error is False and placed.structured_content["status"] == "ringing_you"
    assert ended.is_error is False


def client_version(assistant) -> str:
    methods = [method for method, _status in assistant.rpc]
    return "2026-07-28" if "server/discover" in methods and "initialize" not in methods else "2025-11-25"
