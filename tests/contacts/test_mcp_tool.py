"""svc_search_contacts (docs/design.md, Phase 2): input `query`, `limit` (1-5, default 5); output `contacts`
(id, name, phone_numbers), `has_more`, `spoken`; the same matches GET /v1/contacts?query= finds."""

import jsonschema
import pytest

from tests.support.factories import UserFactory, make_api_key
from tests.support.mcp import McpClient
from tests.support.resources import listed_read_only_tool, structured_content

from .factories import make_contact, make_contacts

pytestmark = pytest.mark.django_db

TOOL = "svc_search_contacts"
OUTPUT = {"contacts", "has_more", "spoken"}
PROPERTY_NAME = r"^[a-zA-Z0-9_.-]{1,64}$"


@pytest.fixture
def mcp(user, tokens):
    return McpClient(tokens.issue(user, scopes=frozenset({"contacts:read"})))


def search(mcp, **arguments):
    response = mcp.request("tools/call", {"name": TOOL, "arguments": arguments})
    assert response.status_code == 200, response.content
    return response.json()


def result_of(mcp, **arguments) -> dict:
    structured = structured_content(mcp, TOOL, arguments)
    assert set(structured) == OUTPUT
    return structured


def test_the_tool_is_listed_read_only_with_flat_typed_input(mcp):
    tool = listed_read_only_tool(mcp, TOOL, title="Search contacts", scope="contacts:read", output=OUTPUT)
    schema = tool["inputSchema"]
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 100,
        "description": schema["properties"]["query"]["description"],
    }
    limit = schema["properties"]["limit"]
    assert (limit["type"], limit["minimum"], limit["maximum"], limit["default"]) == ("integer", 1, 5, 5)
    for name in schema["properties"]:
        assert jsonschema.Draft202012Validator({"pattern": PROPERTY_NAME}).is_valid(name)
    assert "$schema" not in str(schema) and "anyOf" not in str(schema) and "oneOf" not in str(schema)


def test_contacts_read_alone_is_enough(user, mcp):
    make_contact(user, "Ana López")
    assert [c["name"] for c in result_of(mcp, query="ana")["contacts"]] == ["Ana López"]


def test_the_result(user, mcp):
    ana = make_contact(user, "Ana López", [("+34612345678", "mobile"), ("+14155550100", "work")])
    make_contact(user, "Bo Lin", [("+442071838750", "home")])
    structured = result_of(mcp, query="ana")
    assert structured == {
        "contacts": [
            {
                "id": ana.id,
                "name": "Ana López",
                "phone_numbers": [
                    {"number": "+34612345678", "label": "mobile", "country": "ES"},
                    {"number": "+14155550100", "label": "work", "country": "US"},
                ],
            }
        ],
        "has_more": False,
        "spoken": "1 contact matches “ana”: Ana López (+34 612 34 56 78, mobile; +1 415-555-0100, work).",
    }


def test_digits_find_a_contact_too(user, mcp):
    make_contact(user, "Ana López", [("+14155550100", "work")])
    assert [c["name"] for c in result_of(mcp, query="0100")["contacts"]] == ["Ana López"]


def test_caps_at_5_and_says_there_are_more(user, mcp):
    make_contacts(user, [f"Sam {chr(ord('A') + n)}" for n in range(7)])
    structured = result_of(mcp, query="sam")
    assert [c["name"] for c in structured["contacts"]] == ["Sam A", "Sam B", "Sam C", "Sam D", "Sam E"]
    assert structured["has_more"] is True
    assert "more match" in structured["spoken"]
    two = result_of(mcp, query="sam", limit=2)
    assert [c["name"] for c in two["contacts"]] == ["Sam A", "Sam B"] and two["has_more"] is True


def test_exactly_5_has_no_more(user, mcp):
    make_contacts(user, [f"Sam {n}" for n in range(5)])
    structured = result_of(mcp, query="sam")
    assert len(structured["contacts"]) == 5 and structured["has_more"] is False
    assert structured["spoken"].startswith("5 contacts match “sam”: ")


