"""The ``Authorization: Bearer`` header (RFC 6750 2.1): the only place a bearer secret is read from."""


def bearer_from_header(request) -> str | None:
    """The token of an ``Authorization: Bearer`` header; None without the header, '' when it is malformed."""
    header = request.META.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or " " in token.strip():
        return ""
    return token.strip()
