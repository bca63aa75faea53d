"""GET /v1/rates?to=: what a call to a number or a country costs (docs/design.md, Phase 2)."""

from drf_spectacular.utils import OpenApiParameter

from apps.api_v1.public import Operation, ResourceDetailApi, error_response
from apps.core.phones import from_query

from .selectors import MAX_QUERY, rate_quote
from .serializers import RateSerializer

SCOPE = "rates:read"
TAGS = ["Rates"]
TO_PARAMETER = OpenApiParameter(
    "to",
    # The format names what no schema can state (a number phonenumbers calls possible, or a name
    # of one country); tools that know the format draw real destinations for it.
    {"type": "string", "minLength": 1, "maxLength": MAX_QUERY, "format": "rate-destination"},
    OpenApiParameter.QUERY,
    required=True,
    description=(
        "A phone number in E.164 format (+4915112345678): the rate of the longest matching prefix. Write "
        "its + as %2B in the URL (curl: -G --data-urlencode 'to=+4915112345678'); a + sent unencoded arrives "
        "as a space, and a space followed by digits is read as +. Or a "
        "country: an ISO 3166-1 alpha-2 code (DE) or a name in English or another common language "
        "(Germany, Allemagne, Deutschland; case and accents do not matter): an estimate, the lowest and "
        "highest rate of its prefixes."
    ),
)


class RateApi(ResourceDetailApi):
    """One rate from the operator's price list, the same for every account."""

    required_scope = SCOPE
    operation = Operation(
        "retrieve_rate",
        TAGS,
        "What a call to a number or a country costs",
        description=(
            "Rates come from the operator's rate deck (loaded with `manage.py import_rates`). A number gets "
            "the rate of the longest prefix that matches it (`estimate: false`); a country gets the range of "
            "its prefixes' rates (`estimate: true`) and a `next_step` asking for the full number."
        ),
        parameters=[TO_PARAMETER],
        responses={
            200: RateSerializer,
            400: error_response(
                "invalid_request, param to: to is missing, longer than "
                f"{MAX_QUERY} characters, not a possible E.164 number, not a country, or a name that "
                "matches several countries (the message names them). Also invalid_version, token_in_query."
            ),
            404: error_response("not_found, param to: the rate deck has no price for the number or country."),
        },
    )

    def get_row(self, request):
        return rate_quote(query=from_query(request.query_params.get("to")), from_url=True)

    def payload(self, quote) -> dict:
        return RateSerializer(quote, context={"livemode": self.request.auth.livemode}).data