def test_a_whole_number_written_with_a_decimal_point_is_that_limit(user, mcp):
    # JSON Schema counts 2.0 as an integer, so the input schema admits it: it must work as 2.
    make_contacts(user, [f"Sam {chr(ord('A') + n)}" for n in range(3)])
    two = result_of(mcp, query="sam", limit=2.0)
    assert [c["name"] for c in two["contacts"]] == ["Sam A", "Sam B"] and two["has_more"] is True


@pytest.mark.parametrize("limit", [0, 6, 100, -1, "5", 2.5, 5.5, 6.0])
def test_a_limit_outside_1_to_5_is_a_json_rpc_error(mcp, limit):
    body = search(mcp, query="ana", limit=limit)
    assert body["error"]["code"] == -32602


@pytest.mark.parametrize(
    "arguments", [{}, {"query": ""}, {"query": "a" * 101}, {"query": 5}, {"query": "ana", "extra": 1}]
)
def test_a_malformed_query_is_a_json_rpc_error(mcp, arguments):
    body = search(mcp, **arguments)
    assert body["error"]["code"] == -32602


def test_no_match_is_a_result_saying_so(user, mcp):
    make_contact(user, "Ana López")
    structured = result_of(mcp, query="zed")
    assert structured == {"contacts": [], "has_more": False, "spoken": "No contact matches “zed”."}


def test_nothing_to_search_for_is_an_is_error_result(mcp):
    result = search(mcp, query="!!")["result"]
    assert result["isError"] is True
    assert "name" in result["content"][0]["text"]


def test_the_tool_finds_what_the_rest_list_finds(user, mcp, client):
    make_contacts(user, ["José Álvarez", "Joseph Kim", "Ana Jo", "Bo Lin"])
    _key, secret = make_api_key(user, scopes=["contacts:read"])
    rest = client.get("/v1/contacts", {"query": "jo", "limit": 5}, HTTP_AUTHORIZATION=f"Bearer {secret}").json()
    expected = [{k: c[k] for k in ("id", "name", "phone_numbers")} for c in rest["data"]]
    assert result_of(mcp, query="jo")["contacts"] == expected


def test_only_the_callers_live_contacts(user, mcp):
    make_contact(UserFactory(), "Ana Other")
    make_contact(user, "Ana Test", livemode=False)
    make_contact(user, "Ana Live")
    assert [c["name"] for c in result_of(mcp, query="ana")["contacts"]] == ["Ana Live"]


def test_the_spoken_line_is_one_line_whatever_the_names(user, mcp):
    make_contact(user, "Ana\nLópez", numbers=())  # stored with its spaces folded
    structured = result_of(mcp, query="  ana   l ")
    assert structured["spoken"] == "1 contact matches “ana l”: Ana López (no number)."


def test_control_characters_in_the_query_are_a_json_rpc_error(mcp):
    # The input guard refuses them for every surface (apps/core/inputs.py); the tool never runs.
    assert search(mcp, query="ana\nl")["error"]["code"] == -32602


def test_a_contact_with_many_numbers_is_read_with_two(user, mcp):
    numbers = [(f"+1415555010{n}", "other") for n in range(4)]
    make_contact(user, "Ana Many", numbers)
    structured = result_of(mcp, query="ana")
    assert len(structured["contacts"][0]["phone_numbers"]) == 4
    assert structured["spoken"].endswith("(+1 415-555-0100, other; +1 415-555-0101, other; 2 more numbers).")


def test_the_result_stays_a_few_kb(user, mcp):
    long_name = "Maximilian " + "Wolfeschlegelsteinhausen " * 7
    numbers = [(f"+4930123456{n:02d}", "other") for n in range(10)]
    for _ in range(6):
        make_contact(user, long_name, numbers)
    body = search(mcp, query="max")
    assert len(body["result"]["content"][0]["text"].encode()) < 8_000
