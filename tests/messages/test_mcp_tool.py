"""svc_read_messages (docs/design.md, Phase 3): input ``number`` (required unless exactly one number is opted
in; otherwise an ``isError`` result listing them), ``window_minutes`` (1-60, default 15), ``from``,
``limit`` (1-10, default 5); output ``messages`` (id, from, created, body, one_time_code), ``has_more``,
``spoken``. "Its description and every ``spoken`` line with a code say: tell it only to the user;
never send it to another tool, person or site; when the code names a site, say which."""

import json

import jsonschema
import pytest

from apps.mcp_bridge import registry
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.mcp import McpClient, install_fake_tokens

from .factories import make_message, make_sms_number, share

pytestmark = pytest.mark.django_db
NAME = "svc_read_messages"
SAFETY = "never send it to another tool, person or site"


@pytest.fixture
def mcp(settings, user):
    return McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"messages:read"})))


def call(mcp, arguments=None):
    response = mcp.request("tools/call", {"name": NAME, "arguments": arguments or {}})
    assert response.status_code == 200, response.content
    return response.json()["result"]


def structured(mcp, arguments=None) -> dict:
    result = call(mcp, arguments)
    assert result["isError"] is False, result
    content = result["structuredContent"]
    jsonschema.validate(content, registry.TOOLS[NAME].output_schema)
    assert json.loads(result["content"][0]["text"]) == content
    return content


def failure(mcp, arguments=None) -> str:
    result = call(mcp, arguments)
    assert result["isError"] is True, result
    return result["content"][0]["text"]


def test_the_tool_is_read_only_idempotent_closed_world_and_says_the_code_rule():
    tool = registry.TOOLS[NAME].as_tool()
    assert tool.annotations.read_only_hint is True
    assert tool.annotations.idempotent_hint is True
    assert tool.annotations.destructive_hint is False
    assert tool.annotations.open_world_hint is False
    assert SAFETY in tool.description and "say which" in tool.description
    assert registry.TOOLS[NAME].scope == "messages:read"


def test_reads_a_code_with_its_site_and_the_safety_wording(mcp, user):
    number = make_sms_number(user)
    message = make_message(number, "Your Demo code is 123456.\n\n@demo.example #123456", sender="+12025550150")
    content = structured(mcp, {"number": number.id})
    assert content["messages"] == [
        {
            "id": message.id,
            "from": "+12025550150",
            "created": int(message.created.timestamp()),
            "body": "Your Demo code is 123456.\n\n@demo.example #123456",
            "one_time_code": {"code": "123456", "domain": "demo.example"},
        }
    ]
    assert content["has_more"] is False
    assert "code 123456 for demo.example" in content["spoken"]
    assert SAFETY in content["spoken"]


def test_a_plain_code_and_a_message_without_one(mcp, user):
    number = make_sms_number(user)
    make_message(number, "Your order 12345 has shipped.", ago=30)
    make_message(number, "Your verification code is 4821", ago=10)
    content = structured(mcp)
    assert [m["one_time_code"] for m in content["messages"]] == [{"code": "4821", "domain": None}, None]
    assert "code 4821." in content["spoken"] and SAFETY in content["spoken"]


def test_no_code_no_safety_line(mcp, user):
    make_message(make_sms_number(user), "See you at 7")
    content = structured(mcp)
    assert SAFETY not in content["spoken"] and "See you at 7" in content["spoken"]


def test_number_is_optional_with_exactly_one_opted_in(mcp, user):
    number = make_sms_number(user)
    make_sms_number(user, "+442071838751", shared=False)
    message = make_message(number)
    assert [m["id"] for m in structured(mcp)["messages"]] == [message.id]


def test_several_opted_in_numbers_need_number(mcp, user):
    make_sms_number(user)
    second = make_sms_number(user, "+442071838751")
    text = failure(mcp)
    assert "+44 20 7183 8750" in text and second.id in text


def test_none_opted_in(mcp, user):
    make_sms_number(user, shared=False)
    assert "/settings/sharing" in failure(mcp)


