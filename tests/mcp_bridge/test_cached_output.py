"""The per-process caches and shortcuts behind /mcp tool calls change no byte of any answer.

Each is compared with the function it stands for over a table of inputs, and whole
tools/call responses are compared cold, warm, and with every cache and the compiled
schema check switched off.
"""

import json
import math
from collections import OrderedDict
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from enum import StrEnum

import mcp_types as types
import pytest
from django.utils import timezone
from mcp_types import methods

from apps.calls import spoken
from apps.calls.models import Call
from apps.calls.serializers import CallSerializer
from apps.core.money import display
from apps.mcp_bridge import protocol, registry
from apps.ratelimit.testing import clear_budgets, frozen_clock
from tests.calls.factories import CallFactory, make_contact, unanswered_call
from tests.support.mcp import HANDSHAKE, MODERN, McpClient

NUMBERS = [
    "+4915112345678",
    "+14155550100",
    "+442071838750",
    "+33612345678",
    "+81312345678",
    "+61412345678",
    "+8613812345678",
    "+5511912345678",
    "+12",
    "+999123456",
    "4915112345678",
    "",
    "+",
    "not a number",
    "+49 1511 2345678",
]
AMOUNTS = [
    (9, "usd"),
    (Decimal("9"), "usd"),
    (Decimal("9.000"), "usd"),
    (9.0, "usd"),
    (True, "usd"),
    (0, "usd"),
    (1, "usd"),
    (123456789, "usd"),
    (-250, "usd"),
    (Decimal("4.5"), "usd"),
    (Decimal("4.50"), "usd"),
    (Decimal("0.035"), "usd"),
    (9, "jpy"),
    (9, "kwd"),
    (9, "eur"),
    (9, "USD"),
]


def test_number_is_phonenumbers_formatting_cold_and_warm():
    spoken.number.cache_clear()
    for _ in range(2):
        assert [spoken.number(each) for each in NUMBERS] == [spoken.number.__wrapped__(each) for each in NUMBERS]


def test_amount_display_is_display_cold_and_warm():
    spoken.amount_display.cache_clear()
    for _ in range(2):
        assert [spoken.amount_display(*each) for each in AMOUNTS] == [display(*each) for each in AMOUNTS]


def strftime_when(unix: int, now: datetime) -> str:
    moment = datetime.fromtimestamp(unix, tz=UTC)
    day = f"{moment.day} {moment:%B}" + (f" {moment.year}" if moment.year != now.year else "")
    return f"{day} at {moment:%H:%M} UTC"


def test_when_is_strftimes_sentence():
    now = datetime(2026, 11, 23, 18, 0, tzinfo=UTC)
    start = datetime(2024, 12, 30, tzinfo=UTC)
    # Every month of three years, every hour and a spread of minutes.
    moments = [start + timedelta(days=day, hours=day % 24, minutes=day * 7 % 60) for day in range(0, 1100, 3)]
    moments += [datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC)]
    for moment in moments:
        unix = int(moment.timestamp())
        assert spoken.when(unix, now) == strftime_when(unix, now)


def uncached(monkeypatch):
    """Every cache and the compiled schema check bypassed: the code paths as they were without them."""
    monkeypatch.setattr(spoken, "number", spoken.number.__wrapped__)
    monkeypatch.setattr(spoken, "amount_display", display)
    monkeypatch.setattr(registry, "compile_precheck", lambda schema: None)
    monkeypatch.setattr(registry, "_validators", {})


# A fresh id each request, and the window's end in Unix seconds (which a pass may straddle).
PER_REQUEST_HEADERS = {"request-id", "x-ratelimit-reset"}


def answer(mcp, name, arguments, version):
    params = {"name": name, "arguments": arguments}
    if version == MODERN:
        response = mcp.modern("tools/call", params)
    else:
        response = mcp.request("tools/call", params, version=version)
    headers = {name: value for name, value in response.items() if name.lower() not in PER_REQUEST_HEADERS}
    return response.status_code, headers, response.content


@pytest.fixture
def calls_of_every_kind(user):
    contact = make_contact(user, "Ana  Lopez\nJr")
    CallFactory(user=user, contact_id=contact.id)
    CallFactory(user=user, direction="inbound", from_number="+442071838750", to_number="+14155550100")
    CallFactory(user=user, duration=3725, to_number="+81312345678", currency="jpy")
    CallFactory(user=user, created=timezone.now() - timedelta(days=400), to_number="+12")
    unanswered_call("busy", user=user)
    unanswered_call("no_answer", user=user, direction="inbound", from_number="+33612345678")
    unanswered_call("ringing", user=user)
    return [CallFactory(user=user, to_number=f"+4915112345{n:03d}", duration=n * 17) for n in range(6)]


def tool_calls(calls) -> list[tuple[str, dict]]:
    arguments = [
        {},
        {"limit": 10},
        {"limit": 3, "direction": "inbound"},
        {"starting_after": calls[2].id},
        {"limit": 11},
        {"direction": "sideways"},
        {"starting_after": "call_nope"},
    ]
    messages = [("svc_list_calls", each) for each in arguments]
    messages += [("svc_get_call", {"call_id": call.id}) for call in calls[:2]]
    return [*messages, ("svc_whoami", {}), ("svc_whoami", {"extra": 1}), ("svc_get_call", {})]


