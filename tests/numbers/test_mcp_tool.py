"""svc_list_numbers (docs/design.md, Phase 2): no input; output `numbers` (id, number, country, type,
capabilities, messages_opt_in), `caller_ids`, `spoken`; the same numbers GET /v1/numbers lists."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.numbers.models import Number
from tests.support.factories import UserFactory, make_api_key
from tests.support.mcp import McpClient
from tests.support.resources import listed_read_only_tool, structured_content

from .factories import make_caller_id, make_number

pytestmark = pytest.mark.django_db

TOOL = "svc_list_numbers"
OUTPUT = {"numbers", "caller_ids", "has_more", "spoken"}


@pytest.fixture
def mcp(user, tokens):
    return McpClient(tokens.issue(user, scopes=frozenset({"numbers:read"})))


def call(mcp, arguments=None):
    response = mcp.request("tools/call", {"name": TOOL, "arguments": arguments or {}})
    assert response.status_code == 200, response.content
    return response.json()


def result_of(mcp) -> dict:
    structured = structured_content(mcp, TOOL)
    assert set(structured) == OUTPUT
    return structured


def test_the_tool_is_listed_read_only_with_no_input(mcp):
    tool = listed_read_only_tool(mcp, TOOL, title="List numbers and caller IDs", scope="numbers:read", output=OUTPUT)
    assert tool["inputSchema"] == {"type": "object", "properties": {}, "additionalProperties": False}


def test_numbers_read_alone_is_enough(user, mcp):
    make_number(user)
    assert [n["number"] for n in result_of(mcp)["numbers"]] == ["+442071838750"]


def test_the_result(user, mcp):
    start = timezone.now() - timedelta(days=3)
    london = make_number(user, "+442071838750", type="local", sms=True, created=start)
    berlin = make_number(user, "+4915123456789", type="mobile", sms=False, created=start + timedelta(hours=1))
    Number.objects.filter(pk=berlin.pk).update(messages_opt_in=True)
    make_number(user, "+18005550100", type="toll_free", status="canceled")  # not active: not listed
    default = make_caller_id(user, "+14155550100", default=True, created=start)
    other = make_caller_id(user, "+34612345678", created=start + timedelta(hours=2))
    structured = result_of(mcp)
    assert structured == {
        "numbers": [
            {
                "id": berlin.id,
                "number": "+4915123456789",
                "country": "DE",
                "type": "mobile",
                "capabilities": {"voice": True, "sms": False},
                "messages_opt_in": True,
            },
            {
                "id": london.id,
                "number": "+442071838750",
                "country": "GB",
                "type": "local",
                "capabilities": {"voice": True, "sms": True},
                "messages_opt_in": False,
            },
        ],
        "caller_ids": [
            {"id": default.id, "number": "+14155550100", "country": "US", "default": True},
            {"id": other.id, "number": "+34612345678", "country": "ES", "default": False},
        ],
        "has_more": False,
        "spoken": (
            "You have 2 active numbers: +49 1512 3456789 (Germany, mobile, voice only, message reading on) and "
            "+44 20 7183 8750 (United Kingdom, local, voice and SMS, message reading off). "
            "Your default caller ID is +1 415-555-0100, and you have 1 more verified."
        ),
    }


def test_an_empty_account(mcp):
    assert result_of(mcp) == {
        "numbers": [],
        "caller_ids": [],
        "has_more": False,
        "spoken": "You have no active virtual number. You have no verified caller ID.",
    }


def test_caller_ids_without_a_default(user, mcp):
    make_number(user, "+442071838750")
    make_caller_id(user, "+14155550100")
    spoken = result_of(mcp)["spoken"]
    assert spoken.endswith("You have 1 verified caller ID and no default.")
    assert spoken.startswith("You have 1 active number: +44 20 7183 8750 (United Kingdom, local, voice only, ")


def test_an_arguments_object_with_anything_in_it_is_a_json_rpc_error(mcp):
    assert call(mcp, {"country": "GB"})["error"]["code"] == -32602


def test_the_tool_says_what_the_rest_lists_say(user, mcp, client):
    for n in range(3):
        make_number(user, f"+44207183875{n}", created=timezone.now() - timedelta(minutes=n))
    make_caller_id(user, default=True)
    _key, secret = make_api_key(user, scopes=["numbers:read"])
    rest = client.get("/v1/numbers", HTTP_AUTHORIZATION=f"Bearer {secret}").json()["data"]
    keys = ("id", "number", "country", "type", "capabilities", "messages_opt_in")
    structured = result_of(mcp)
    assert structured["numbers"] == [{k: n[k] for k in keys} for n in rest]
    rest_cids = client.get("/v1/caller_ids", HTTP_AUTHORIZATION=f"Bearer {secret}").json()["data"]
    assert structured["caller_ids"] == [{k: c[k] for k in ("id", "number", "country", "default")} for c in rest_cids]


def test_only_the_callers_live_rows(user, mcp):
    make_number(UserFactory(), "+442071838751")
    make_caller_id(UserFactory(), default=True)
    make_number(user, "+442071838752", livemode=False)
    make_caller_id(user, livemode=False, default=True)
    mine = make_number(user, "+442071838753")
    structured = result_of(mcp)
    assert [n["id"] for n in structured["numbers"]] == [mine.id]
    assert structured["caller_ids"] == []


def test_an_account_with_very_many_numbers_gets_the_newest_20_and_has_more(user, mcp):
    start = timezone.now() - timedelta(days=1)
    made = [make_number(user, f"+4420794600{n:02d}", created=start + timedelta(seconds=n)) for n in range(21)]
    structured = result_of(mcp)
    assert [n["id"] for n in structured["numbers"]] == [n.id for n in reversed(made)][:20]
    assert structured["has_more"] is True
    assert structured["spoken"].startswith("You have at least 20 active numbers: ")
    assert structured["spoken"].count("+44") == 5 and ") and 15 more." in structured["spoken"]
    body = call(mcp)
    assert len(body["result"]["content"][0]["text"].encode()) < 12_000
