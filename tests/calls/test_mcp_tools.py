"""svc_list_calls, svc_get_call, svc_get_call_summary over /mcp (docs/design.md, Phase 2; docs/spec.md 4.7)."""

import json
import re
from datetime import timedelta

import jsonschema
import pytest
from django.conf import settings
from django.utils import timezone

from apps.calls.models import Transcript
from apps.mcp_bridge import registry
from tests.calls.factories import CallFactory, TranscriptFactory, live_call, make_contact, unanswered_call
from tests.support.envelope import assert_error
from tests.support.mcp import McpClient, install_fake_tokens

pytestmark = pytest.mark.django_db

TOOLS = {"svc_list_calls": "calls:read", "svc_get_call": "calls:read", "svc_get_call_summary": "transcripts:read"}
PROPERTY_NAME = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")
ALL = frozenset({"calls:read", "contacts:read", "transcripts:read"})


@pytest.fixture
def tokens(settings):
    return install_fake_tokens(settings)


@pytest.fixture
def mcp_for(tokens, owner):
    def make(scopes=ALL, **overrides):
        return McpClient(tokens.issue(owner, scopes=frozenset(scopes), **overrides))

    return make


@pytest.fixture
def mcp(mcp_for):
    return mcp_for()


def call_tool(mcp, name, arguments=None):
    response = mcp.request("tools/call", {"name": name, "arguments": arguments or {}})
    assert response.status_code == 200, response.content
    body = response.json()
    assert "error" not in body, body
    return body["result"]


def structured(mcp, name, arguments=None):
    result = call_tool(mcp, name, arguments)
    assert result["isError"] is False, result
    content = result["structuredContent"]
    jsonschema.validate(content, registry.TOOLS[name].output_schema)
    assert json.loads(result["content"][0]["text"]) == content
    assert len(result["content"][0]["text"].encode()) < 6000  # a few KB at most
    return content


def failure(mcp, name, arguments=None) -> str:
    result = call_tool(mcp, name, arguments)
    assert result["isError"] is True, result
    assert "structuredContent" not in result
    (text,) = result["content"]
    return text["text"]


def rpc_invalid_params(mcp, name, arguments):
    response = mcp.request("tools/call", {"name": name, "arguments": arguments})
    assert response.status_code == 200
    assert response.json()["error"]["code"] == -32602


# --- the schemas ----------------------------------------------------------------------------


