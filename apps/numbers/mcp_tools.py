"""svc_list_numbers (docs/design.md, Phase 2): the account's active numbers and its caller IDs, as REST lists them."""

from babel import Locale

from apps.core.phones import country_name, readable
from apps.mcp_bridge.public import ToolSpec, list_of, register

from . import selectors
from .models import NumberStatus
from .serializers import CallerIdSerializer, NumberSerializer

MAX_ITEMS = 20  # of each list: an account has a handful; the result stays a few KB
SPOKEN_NUMBERS = 5  # read aloud; the rest are counted
_ENGLISH = Locale.parse("en")
_TYPE_WORDS = {"local": "local", "mobile": "mobile", "national": "national", "toll_free": "toll-free"}


def _country(code: str | None) -> str:
    return country_name(code) if code else "no country"


def _capabilities(capabilities: dict) -> str:
    if capabilities["voice"] and capabilities["sms"]:
        return "voice and SMS"
    if capabilities["voice"]:
        return "voice only"
    return "SMS only" if capabilities["sms"] else "no voice or SMS"


def _spoken_number(number: dict) -> str:
    switch = "message reading on" if number["messages_opt_in"] else "message reading off"
    details = [
        _country(number["country"]),
        _TYPE_WORDS[number["type"]],
        _capabilities(number["capabilities"]),
        switch,
    ]
    return f"{readable(number['number'])} ({', '.join(details)})"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def spoken_numbers(numbers: list[dict], caller_ids: list[dict], has_more: bool) -> str:
    if numbers:
        count = "1 active number" if len(numbers) == 1 else f"{len(numbers)} active numbers"
        described = [_spoken_number(n) for n in numbers[:SPOKEN_NUMBERS]]
        rest = len(numbers) - len(described)
        if rest:
            described.append(f"{rest} more")
        line = f"You have {'at least ' if has_more else ''}{count}: {_listed(described)}."
    else:
        line = "You have no active virtual number."
    default = next((c for c in caller_ids if c["default"]), None)
    others = len(caller_ids) - (1 if default else 0)
    if default:
        line += f" Your default caller ID is {readable(default['number'])}"
        line += f", and you have {others} more verified." if others else "."
    elif caller_ids:
        line += f" You have {len(caller_ids)} verified caller ID{'s' if len(caller_ids) > 1 else ''} and no default."
    else:
        line += " You have no verified caller ID."
    return line


def list_numbers(*, principal, arguments) -> dict:
    active = selectors.number_list(principal=principal).filter(status=NumberStatus.ACTIVE).order_by("-created", "-id")
    rows = list(active[: MAX_ITEMS + 1])
    caller_rows = list(
        selectors.caller_id_list(principal=principal).order_by("-is_default", "-created", "-id")[: MAX_ITEMS + 1]
    )
    has_more = len(rows) > MAX_ITEMS or len(caller_rows) > MAX_ITEMS
    numbers = [
        {key: data[key] for key in ("id", "number", "country", "type", "capabilities", "messages_opt_in")}
        for data in (NumberSerializer(row).data for row in rows[:MAX_ITEMS])
    ]
    caller_ids = [
        {key: data[key] for key in ("id", "number", "country", "default")}
        for data in (CallerIdSerializer(row).data for row in caller_rows[:MAX_ITEMS])
    ]
    return {
        "numbers": numbers,
        "caller_ids": caller_ids,
        "has_more": has_more,
        "spoken": spoken_numbers(numbers, caller_ids, has_more),
    }


COUNTRY = {"type": ["string", "null"], "description": "ISO 3166-1 alpha-2 of the number."}

svc_list_numbers = register(
    ToolSpec(
        name="svc_list_numbers",
        title="List numbers and caller IDs",
        description=(
            "Lists the user's active virtual numbers (country, type, whether they take calls and SMS, and whether "
            "the user lets connected apps read their messages) and the verified caller IDs the user can call "
            "from, with the default one. Use it when the user asks which numbers they have or which number "
            "people see when they call."
        ),
        scope="numbers:read",
        handler=list_numbers,
        output_schema={
            "type": "object",
            "properties": {
                "numbers": list_of(
                    {
                        "id": {"type": "string", "description": "Number id, num_..."},
                        "number": {"type": "string", "description": "E.164, with +."},
                        "country": COUNTRY,
                        "type": {"type": "string", "enum": ["local", "mobile", "national", "toll_free"]},
                        "capabilities": {
                            "type": "object",
                            "properties": {"voice": {"type": "boolean"}, "sms": {"type": "boolean"}},
                            "required": ["voice", "sms"],
                            "additionalProperties": False,
                        },
                        "messages_opt_in": {
                            "type": "boolean",
                            "description": "Whether the user lets connected apps read this number's messages.",
                        },
                    },
                    most=MAX_ITEMS,
                ),
                "caller_ids": list_of(
                    {
                        "id": {"type": "string", "description": "Caller ID id, cid_..."},
                        "number": {"type": "string", "description": "E.164, with +."},
                        "country": COUNTRY,
                        "default": {"type": "boolean", "description": "The caller ID calls show by default."},
                    },
                    most=MAX_ITEMS,
                ),
                "has_more": {
                    "type": "boolean",
                    "description": (
                        f"true when the account has more than {MAX_ITEMS} of either; the lists hold the newest."
                    ),
                },
                "spoken": {"type": "string", "description": "One or two sentences to read the numbers aloud."},
            },
            "required": ["numbers", "caller_ids", "has_more", "spoken"],
            "additionalProperties": False,
        },
    )
)
