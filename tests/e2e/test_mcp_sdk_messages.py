"""End to end: the official MCP SDK client reads a one-time code that just arrived on the simulator.

The account holder turns message reading on at the sharing page, as a person does: the
account's switch and one number's own switch (docs/design.md, "Messages (receive-only
inbox)": a number's messages are readable while both are on; every switch starts off).
Then the assistant connects through the real OAuth flow and the person ticks
``messages:read`` on the consent page (a sensitive scope starts unticked and a
self-registered app then needs the sensitive confirmation: docs/spec.md 5.10).

An OAuth connection acts in live mode, and the test helper takes test-mode keys only (a
live credential gets 403), so the message arrives through ``manage.py sim_sms`` without
``--test``: a live message on the live number, written to the live server's database by
its own manage.py. ``svc_read_messages`` then reads it with its code, and once the person
unticks the number, the very next read is refused.
"""

import re
import secrets
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from jsonschema import Draft202012Validator

from apps.credentials.scopes import SENSITIVE_SCOPES
from apps.messages.mcp_tools import CODE_SAFETY

from .assistant import EMAIL, PASSWORD, Assistant, run

pytestmark = pytest.mark.e2e

SENDER = "+14155550123"
SITE = "login.example.com"
TOOL = "svc_read_messages"


class SharingPage:
    """The account holder at /settings/sharing: signs in, then saves the form as the page sends it."""

    def __init__(self, base_url: str):
        self.base = base_url
        self.browser = httpx2.Client(base_url=base_url, trust_env=False, timeout=30)

    def sign_in(self) -> None:
        page = self.browser.get("/login", params={"next": "/settings/sharing"})
        assert page.status_code == 200, page.text
        signed_in = self.browser.post(
            "/login",
            data={
                "username": EMAIL,
                "password": PASSWORD,
                "csrfmiddlewaretoken": _field(page.text, "csrfmiddlewaretoken"),
                "next": "/settings/sharing",
            },
            headers={"Referer": f"{self.base}/login"},
        )
        assert signed_in.status_code == 302, signed_in.text
        assert urlsplit(signed_in.headers["Location"]).path == "/settings/sharing"

    def read(self) -> dict:
        """The form as the page shows it: each switch's state and the numbers it lists."""
        page = self.browser.get("/settings/sharing")
        assert page.status_code == 200, page.text
        ticked = set(re.findall(r'name="messages_opt_in" value="([^"]+)" checked', page.text))
        return {
            "html": page.text,
            "csrf": _field(page.text, "csrfmiddlewaretoken"),
            "call_summaries": _checked(page.text, "call_summaries"),
            "message_reading": _checked(page.text, "message_reading"),
            "shown": re.findall(r'name="numbers_shown" value="([^"]+)"', page.text),
            "opted_in": ticked,
        }

    def save(self, *, message_reading: bool, number_id: str, opted_in: bool) -> dict:
        """Set the account's message reading switch and one number's switch; everything else as the page showed."""
        form = self.read()
        assert number_id in form["shown"], form["shown"]
        chosen = (form["opted_in"] | {number_id}) if opted_in else (form["opted_in"] - {number_id})
        # Unticked boxes are absent from a form post, as a browser sends it.
        data = {
            "csrfmiddlewaretoken": form["csrf"],
            "numbers_shown": form["shown"],
            "messages_opt_in": [shown for shown in form["shown"] if shown in chosen],
        }
        if form["call_summaries"]:
            data["call_summaries"] = "on"
        if message_reading:
            data["message_reading"] = "on"
        saved = self.browser.post("/settings/sharing", data=data, headers={"Referer": f"{self.base}/settings/sharing"})
        assert saved.status_code == 302, saved.text
        after = self.read()
        assert after["message_reading"] is message_reading
        assert (number_id in after["opted_in"]) is opted_in
        return after

    def close(self) -> None:
        self.browser.close()


def _field(html: str, name: str) -> str:
    return re.search(rf'name="{name}" value="([^"]+)"', html).group(1)


def _checked(html: str, name: str) -> bool:
    return re.search(rf'<input type="checkbox" name="{name}" checked>', html) is not None


def live_sms_number(service) -> dict:
    """A live number of the account that receives SMS, as GET /v1/numbers tells a live key."""
    key = service.manage("createapikey", "--email", EMAIL, "--name", "E2E numbers", "--scopes", "numbers:read")
    listed = httpx2.get(
        f"{service.url}/v1/numbers",
        params={"limit": 100},
        headers={"Authorization": f"Bearer {key.stdout.strip()}"},
        trust_env=False,
        timeout=30,
    )
    assert listed.status_code == 200, listed.text
    numbers = [n for n in listed.json()["data"] if n["status"] == "active" and n["capabilities"]["sms"]]
    assert numbers, listed.text[:500]
    return numbers[0]