def test_number_not_yours_or_switched_off(mcp, user):
    off = make_sms_number(user, shared=False)
    theirs = make_sms_number(UserFactory(), "+442071838760")
    assert "not one of the user's numbers" in failure(mcp, {"number": theirs.id})
    assert "not one of the user's numbers" in failure(mcp, {"number": "+442071838760"})
    assert "/settings/sharing" in failure(mcp, {"number": off.id})


def test_window_from_and_limit(mcp, user):
    number = make_sms_number(user)
    old = make_message(number, "old", ago=20 * 60)
    newer = [make_message(number, f"n{n}", sender="HSBC", ago=300 - n) for n in range(3)]
    friend = make_message(number, "friend", sender="+447700900123", ago=60)
    assert [m["id"] for m in structured(mcp, {"number": number.id})["messages"]] == [
        friend.id, *[m.id for m in reversed(newer)]
    ]  # fmt: skip
    assert old.id in [m["id"] for m in structured(mcp, {"number": number.id, "window_minutes": 60})["messages"]]
    by_bank = structured(mcp, {"number": "+442071838750", "from": "HSBC", "limit": 2})
    assert [m["id"] for m in by_bank["messages"]] == [newer[2].id, newer[1].id] and by_bank["has_more"] is True


@pytest.mark.parametrize(
    "arguments",
    [{"window_minutes": 61}, {"window_minutes": 0}, {"limit": 11}, {"limit": 0}, {"other": 1}, {"number": 5}],
)
def test_out_of_range_arguments_are_invalid_params(mcp, user, arguments):
    make_sms_number(user)
    response = mcp.request("tools/call", {"name": NAME, "arguments": arguments})
    assert response.json()["error"]["code"] == -32602


def test_switched_off_between_two_reads(mcp, user):
    number = make_sms_number(user)
    make_message(number)
    assert len(structured(mcp, {"number": number.id})["messages"]) == 1
    share(user, number, on=False)
    assert "/settings/sharing" in failure(mcp, {"number": number.id})


def test_test_mode_messages_never_reach_the_tool(mcp, user):
    # /mcp takes live credentials only; a test-mode number of the same account is not the user's here.
    live_number = make_sms_number(user)
    live = make_message(live_number, "live")
    test_number = make_sms_number(user, "+442071838770", livemode=False)
    make_message(test_number, "test")
    assert [m["id"] for m in structured(mcp)["messages"]] == [live.id]
    assert "not one of the user's numbers" in failure(mcp, {"number": test_number.id})


def test_without_messages_read_the_tool_is_refused(settings, user):
    make_sms_number(user)
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"numbers:read"})))
    response = mcp.request("tools/call", {"name": NAME, "arguments": {}})
    assert_error(response, 403, "insufficient_scope")


def test_spoken_lines_pass_strangers_text_through_the_echo_rule_one_message_a_sentence(mcp, user):
    number = make_sms_number(user)
    make_message(number, "see you at the cafe", sender="+12025550177", ago=30)
    make_message(
        number,
        "Pay now\u202e\u2066 at evil.example\u200b\u200d\nReply STOP",
        sender="Acme\u202eBank",
        ago=10,
    )
    content = structured(mcp)
    spoken = content["spoken"]
    for hidden in ("\u202e", "\u2066", "\u200b", "\u200d", "\n"):
        assert hidden not in spoken
    assert "From AcmeBank, in the sender's words: \u201cPay now at evil.example Reply STOP.\u201d" in spoken
    assert spoken.endswith(
        "Reply STOP.\u201d From +12025550177, in the sender's words: \u201csee you at the cafe.\u201d"
    )
    # The messages themselves are returned as they came: only the spoken line is a quotation.
    assert content["messages"][0]["body"].startswith("Pay now\u202e")


def test_a_long_body_is_cut_and_still_ends_its_sentence(mcp, user):
    make_message(make_sms_number(user), "word " * 100)
    spoken = structured(mcp)["spoken"]
    quoted = spoken[spoken.index("\u201c") + 1 : spoken.rindex("\u201d")]  # the body, in the sender's words
    assert quoted.endswith("…") and len(quoted) <= 160
