"""GET /v1/contacts (search with ``query``) and GET /v1/contacts/{id} (docs/design.md, Phase 2). Scope contacts:read."""

from drf_spectacular.utils import OpenApiParameter

from apps.api_v1.public import Operation, PathId, ResourceDetailApi, ResourceListApi, cursor_parameters, error_response

from . import selectors
from .models import CONTACT_ID_PREFIX
from .search import MAX_QUERY_LENGTH, MAX_QUERY_WORDS
from .serializers import ContactSerializer

SCOPE = "contacts:read"
TAGS = ["Contacts"]
CONTACT_ID = PathId("contact_id", CONTACT_ID_PREFIX, "The contact's id, ct_...")


QUERY_PARAMETER = OpenApiParameter(
    "query",
    # No control characters: the input guard refuses them on every /v1 parameter (apps/core/inputs.py).
    {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_LENGTH, "pattern": r"^[^\x00-\x1f\x7f-\x9f]*$"},
    description=(
        "Letters: every word must be the start of a word of the contact's name, case and accents ignored "
        "(jose and alv find José Álvarez; ose does not). Digits (spaces, +, -, ., parentheses ignored): "
        "any run of digits of one of the contact's numbers (5550100 finds +1 415 555 0100). Without query, "
        "every contact. Empty, longer than 100 characters, or of more than "
        f"{MAX_QUERY_WORDS} different words once accents "
        "and special forms of letters are read (⒜ is a, ¼ is two words): 400 invalid_request (param query); "
        "with neither letters nor digits in it, it finds nothing. A search's cost does not grow with what "
        "is typed: the first word is one index range, the others one check per match."
    ),
)
CURSOR_PARAMETERS = cursor_parameters(
    prefix="ct_",
    format="contact-id",
    objects="contacts",
    after="after it in name order",
    before="before it in name order",
)


class ContactListApi(ResourceListApi):
    """The address book, by name, or the contacts a query finds."""

    required_scope = SCOPE
    cursor_id_prefix = CONTACT_ID_PREFIX
    serializer_class = ContactSerializer
    operation = Operation(
        "list_contacts",
        TAGS,
        "List or search your contacts, by name",
        description=(
            "Your contacts in the credential's mode, ordered by name (accents and case ignored), then id. "
            "With query, only the contacts it finds, in the same order. Pages follow name order: "
            "starting_after and ending_before take a contact id."
        ),
        parameters=[QUERY_PARAMETER, *CURSOR_PARAMETERS],
        responses={
            400: error_response("invalid_request (param query): query empty, too long or of too many words."),
        },
    )

    def get_rows(self, request):
        return selectors.contact_list(principal=request.auth, query=request.query_params.get("query"))


class ContactDetailApi(ResourceDetailApi):
    """One contact of the address book."""

    required_scope = SCOPE
    path_id = CONTACT_ID
    serializer_class = ContactSerializer
    operation = Operation("retrieve_contact", TAGS, "Read one contact")

    def get_row(self, request, contact_id: str):
        return selectors.contact_get(principal=request.auth, contact_id=contact_id)
