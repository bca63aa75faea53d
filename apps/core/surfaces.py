"""Which machine surface a path belongs to, and how that surface answers a request it cannot read.

Each surface answers errors in one shape (docs/spec.md 7): the envelope on
/v1, /mcp and the session API under /api/, the RFC 6749 5.2 body on the
OAuth endpoints (RFC 7591 3.2.2 on /oauth/register). Django's own refusals
(too many fields, a body over its cap, an unserved Host: ``views.handler400``)
and the input guard (``inputs.py``) answer with the surface's code for a
request it cannot accept. Paths of no surface are pages: they keep Django's pages.
"""

import functools
from dataclasses import dataclass, field

ENVELOPE = "envelope"
OAUTH = "oauth"

# How the input guard reads a surface's body.
JSON = "json"  # when sent as application/json (DRF parses nothing else)
JSON_ANY = "json_any"  # whatever the Content-Type: the view parses the body as JSON regardless
FORM = "form"  # application/x-www-form-urlencoded


@dataclass(frozen=True)
class Surface:
    name: str
    shape: str
    bad_request: str  # the code answering a request the surface cannot accept
    body: str | None = None  # how the input guard reads the body; None: it leaves the body alone
    query: bool = True  # whether the input guard reads the query string
    # The largest body the surface reads (docs/spec.md 8.5); None: Django's own cap.
    body_cap: int | None = None
    # Fields with a code of their own on every endpoint of the surface (a view adds its own
    # in ``text_field_errors``).
    field_errors: dict[str, str] = field(default_factory=dict)


# The list parameters of docs/spec.md 4, on every /v1 list.
V1_FIELD_ERRORS = {"limit": "invalid_limit", "starting_after": "invalid_cursor", "ending_before": "invalid_cursor"}


# (exact path, or prefix ending in "/"; surface). A path also matches a prefix given
# without its trailing slash ("/v1" matches "/v1" and "/v1/me"). First match wins.
SURFACES: tuple[tuple[str, Surface], ...] = (
    (
        "/v1",
        Surface("v1", ENVELOPE, "invalid_request", body=JSON, field_errors=V1_FIELD_ERRORS, body_cap=256 * 1024),
    ),
    # JSON-RPC answers for its own body: bad arguments are JSON-RPC errors (docs/spec.md 7.4).
    ("/mcp", Surface("mcp", ENVELOPE, "invalid_request", body_cap=256 * 1024)),
    ("/api/", Surface("session_api", ENVELOPE, "invalid_request", body=JSON_ANY)),
    ("/oauth/token", Surface("token", OAUTH, "invalid_request", body=FORM)),
    # Revocation answers 200 for any token that is given, known or not (docs/spec.md 4.3).
    ("/oauth/revoke", Surface("revoke", OAUTH, "invalid_request")),
    (
        "/oauth/register",
        Surface(
            "register",
            OAUTH,
            "invalid_client_metadata",
            body=JSON_ANY,
            field_errors={"redirect_uris": "invalid_redirect_uri"},  # RFC 7591 3.2.2
            body_cap=16 * 1024,
        ),
    ),
    ("/.well-known/", Surface("metadata", ENVELOPE, "invalid_request", query=False)),
    # A carrier's callbacks: its adapter reads the body (a form, signed); every error is JSON.
    ("/carrier/", Surface("carrier", ENVELOPE, "invalid_request", query=False)),
)


@functools.lru_cache(maxsize=1024)  # asked on every request, of a handful of paths
def surface_of(path: str) -> Surface | None:
    for prefix, surface in SURFACES:
        if prefix.endswith("/"):
            if path.startswith(prefix):
                return surface
        elif path == prefix or path.startswith(prefix + "/"):
            return surface
    return None


# docs/spec.md 7.3: rate limits and lockouts on /oauth/* (the authorize page included)
# answer in the RFC 6749 body.
OAUTH_PREFIX = "/oauth/"
# The MCP endpoint is exactly this path (never a trailing-slash variant, so a POST is never redirected).
MCP_PATH = "/mcp"
# Cross-origin access (django-cors-headers): the public machine endpoints, never with
# credentials. /mcp is enabled per request, for the origins its own check admits.
CORS_URLS_REGEX = r"^/(v1(/.*)?|oauth/(token|revoke|register)|\.well-known/.*)$"


def is_v1(path: str) -> bool:
    surface = surface_of(path)
    return surface is not None and surface.name == "v1"


def is_bearer_surface(path: str) -> bool:
    """/v1 and /mcp, called with a bearer credential (docs/spec.md 4.1, 4.7)."""
    return path == MCP_PATH or is_v1(path)


def speaks_envelope(path: str) -> bool:
    """Whether a not-found or server fault on this path answers the envelope (the discovery
    documents are fixed paths: anything else under /.well-known/ is a page's 404)."""
    surface = surface_of(path)
    return surface is not None and surface.shape == ENVELOPE and surface.name != "metadata"


def is_oauth(path: str) -> bool:
    return path.startswith(OAUTH_PREFIX)


def body_cap(path: str) -> int | None:
    surface = surface_of(path)
    return None if surface is None else surface.body_cap


def declared_length(request) -> int | None:
    """The body length the request declares (Content-Length; 0 without one), or None when the
    header is not a number: read before the body, so an oversized body is refused unread."""
    value = request.META.get("CONTENT_LENGTH") or "0"
    return int(value) if value.isascii() and value.isdigit() else None


# Django reads no body larger than the largest surface's cap (a surface answers its own 413 first).
LARGEST_BODY_CAP = max(s.body_cap for _prefix, s in SURFACES if s.body_cap)
