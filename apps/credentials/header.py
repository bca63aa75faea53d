"""The ``Authorization: Bearer`` header (RFC 6750 2.1): the only place a bearer secret is read from."""

SCHEME_MISSING_MESSAGE = (
    "The Authorization header has no Bearer scheme. Send the key or token after the word Bearer and a space: "
    "Authorization: Bearer <token>."
)
MALFORMED_MESSAGE = "The Authorization header is malformed. Send one key or token as Authorization: Bearer <token>."


def bearer_from_header(request) -> str | None:
    """The token of an ``Authorization: Bearer`` header; None without the header, '' when it is malformed."""
    header = request.META.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or " " in token.strip():
        return ""
    return token.strip()


def malformed_header_message(request) -> str:
    """What to say about a header ``bearer_from_header`` found malformed; it never echoes the header,
    which may hold a working secret sent without its scheme (``Authorization: sk_live_...``)."""
    scheme = request.META.get("HTTP_AUTHORIZATION", "").strip().partition(" ")[0]
    return MALFORMED_MESSAGE if scheme.lower() == "bearer" else SCHEME_MISSING_MESSAGE
