"""End to end: the official MCP SDK client quotes, places and ends a callback call on the simulator.

The person consents through the real OAuth flow and ticks ``calls:place`` on the consent
page (a sensitive scope starts unticked, and a self-registered app then needs the second,
sensitive confirmation: docs/spec.md 5.10). The call goes to +1 202 555 0104, the
simulator's number that "answers, stays until ended or max_duration", from the account's
own phone, which "answers in 2 s, presses 1 in 2 s" (docs/design.md, "The carrier
boundary"): ringing_you, then ringing at 4 s, in_progress at 9 s, until ended.

The server's clock stands still and the test moves it (tests/e2e/servers.py ``Clock``): a
read of a live simulated call applies the events already due, so no worker and no sleep.
"""

import pytest

from apps.credentials.scopes import SENSITIVE_SCOPES

from .assistant import Assistant, run

pytestmark = pytest.mark.e2e

DESTINATION = "+12025550104"  # answers, stays until ended or max_duration
PRESSES_1_AFTER = 4  # seconds: your phone answers in 2 s and you press 1 in 2 s
ANSWERS_AFTER = 5  # seconds after ringing


def test_quote_place_and_end_a_call_on_the_simulator(service):
    # The person turns "Ask me first" off on the consent page (tests/e2e/test_mcp_sdk_user_decides.py keeps it).
    assistant = Assistant(service, tick=["calls:place"], ask_first=False)

    async def scenario():
        seen = {}
        async with assistant.http() as http, assistant.session(http) as client:
            with service.clock.stopped() as clock:
                seen["quote"] = await client.call_tool("svc_quote_call", {"to": DESTINATION})
                quote_id = seen["quote"].structured_content["id"]
                seen["placed"] = await client.call_tool("svc_place_call", {"quote_id": quote_id})
                call_id = seen["placed"].structured_content["id"]
                seen["at_once"] = await client.call_tool("svc_get_call", {"call_id": call_id})
                clock.advance(PRESSES_1_AFTER)
                seen["pressed_1"] = await client.call_tool("svc_get_call", {"call_id": call_id})
                clock.advance(ANSWERS_AFTER)
                seen["answered"] = await client.call_tool("svc_get_call", {"call_id": call_id})
                clock.advance(60)  # this number stays on the line until the call is ended
                seen["talking"] = await client.call_tool("svc_get_call", {"call_id": call_id})
                seen["ended"] = await client.call_tool("svc_end_call", {"call_id": call_id})
                seen["after"] = await client.call_tool("svc_get_call", {"call_id": call_id})
                seen["again"] = await client.call_tool("svc_end_call", {"call_id": call_id})
                seen["second_place"] = await client.call_tool("svc_place_call", {"quote_id": quote_id})
        return seen

    seen = run(scenario)

    # The consent page offered calls:place unticked, as sensitive; the person ticked it and the
    # sensitive confirmation, and the token carries it beside the scopes the page started ticked.
    person = assistant.person
    offers = {offer["scope"]: offer for offer in person.consent["scopes"]}
    assert offers["calls:place"]["sensitive"] is True and offers["calls:place"]["ticked"] is False
    assert "calls:place" not in person.page_ticked and "calls:read" in person.page_ticked
    assert person.consent["confirmation_required"] is True and person.sensitive_confirmation is True
    granted = set(assistant.storage.tokens.scope.split())
    assert granted == {*person.page_ticked, "calls:place"}
    assert not granted & (SENSITIVE_SCOPES - {"calls:place"})

    for name, result in seen.items():
        assert result.is_error is (name == "second_place"), (name, result.content)

    quote = seen["quote"].structured_content
    assert quote["id"].startswith("quo_")
    assert quote["to"] == DESTINATION
    assert quote["caller_id"] == quote["your_number"]  # no caller ID asked for: the default, your phone
    assert quote["max_duration"] > 0 and quote["max_amount"] > 0
    # The spoken line: the price a minute, who rings first, what the callee sees, how to go on.
    spoken = quote["spoken"]
    assert quote["price_display"] in spoken
    assert "will ring first" in spoken
    assert spoken.endswith("Say yes to place it; the quote is valid 10 minutes.")

    placed = seen["placed"].structured_content
    call_id = placed["id"]
    assert call_id.startswith("call_")
    assert placed["status"] == "ringing_you"
    assert placed["spoken"].startswith("Your phone is ringing now; answer and press 1 to connect to")

    def status(name):
        call = seen[name].structured_content
        assert call["id"] == call_id
        return call["status"]

    # The simulator's table for this number, step by step as the clock moves.
    assert status("at_once") == "ringing_you"
    assert status("pressed_1") == "ringing"
    assert status("answered") == "in_progress"
    assert status("talking") == "in_progress"
    talking = seen["talking"].structured_content
    assert talking["duration"] == 60 and talking["amount"] > 0  # the cost so far, while live

    ended = seen["ended"].structured_content
    assert ended["id"] == call_id
    assert ended["status"] == "completed"
    assert ended["end_reason"] == "ended_by_request"
    assert ended["spoken"].startswith("The call is ended (completed); it cost $")

    after = seen["after"].structured_content
    assert after["status"] == "completed" and after["end_reason"] == "ended_by_request"
    assert after["duration"] == 60
    assert after["billed_duration"] == 60 and after["amount"] > 0
    transitions = after["status_transitions"]
    assert transitions["ringing_at"] - transitions["ringing_you_at"] == PRESSES_1_AFTER
    assert transitions["answered_at"] - transitions["ringing_at"] == ANSWERS_AFTER
    assert transitions["ended_at"] - transitions["answered_at"] == 60

    # Ending it again changes nothing; its quote cannot be placed a second time.
    again = seen["again"].structured_content
    assert again["status"] == "completed"
    assert again["spoken"] == "That call had already ended (completed)."
    assert call_id in seen["second_place"].content[0].text
