"""The base of the JSON endpoints the web application calls with the user's session
(consent transactions, connected apps): DRF views behind the dashboard session."""

from rest_framework.parsers import JSONParser
from rest_framework.views import APIView

from apps.credentials.session import SessionOnlyMixin


class AnyTypeJSONParser(JSONParser):
    """The body is read as JSON whatever its Content-Type: a body that is not JSON is
    ``invalid_body`` (docs/spec.md 7.2), not a media-type refusal."""

    media_type = "*/*"


class SessionJsonApi(SessionOnlyMixin, APIView):
    parser_classes = [AnyTypeJSONParser]
    # Not a versioned API surface: a Service-Version header is not theirs, and the
    # /v1 OpenAPI document does not describe them (the web application is their only client).
    versioning_class = None
    schema = None

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Cache-Control"] = "no-store"  # an account's data, never kept by a cache
        return response