def walk(schema):
    yield schema
    for value in schema.values():
        if isinstance(value, dict):
            yield from walk(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    yield from walk(item)


def test_tools_are_listed_with_scopes_in_their_descriptions(mcp):
    response = mcp.request("tools/list")
    listed = {t["name"]: t for t in response.json()["result"]["tools"]}
    for name, scope in TOOLS.items():
        tool = listed[name]
        assert tool["title"]
        assert scope in tool["description"]
        assert tool["annotations"] == {
            "title": tool["title"],
            "readOnlyHint": True,
            "idempotentHint": True,
            "destructiveHint": False,
            "openWorldHint": False,
        }


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_input_schemas_obey_the_rules(name):
    schema = registry.TOOLS[name].input_schema
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    for node in walk(schema):
        assert "$schema" not in node
        assert "anyOf" not in node and "oneOf" not in node and "allOf" not in node
    for prop, rule in schema["properties"].items():
        assert PROPERTY_NAME.fullmatch(prop)
        assert prop == prop.lower()  # snake_case
        assert rule["type"] in ("string", "integer")  # flat
        assert rule["description"]
        if rule["type"] == "string":
            assert "enum" in rule or ("pattern" in rule and "maxLength" in rule)
        else:
            assert "minimum" in rule and "maximum" in rule


def test_list_calls_input_is_limit_direction_starting_after():
    schema = registry.TOOLS["svc_list_calls"].input_schema
    assert set(schema["properties"]) == {"limit", "direction", "starting_after"}
    assert (schema["properties"]["limit"]["minimum"], schema["properties"]["limit"]["maximum"]) == (1, 10)
    assert schema["properties"]["limit"]["default"] == 5
    assert schema["properties"]["direction"]["enum"] == ["inbound", "outbound"]
    assert registry.TOOLS["svc_get_call"].input_schema["required"] == ["call_id"]
    assert registry.TOOLS["svc_get_call_summary"].input_schema["required"] == ["call_id"]


# --- svc_list_calls -------------------------------------------------------------------------


@pytest.fixture
def seven(owner):
    calls = [CallFactory(user=owner) for _ in range(7)]
    return sorted(calls, key=lambda c: (c.created, c.id), reverse=True)


def test_list_calls_defaults_to_5_newest_first(mcp, seven):
    content = structured(mcp, "svc_list_calls")
    assert [c["id"] for c in content["calls"]] == [c.id for c in seven[:5]]
    assert content["has_more"] is True
    assert set(content["calls"][0]) == {
        "id",
        "direction",
        "status",
        "from",
        "to",
        "contact_name",
        "created",
        "duration",
        "amount",
        "amount_display",
        "currency",
    }
    assert content["calls"][0]["amount"] == 9
    assert content["calls"][0]["amount_display"] == "$0.09"


def test_list_calls_pages_with_starting_after(mcp, seven):
    first = structured(mcp, "svc_list_calls", {"limit": 3})
    second = structured(mcp, "svc_list_calls", {"limit": 3, "starting_after": first["calls"][-1]["id"]})
    third = structured(mcp, "svc_list_calls", {"limit": 3, "starting_after": second["calls"][-1]["id"]})
    assert [c["id"] for c in first["calls"] + second["calls"] + third["calls"]] == [c.id for c in seven]
    assert (first["has_more"], second["has_more"], third["has_more"]) == (True, True, False)
    assert second["spoken"].startswith("The next 3 calls")
    assert "ask for the next page" in first["spoken"]
    assert "ask for the next page" not in third["spoken"]


def test_list_calls_limit_10_and_direction(mcp, owner, seven):
    inbound = CallFactory(user=owner, direction="inbound", from_number="+442071838750", to_number="+14155550100")
    assert len(structured(mcp, "svc_list_calls", {"limit": 10})["calls"]) == 8
    only = structured(mcp, "svc_list_calls", {"direction": "inbound"})
    assert [c["id"] for c in only["calls"]] == [inbound.id]
    assert "inbound from +44 20 7183 8750" in only["spoken"]


def test_list_calls_takes_a_whole_number_written_with_a_decimal_point(mcp, seven):
    # JSON Schema counts 3.0 as an integer, so the input schema admits it: it must page as 3 does.
    assert (
        structured(mcp, "svc_list_calls", {"limit": 3.0})["calls"]
        == structured(mcp, "svc_list_calls", {"limit": 3})["calls"]
    )
    outbound = structured(mcp, "svc_list_calls", {"limit": 10.0, "direction": "outbound"})
    assert len(outbound["calls"]) == 7


@pytest.mark.parametrize(
    "arguments",
    [
        {"limit": 0},
        {"limit": 11},
        {"limit": 10.5},
        {"limit": 11.0},
        {"limit": "5"},
        {"direction": "sideways"},
        {"starting_after": "ct_abc"},
        {"starting_after": "call_bad!"},
        {"unknown": 1},
    ],
)
def test_list_calls_refuses_arguments_outside_its_schema(mcp, arguments):
    rpc_invalid_params(mcp, "svc_list_calls", arguments)


def test_list_calls_pages_a_direction_from_a_call_of_the_other(mcp, owner, seven):
    inbound = CallFactory(user=owner, direction="inbound", created=seven[3].created - timedelta(seconds=1))
    content = structured(mcp, "svc_list_calls", {"direction": "inbound", "starting_after": seven[0].id})
    assert [c["id"] for c in content["calls"]] == [inbound.id]


def test_list_calls_with_a_cursor_of_another_account_is_an_error_result(mcp, stranger):
    theirs = CallFactory(user=stranger)
    text = failure(mcp, "svc_list_calls", {"starting_after": theirs.id})
    assert "starting_after" in text


def test_list_calls_names_contacts_with_contacts_read(mcp, owner):
    contact = make_contact(owner, "Ana Lopez")
    CallFactory(user=owner, contact_id=contact.id)
    content = structured(mcp, "svc_list_calls")
    assert content["contact_names_hidden"] is False
    assert content["calls"][0]["contact_name"] == "Ana Lopez"
    assert "outbound to Ana Lopez" in content["spoken"]


def test_list_calls_without_contacts_read_hides_names_and_says_so(mcp_for, owner):
    contact = make_contact(owner, "Ana Lopez")
    CallFactory(user=owner, contact_id=contact.id)
    content = structured(mcp_for({"calls:read"}), "svc_list_calls")
    assert content["contact_names_hidden"] is True
    assert content["calls"][0]["contact_name"] is None
    assert "Ana" not in json.dumps(content)
    assert "+49 1511 2345678" in content["spoken"]


def test_list_calls_speaks_times_in_utc_and_says_so(mcp, owner):
    moment = timezone.now().replace(hour=14, minute=2) - timedelta(days=1)
    CallFactory(user=owner, created=moment)
    spoken = structured(mcp, "svc_list_calls")["spoken"]
    assert "times in UTC" in spoken
    assert "at 14:02 UTC" in spoken
    assert "1 min 28 s, $0.09" in spoken


def test_list_calls_with_no_calls(mcp):
    content = structured(mcp, "svc_list_calls")
    assert content == {"calls": [], "has_more": False, "contact_names_hidden": False, "spoken": "You have no calls."}


def test_list_calls_sees_only_the_accounts_live_mode_calls(mcp, owner, stranger):
    mine = CallFactory(user=owner)
    CallFactory(user=owner, livemode=False)
    CallFactory(user=stranger)
    assert [c["id"] for c in structured(mcp, "svc_list_calls")["calls"]] == [mine.id]


# --- svc_get_call ---------------------------------------------------------------------------


def test_get_call_gives_live_status_and_cost_so_far(mcp, owner):
    contact = make_contact(owner, "Ana Lopez")
    call = live_call(user=owner, talked=190, contact_id=contact.id)
    content = structured(mcp, "svc_get_call", {"call_id": call.id})
    assert content["status"] == "in_progress"
    assert content["contact_name"] == "Ana Lopez"
    assert content["contact"] == contact.id
    assert content["billed_duration"] == 240
    assert content["amount"] == 18  # 4 min at 4.5 cents
    assert content["amount_display"] == "$0.18"
    assert content["per_minute_display"] == "$0.045"
    assert content["spoken"].startswith("Your call to Ana Lopez (+49 1511 2345678) is in progress: 3 min 1")
    assert content["spoken"].endswith("so far, $0.18 so far.")


def test_get_call_is_the_rest_object_plus_display_fields(mcp, caller, owner):
    call = CallFactory(user=owner)
    transcript = TranscriptFactory(call=call)
    content = structured(mcp, "svc_get_call", {"call_id": call.id})
    rest = caller.get(f"/v1/calls/{call.id}").json()
    for field in set(rest) - {"object", "livemode"}:
        assert content[field] == rest[field], field
    assert content["transcript"] == transcript.id
    assert content["spoken"].endswith("lasted 1 min 28 s and cost $0.09.")


@pytest.mark.parametrize(
    ("status", "says"),
    [
        ("ringing_you", "ringing your phone first; answer it and press 1"),
        ("ringing", "is ringing."),
        ("busy", "was busy; it was not charged."),
        ("no_answer", "was not answered"),
    ],
)
def test_get_call_speaks_each_state(mcp, owner, status, says):
    call = unanswered_call(status, user=owner)
    content = structured(mcp, "svc_get_call", {"call_id": call.id})
    assert content["amount"] is None and content["amount_display"] is None
    assert says in content["spoken"]


def test_get_call_of_an_unknown_another_accounts_or_test_call_is_an_error_result(mcp, owner, stranger):
    for call_id in ("call_doesnotexist", CallFactory(user=stranger).id, CallFactory(user=owner, livemode=False).id):
        text = failure(mcp, "svc_get_call", {"call_id": call_id})
        assert text == f"There is no call {call_id} in this account. Use svc_list_calls to find the call's id."


@pytest.mark.parametrize("arguments", [{}, {"call_id": "trs_abc"}, {"call_id": 5}, {"call_id": "call_x", "more": 1}])
def test_get_call_refuses_arguments_outside_its_schema(mcp, arguments):
    rpc_invalid_params(mcp, "svc_get_call", arguments)


# --- svc_get_call_summary -------------------------------------------------------------------


def test_get_call_summary(mcp, owner, summaries_on):
    contact = make_contact(owner, "Ana Lopez")
    call = CallFactory(user=owner, contact_id=contact.id)
    TranscriptFactory(call=call)
    content = structured(mcp, "svc_get_call_summary", {"call_id": call.id})
    assert content["summary"].startswith("Ana confirmed the delivery")
    assert content["action_items"] == ["Call Ana back if the delivery slips"]
    assert content["reference_numbers"] == ["ORD-48213"]
    assert content["call_id"] == call.id
    assert content["language"] == "en"
    assert content["spoken"].startswith("Summary of your call with Ana Lopez on ")
    assert "Reference numbers: ORD-48213." in content["spoken"]


def test_get_call_summary_with_the_switch_off_says_what_to_do(mcp, owner):
    call = CallFactory(user=owner)
    TranscriptFactory(call=call)
    text = failure(mcp, "svc_get_call_summary", {"call_id": call.id})
    assert "Let connected apps read AI summaries of my calls" in text
    assert f"{settings.APP_URL}/settings/sharing" in text


def test_get_call_summary_without_transcript_never_starts_one(mcp, owner, summaries_on):
    call = CallFactory(user=owner)
    text = failure(mcp, "svc_get_call_summary", {"call_id": call.id})
    assert "no transcript" in text
    assert "cannot start a transcription" in text
    assert Transcript.objects.count() == 0
    live = live_call(user=owner)
    assert "still going on" in failure(mcp, "svc_get_call_summary", {"call_id": live.id})
    assert Transcript.objects.count() == 0


def test_get_call_summary_of_another_accounts_call_is_an_error_result(mcp, stranger, summaries_on):
    theirs = TranscriptFactory(call=CallFactory(user=stranger)).call
    assert "There is no call" in failure(mcp, "svc_get_call_summary", {"call_id": theirs.id})


# --- scopes and modes -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_tool_without_its_scope_is_403_with_the_challenge(mcp_for, owner, name):
    scope = TOOLS[name]
    call = CallFactory(user=owner)
    mcp = mcp_for(ALL - {scope})
    response = mcp.request(
        "tools/call", {"name": name, "arguments": {} if name == "svc_list_calls" else {"call_id": call.id}}
    )
    assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert response["WWW-Authenticate"].startswith(f'Bearer error="insufficient_scope", scope="{scope}"')


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_tool_with_only_its_scope_runs(mcp_for, owner, summaries_on, name):
    call = CallFactory(user=owner)
    TranscriptFactory(call=call)
    mcp = mcp_for({TOOLS[name]})
    structured(mcp, name, {} if name == "svc_list_calls" else {"call_id": call.id})


def test_test_mode_tokens_are_refused(mcp_for, owner):
    mcp = mcp_for(livemode=False)
    response = mcp.request("tools/call", {"name": "svc_list_calls", "arguments": {}})
    assert_error(response, 401, "invalid_token")


def test_tool_calls_cost_few_statements(mcp, owner, summaries_on, django_assert_max_num_queries):
    # The stand-in token costs no SQL, as a cached credential: these are the tools' own statements.
    calls = [CallFactory(user=owner, contact_id=make_contact(owner).id) for _ in range(12)]
    TranscriptFactory(call=calls[0])
    with django_assert_max_num_queries(1):
        structured(mcp, "svc_list_calls", {"limit": 10})
    with django_assert_max_num_queries(2):
        structured(mcp, "svc_list_calls", {"limit": 10, "starting_after": calls[3].id})
    with django_assert_max_num_queries(1):
        structured(mcp, "svc_get_call", {"call_id": calls[0].id})
    with django_assert_max_num_queries(2):
        structured(mcp, "svc_get_call_summary", {"call_id": calls[0].id})