# The limiter's clock for every pass: its headers (remaining, reset) must not differ by when a pass ran.
STOPPED_AT_MS = 1_800_000_000_000


@pytest.mark.django_db
@pytest.mark.parametrize("version", [HANDSHAKE, "2025-03-26", MODERN])
def test_tool_calls_answer_the_same_bytes_cold_warm_and_uncached(
    tokens, user, calls_of_every_kind, monkeypatch, version
):
    token = tokens.issue(user, scopes=frozenset({"calls:read", "contacts:read"}))
    messages = tool_calls(calls_of_every_kind)

    def answers():
        clear_budgets()  # the same rate-limit headers each pass, on a stopped clock
        mcp = McpClient(token)  # request ids from 1 again
        with frozen_clock(at_ms=STOPPED_AT_MS):
            return [answer(mcp, name, arguments, version) for name, arguments in messages]

    spoken.number.cache_clear()
    spoken.amount_display.cache_clear()
    cold, warm = answers(), answers()
    with monkeypatch.context() as patched:
        uncached(patched)
        reference = answers()
    assert cold == warm == reference
    # The table reaches the tools' results, their failures and the argument errors.
    bodies = b"".join(content for _, _, content in reference)
    assert b'"isError": false' in bodies
    assert b'"isError": true' in bodies
    assert b"Invalid arguments for svc_list_calls" in bodies
    assert b"Ana Lopez Jr" in bodies


class Colour(StrEnum):
    RED = "red"


CALL_VERSIONS = sorted(version for method, version in methods.SERVER_RESULTS if method == "tools/call")
STRUCTURED = [
    {},
    {"email": "ada@example.com", "display_name": "", "spoken": "You are connected as ada@example.com."},
    {"calls": [{"id": "call_1", "amount": None, "created": 1700000000}], "has_more": True, "spoken": "Ünïcödé ✓"},
    {"nested": {"deep": [1, 2.5, -0.0, None, True, "\u2028"]}, "big": 12345678901234567890123},
    {"tuple": (1, 2), "inf": math.inf, "nan": math.nan},
    {"colour": Colour.RED, "lone": "\ud800"},
    {1: "a key that is not a string"},
    {True: 1, None: 2, 1.5: 3},
    {Colour.RED: "a key of a str subclass", "nested": {1: {2: (3,)}}},
    OrderedDict(a=1),
    {"decimal": Decimal("4.50")},
    {"when": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)},
]


def model_result(structured: dict) -> types.CallToolResult:
    text = json.dumps(structured, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=structured)


@pytest.mark.parametrize("structured", STRUCTURED[:4], ids=range(4))
def test_structured_result_is_the_models_dump(structured):
    assert registry.structured_result(structured) == protocol.dumped(model_result(structured))


def test_failure_result_is_the_models_dump():
    model = types.CallToolResult(content=[types.TextContent(text=registry.UNAVAILABLE)], is_error=True)
    assert registry.failure_result(registry.UNAVAILABLE) == protocol.dumped(model)


@pytest.mark.parametrize("version", CALL_VERSIONS)
@pytest.mark.parametrize("structured", STRUCTURED, ids=range(len(STRUCTURED)))
def test_each_version_shapes_the_written_out_result_as_the_model(version, structured):
    def outcome(build):
        try:
            return json.dumps(protocol.shape("tools/call", version, build(structured)))
        except (TypeError, ValueError) as error:  # json.dumps' TypeError, pydantic's ValidationError
            return type(error)

    from_model = outcome(lambda content: protocol.dumped(model_result(content)))
    assert outcome(registry.structured_result) == from_model


@pytest.mark.parametrize("raw_id", ["1", "-5", '"abc"', '"\\ud800"', "12345678901234567890123", '""'])
def test_the_response_envelope_is_the_models_dump(raw_id):
    body = json.loads(f'{{"jsonrpc": "2.0", "id": {raw_id}, "method": "ping"}}')
    request = types.JSONRPCRequest.model_validate(body)
    wire = protocol.shape("tools/call", HANDSHAKE, registry.structured_result(STRUCTURED[2]))
    model = types.JSONRPCResponse(jsonrpc="2.0", id=request.id, result=wire).model_dump(mode="json")
    written_out = {"jsonrpc": "2.0", "id": request.id, "result": wire}
    assert json.dumps(written_out) == json.dumps(model)
    assert written_out == model


@pytest.mark.django_db
def test_one_call_serializer_per_page_gives_what_many_true_gives(calls_of_every_kind):
    page = list(Call.objects.order_by("-created", "-id"))
    now = timezone.now()
    serializer = CallSerializer(context={"now": now})
    assert [serializer.to_representation(call) for call in page] == CallSerializer(
        page, many=True, context={"now": now}
    ).data
