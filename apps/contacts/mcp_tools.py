"""svc_search_contacts (docs/design.md, Phase 2): the contacts a query finds, as GET /v1/contacts?query= finds them."""

from apps.api_v1.public import page
from apps.core.echo import echoed
from apps.core.phones import readable
from apps.core.text import one_line
from apps.mcp_bridge.public import ToolFailure, ToolSpec, list_of, register

from . import selectors
from .models import MAX_PHONE_NUMBERS
from .search import MAX_QUERY_LENGTH, MAX_QUERY_WORDS, TooManyWords, parse_query
from .serializers import ContactSerializer

MAX_RESULTS = 5  # docs/spec.md 8.5: contacts limit at most 5
SPOKEN_NUMBERS = 2  # per contact, read aloud


def _spoken_contact(contact: dict) -> str:
    numbers = [f"{readable(p['number'])}, {p['label']}" for p in contact["phone_numbers"][:SPOKEN_NUMBERS]]
    more = len(contact["phone_numbers"]) - SPOKEN_NUMBERS
    if more > 0:
        numbers.append(f"{more} more number{'s' if more > 1 else ''}")
    name = one_line(contact["name"])
    return f"{name} ({'; '.join(numbers)})" if numbers else f"{name} (no number)"


def spoken_matches(query: str, contacts: list[dict], has_more: bool) -> str:
    asked = one_line(echoed(query))[:MAX_QUERY_LENGTH]
    if not contacts:
        return f"No contact matches “{asked}”."
    described = [_spoken_contact(c) for c in contacts]
    listed = described[0] if len(described) == 1 else ", ".join(described[:-1]) + " and " + described[-1]
    if has_more:
        return f"These contacts match “{asked}”: {listed}; more match, so give more of the name to narrow it."
    count = "1 contact matches" if len(contacts) == 1 else f"{len(contacts)} contacts match"
    return f"{count} “{asked}”: {listed}."


def search_contacts(*, principal, arguments) -> dict:
    query = arguments["query"]
    limit = arguments.get("limit", MAX_RESULTS)
    try:
        parsed = parse_query(query)
    except TooManyWords as refused:
        raise ToolFailure(f"The {refused}") from None
    if parsed is None:
        raise ToolFailure("Give part of the contact's name, or some digits of their phone number, to search for.")
    found = page(selectors.contact_list(principal=principal, query=query), limit=limit)
    data = [ContactSerializer(contact).data for contact in found.items]
    has_more = found.has_more
    contacts = [{"id": c["id"], "name": c["name"], "phone_numbers": c["phone_numbers"]} for c in data]
    return {"contacts": contacts, "has_more": has_more, "spoken": spoken_matches(query, contacts, has_more)}


PHONE_NUMBER_PROPERTIES = {
    "number": {"type": "string", "description": "E.164, with +."},
    "label": {"type": "string", "enum": ["mobile", "home", "work", "other"]},
    "country": {"type": ["string", "null"], "description": "ISO 3166-1 alpha-2 of the number."},
}

svc_search_contacts = register(
    ToolSpec(
        name="svc_search_contacts",
        title="Search contacts",
        description=(
            "Finds contacts in the user's address book by name or phone number: each word of the query must "
            "start a word of the name (case and accents ignored: 'jose alv' finds José Álvarez), or digits "
            "find any run of a contact's number (the last four digits are enough). Returns at most 5 contacts, "
            "ordered by name, with their phone numbers. Use it to find whom the user means, or whose number "
            "called."
        ),
        scope="contacts:read",
        handler=search_contacts,
        input_schema={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_LENGTH,
                    "description": (
                        f"Up to {MAX_QUERY_WORDS} words of the contact's name, or digits of one of their phone numbers."
                    ),
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_RESULTS,
                    "default": MAX_RESULTS,
                    "description": "How many contacts to return, 1 to 5.",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        output_schema={
            "type": "object",
            "properties": {
                "contacts": list_of(
                    {
                        "id": {"type": "string", "description": "Contact id, ct_..."},
                        "name": {"type": "string"},
                        "phone_numbers": list_of(PHONE_NUMBER_PROPERTIES, most=MAX_PHONE_NUMBERS),
                    },
                    most=MAX_RESULTS,
                ),
                "has_more": {"type": "boolean", "description": "true when more contacts match than were returned."},
                "spoken": {"type": "string", "description": "One sentence naming the matches, for reading aloud."},
            },
            "required": ["contacts", "has_more", "spoken"],
            "additionalProperties": False,
        },
    )
)