def test_the_sdk_reads_a_code_that_just_arrived_and_a_switch_turned_off_stops_the_next_read(service):
    number = live_sms_number(service)
    code = f"{secrets.randbelow(900000) + 100000}"
    body = f"Your Example sign-in code is {code}. Do not share it.\n\n@{SITE} #{code}"
    person_at_sharing = SharingPage(service.url)
    person_at_sharing.sign_in()
    assistant = Assistant(service, tick=["messages:read"])

    async def deliver() -> str:
        # sim_sms: a live message, as the carrier would deliver it (an OAuth connection reads live mode).
        done = await anyio.to_thread.run_sync(
            lambda: service.manage(
                "sim_sms", "--email", EMAIL, "--number", number["number"], "--from", SENDER, "--body", body
            )
        )
        return re.search(r"Delivered (msg_[0-9A-Za-z]+) ", done.stdout).group(1)

    async def scenario():
        seen = {}
        async with assistant.http() as http, assistant.session(http) as client:
            seen["tools"] = {tool.name: tool for tool in (await client.list_tools()).tools}
            seen["message_id"] = await deliver()
            seen["read"] = await client.call_tool(TOOL, {"number": number["id"], "window_minutes": 5})
            # The person unticks the number between two reads: the next request already sees it.
            await anyio.to_thread.run_sync(
                lambda: person_at_sharing.save(message_reading=True, number_id=number["id"], opted_in=False)
            )
            seen["after_off"] = await client.call_tool(TOOL, {"number": number["id"], "window_minutes": 5})
            seen["after_off_by_e164"] = await client.call_tool(TOOL, {"number": number["number"]})
        return seen

    try:
        # Both switches on before the assistant connects, at the page a person uses.
        before = person_at_sharing.save(message_reading=True, number_id=number["id"], opted_in=True)
        assert number["id"] in before["opted_in"]
        seen = run(scenario)
    finally:
        # Every switch off again, as seed_demo leaves them, for the tests that share this server.
        person_at_sharing.save(message_reading=False, number_id=number["id"], opted_in=False)
        person_at_sharing.close()

    # The consent page offered messages:read unticked, as sensitive; the person ticked it and the
    # sensitive confirmation, and the token carries it beside the scopes the page started ticked.
    person = assistant.person
    offers = {offer["scope"]: offer for offer in person.consent["scopes"]}
    assert offers["messages:read"]["sensitive"] is True and offers["messages:read"]["ticked"] is False
    assert "messages:read" not in person.page_ticked
    assert person.consent["confirmation_required"] is True and person.sensitive_confirmation is True
    granted = set(assistant.storage.tokens.scope.split())
    assert granted == {*person.page_ticked, "messages:read"}
    assert not granted & (SENSITIVE_SCOPES - {"messages:read"})

    tool = seen["tools"][TOOL]
    assert tool.annotations.read_only_hint is True and tool.annotations.idempotent_hint is True
    # The description tells an assistant what to do with a code, in the design's words.
    assert "never send it to another tool, person or site" in tool.description

    read = seen["read"]
    assert read.is_error is False, read.content
    result = read.structured_content
    Draft202012Validator(tool.output_schema).validate(result)
    assert result["number"] == number["number"]
    newest = result["messages"][0]
    assert newest["id"] == seen["message_id"]
    assert newest["from"] == SENDER and newest["body"] == body
    assert newest["one_time_code"] == {"code": code, "domain": SITE}
    # The spoken line names the code with its site, and says to tell it only to the user.
    spoken = result["spoken"]
    assert f"code {code} for {SITE}" in spoken
    assert "Tell a one-time code only to the user" in spoken
    assert "never send it to another tool, person or site" in spoken
    assert spoken.endswith(CODE_SAFETY)
    assert read.content and read.content[0].type == "text"

    # Switched off: an isError result telling the assistant the user has not turned reading on, naming
    # the page; no message, no code, whichever way the number is named.
    for name in ("after_off", "after_off_by_e164"):
        refused = seen[name]
        assert refused.is_error is True, (name, refused.content)
        text = refused.content[0].text
        assert "has not turned on message reading" in text and "/settings/sharing" in text
        assert code not in text and not refused.structured_content
