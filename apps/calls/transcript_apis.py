"""POST /v1/calls/{id}/transcript (docs/design.md, Phase 3, "Transcript requests"): scope transcripts:read.

202 with the transcript queued; 200 with the call's transcript when it already has one (no new
charge). The service refuses in the design's order (apps/calls/transcripts.py).
"""

import re

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from apps.api_v1.public import Operation, ResourceActionApi, error_response
from apps.core.echo import echoed
from apps.core.errors import ApiError

from .apis import CALL_ID
from .serializers import TRANSCRIPT_OBJECT_SCHEMA, transcript_object
from .transcripts import transcript_request

# "auto", or a BCP 47 tag as short as "en" and as long as the stored 16 characters ("zh-Hant-TW").
LANGUAGE = re.compile(r"auto|[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}")
MAX_LANGUAGE = 16
FIELDS = frozenset({"language"})


def parse_language(request) -> str:
    data = request.data if request.data is not None else {}
    if not isinstance(data, dict):
        raise ApiError("invalid_body", "The request body must be a JSON object.")
    for name in data:
        if name not in FIELDS:
            raise ApiError("invalid_request", f"Unknown field {echoed(str(name))[:40]!r}.", param=str(name)[:100])
    language = data.get("language", "auto")
    if not isinstance(language, str) or len(language) > MAX_LANGUAGE or not LANGUAGE.fullmatch(language):
        raise ApiError(
            "invalid_request", "language must be auto or a BCP 47 tag such as en or pt-BR.", param="language"
        )
    return language


TRANSCRIPT_RESPONSE = OpenApiResponse(
    response={"type": "object", **{k: v for k, v in TRANSCRIPT_OBJECT_SCHEMA.items() if k != "description"}},
    description="The transcript.",
)


class TranscriptRequestApi(ResourceActionApi):
    """Ask for a recorded call's transcript."""

    required_scope = "transcripts:read"
    ratelimit_class = "transcripts"
    idempotency_key_required = True
    operation = Operation(
        "create_transcript",
        ["Calls"],
        "Ask for a recorded call's transcript and summary",
        description=(
            "Idempotency-Key is required. 202 with the transcript queued: it is completed (or fails) within "
            "seconds to minutes, and its price (TRANSCRIPT_PER_MINUTE times the call's billed minutes, rounded up "
            "once) is charged at completion as one transcript balance transaction; a failed one costs nothing. "
            "A call that already has a transcript answers 200 with it and no new charge. Refusals in this order: "
            "no such call (404), call summaries turned off by the account holder (403 forbidden), the call still "
            "live (409 call_not_ended), not recorded (409 call_not_recorded), the available balance below the "
            "price (402 insufficient_credits). 5 requests a minute."
        ),
        request=inline_serializer(
            "TranscriptCreate",
            {
                "language": serializers.CharField(
                    required=False, max_length=MAX_LANGUAGE, help_text="auto (the default) or a BCP 47 tag."
                )
            },
        ),
        parameters=[CALL_ID.parameter],
        responses={
            200: TRANSCRIPT_RESPONSE,
            202: TRANSCRIPT_RESPONSE,
            400: error_response("idempotency_key_required; invalid_body; invalid_request (param language)."),
            402: error_response("insufficient_credits."),
            403: error_response("forbidden: call summaries are off."),
            409: error_response("call_not_ended; call_not_recorded."),
        },
    )

    def post(self, request, call_id: str):
        language = parse_language(request)
        transcript, made = transcript_request(principal=request.auth, call_id=call_id, language=language)
        return Response(transcript_object(transcript), status=status.HTTP_202_ACCEPTED if made else status.HTTP_200_OK)
