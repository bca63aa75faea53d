"""The one registry of error codes (docs/spec.md 7.2) and the exception that carries them.

Each code maps to its HTTP status, its coarse type and a default message that is
safe to show to an end user. Raise ``ApiError("code")`` anywhere; one renderer
turns it into the envelope.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorCode:
    status: int
    type: str
    message: str


INVALID_REQUEST = "invalid_request_error"
AUTHENTICATION = "authentication_error"
PERMISSION = "permission_error"
NOT_FOUND = "not_found_error"
CREDITS = "insufficient_credits_error"
CALL = "call_error"
IDEMPOTENCY = "idempotency_error"
RATE_LIMIT = "rate_limit_error"
API = "api_error"

REGISTRY: dict[str, ErrorCode] = {
    "invalid_request": ErrorCode(400, INVALID_REQUEST, "The request is not valid."),
    "invalid_body": ErrorCode(400, INVALID_REQUEST, "The request body could not be read as the expected JSON."),
    "invalid_version": ErrorCode(400, INVALID_REQUEST, "Unknown Service-Version."),
    "version_sunset": ErrorCode(410, INVALID_REQUEST, "This API version has been retired."),
    "token_in_query": ErrorCode(
        400,
        INVALID_REQUEST,
        "Access tokens are not accepted in the query string. Send them in the Authorization header.",
    ),
    "invalid_token": ErrorCode(401, AUTHENTICATION, "The access token is missing, invalid or expired."),
    "insufficient_scope": ErrorCode(403, PERMISSION, "The token lacks the scope this operation needs."),
    "ip_not_allowed": ErrorCode(403, PERMISSION, "This API key may not be used from your address."),
    "forbidden": ErrorCode(403, PERMISSION, "This request is not allowed."),
    "not_found": ErrorCode(404, NOT_FOUND, "No such object."),
    "route_not_found": ErrorCode(404, NOT_FOUND, "Unknown API route."),
    "method_not_allowed": ErrorCode(405, INVALID_REQUEST, "This method is not allowed on this path."),
    "not_acceptable": ErrorCode(406, INVALID_REQUEST, "This API only returns application/json."),
    "unsupported_media_type": ErrorCode(415, INVALID_REQUEST, "Send the request body as application/json."),
    "request_too_large": ErrorCode(413, INVALID_REQUEST, "The request body is too large."),
    "invalid_limit": ErrorCode(400, INVALID_REQUEST, "limit must be an integer from 1 to 100."),
    "invalid_cursor": ErrorCode(400, INVALID_REQUEST, "The cursor is not valid for this list."),
    "idempotency_key_required": ErrorCode(400, INVALID_REQUEST, "This operation requires an Idempotency-Key header."),
    "invalid_idempotency_key": ErrorCode(
        400, INVALID_REQUEST, "Idempotency-Key must be 1 to 255 printable ASCII characters."
    ),
    "idempotency_in_progress": ErrorCode(
        409, IDEMPOTENCY, "A request with this Idempotency-Key is still in progress. Retry shortly."
    ),
    "idempotency_key_reused": ErrorCode(
        409, IDEMPOTENCY, "This Idempotency-Key was already used for a different request."
    ),
    "conflict": ErrorCode(409, IDEMPOTENCY, "The request conflicted with another request. Retry it."),
    "rate_limited": ErrorCode(429, RATE_LIMIT, "Too many requests."),
    "rate_limiter_unavailable": ErrorCode(503, API, "The service is temporarily unavailable. Retry in a few seconds."),
    "internal_error": ErrorCode(500, API, "Something went wrong on our side. Please retry."),
    "service_unavailable": ErrorCode(503, API, "The service is temporarily unavailable. Retry in a few seconds."),
    "invalid_name": ErrorCode(400, INVALID_REQUEST, "name must be 1 to 100 characters."),
    "invalid_scopes": ErrorCode(400, INVALID_REQUEST, "scopes must be a non-empty list of known scopes."),
    "invalid_expiry": ErrorCode(400, INVALID_REQUEST, "expires_in_days must be an integer from 1 to 365."),
    "invalid_ip_allowlist": ErrorCode(
        400, INVALID_REQUEST, "ip_allowlist must be a list of IP addresses or CIDR ranges."
    ),
    "api_key_limit": ErrorCode(409, INVALID_REQUEST, "You already have 10 live API keys. Revoke one first."),
    "api_key_revoked": ErrorCode(409, INVALID_REQUEST, "This API key is revoked and cannot be rotated."),
    "api_key_expired": ErrorCode(409, INVALID_REQUEST, "This API key has expired and cannot be rotated."),
    "api_key_not_found": ErrorCode(404, NOT_FOUND, "No such API key."),
    "transaction_not_found": ErrorCode(404, NOT_FOUND, "No such authorization request."),
    "transaction_binding_failed": ErrorCode(
        403, PERMISSION, "This authorization request was started in another browser or by another user."
    ),
    "transaction_decided": ErrorCode(409, IDEMPOTENCY, "This authorization request was already decided."),
    "transaction_expired": ErrorCode(
        410, INVALID_REQUEST, "This authorization request has expired. Start again from the app."
    ),
    "client_disabled": ErrorCode(403, PERMISSION, "This app has been disabled."),
    "confirmation_required": ErrorCode(400, INVALID_REQUEST, "Confirm that you trust this app with sensitive access."),
    "invalid_decision": ErrorCode(400, INVALID_REQUEST, "decision must be allow or deny."),
    "connection_not_found": ErrorCode(404, NOT_FOUND, "No such connected app."),
    "insufficient_credits": ErrorCode(402, CREDITS, "Your balance is too low for this operation."),
    "number_not_opted_in": ErrorCode(
        403, PERMISSION, "The account holder has not turned on message reading for this number."
    ),
    "quote_expired": ErrorCode(410, INVALID_REQUEST, "This quote has expired. Ask for a new quote."),
    "quote_used": ErrorCode(409, INVALID_REQUEST, "This quote was already placed as a call."),
    "call_in_progress": ErrorCode(409, INVALID_REQUEST, "A callback call of this account is already live."),
    "call_not_ended": ErrorCode(
        409, INVALID_REQUEST, "This call is still live; ask for its transcript once it has ended."
    ),
    "call_not_recorded": ErrorCode(
        409, INVALID_REQUEST, "This call was placed without record, so there is nothing to transcribe."
    ),
    "spend_limit_exceeded": ErrorCode(403, PERMISSION, "A spend limit of this account has been reached."),
    "user_confirmation_required": ErrorCode(
        403, PERMISSION, "The account holder must confirm this on the service's own page first (confirm_url)."
    ),
    "destination_not_allowed": ErrorCode(422, CALL, "Calls to this destination are not allowed."),
    "webhook_endpoint_limit": ErrorCode(
        409, INVALID_REQUEST, "You already have 16 webhook endpoints in this mode. Delete one first."
    ),
    "invalid_url": ErrorCode(
        400,
        INVALID_REQUEST,
        "url must be an https URL without credentials or a fragment, on a public address "
        "(test mode also takes http on loopback).",
    ),
}


class ApiError(Exception):
    """An error answered with the envelope of docs/spec.md 2.4."""

    def __init__(
        self,
        code: str,
        message: str | None = None,
        *,
        param: str | None = None,
        headers: dict[str, str] | None = None,
        extra: dict | None = None,
    ):
        if code not in REGISTRY:
            raise KeyError(f"unregistered error code {code!r}")
        self.code = code
        self.entry = REGISTRY[code]
        self.message = message or self.entry.message
        self.param = param
        self.headers = headers or {}
        # Fields of the envelope's error object beyond the common ones (confirm_url).
        self.extra = extra or {}
        super().__init__(self.message)

    @property
    def status(self) -> int:
        return self.entry.status
