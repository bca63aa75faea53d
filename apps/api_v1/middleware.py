"""Rules every /v1 request meets before and after its view (SPEC 4 general rules)."""

from apps.core.envelope import render
from apps.core.errors import ApiError

from . import versions
from .versioning import requested_version

# Longest prefix first: the first match sets the body cap (SPEC 8.5).
BODY_CAPS: tuple[tuple[str, int], ...] = (
    ("/v1/api-keys", 16 * 1024),
    ("/v1", 256 * 1024),
)


def is_v1(path: str) -> bool:
    return path == "/v1" or path.startswith("/v1/")


def body_cap(path: str) -> int:
    for prefix, cap in BODY_CAPS:
        if path == prefix or path.startswith(prefix + "/"):
            return cap
    return BODY_CAPS[-1][1]


class ApiV1Middleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_v1(request.path):
            return self.get_response(request)
        response = self.refuse_early(request) or self.get_response(request)
        self.add_version_headers(request, response)
        return response

    def refuse_early(self, request):
        # Refused before any credential lookup, so a leaked token is never used.
        if request.META.get("QUERY_STRING") and "access_token" in request.GET:
            return render(request, "token_in_query", param="access_token")
        length = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(length)
        except ValueError:
            return render(request, "invalid_body", "Content-Length is not a number.")
        cap = body_cap(request.path)
        if length > cap:
            return render(request, "request_too_large", f"The request body is over the {cap // 1024} KB limit.")
        return None

    @staticmethod
    def add_version_headers(request, response):
        name = getattr(request, "api_version", None)
        if name is None:
            try:
                name = requested_version(request) or versions.CURRENT_VERSION
            except ApiError:
                name = versions.CURRENT_VERSION
        response["Service-Version"] = name
        version = versions.get_version(name)
        if version is not None:
            for header, value in version.deprecation_headers().items():
                response[header] = value
