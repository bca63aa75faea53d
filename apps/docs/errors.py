"""What each error means to a client and what it should do: the one table of that prose.

The codes themselves, their statuses and types live in ``apps/core/errors.py``
(``REGISTRY``) for the envelope; this module only adds two sentences per code,
keyed by that registry, and a test fails when a registered code has none (or
when a sentence names a code the registry no longer has). The OAuth endpoints
answer with RFC 6749 / RFC 7591 codes (docs/spec.md 7.3) that have no registry of their
own: they are listed here once, with the endpoints that answer them.

Sentences may name ``{placeholders}`` filled from ``selectors.facts()`` (the base
URL, budget sizes, lifetimes), so a number in the prose is the number the code uses.
"""

from dataclasses import dataclass

from apps.core import errors as core


@dataclass(frozen=True)
class Guidance:
    when: str
    action: str


# docs/spec.md 7.1: what each coarse type means. A client that meets an unknown code acts on its type.
TYPE_GUIDANCE: dict[str, Guidance] = {
    core.INVALID_REQUEST: Guidance(
        "The request is malformed, a parameter is invalid, or the version is unknown or retired.",
        "Fix the request; retrying it unchanged gives the same answer.",
    ),
    core.AUTHENTICATION: Guidance(
        "No usable credential. The WWW-Authenticate header names where to start.",
        "Get a new credential (refresh once, sign in again, or use another key); do not loop on 401.",
    ),
    core.PERMISSION: Guidance(
        "The credential is valid but not allowed to do this: a missing scope, an address outside the "
        "key's allowlist, or a policy.",
        "Do not retry unchanged; ask the user for the missing permission.",
    ),
    core.NOT_FOUND: Guidance(
        "No such object or route. Objects of another account are also not found.",
        "Check the id or path.",
    ),
    core.CREDITS: Guidance(
        "A paid operation (a quote, a call) needs more credit than is available. Carries billing_url.",
        "Ask the user to top up at billing_url.",
    ),
    core.CALL: Guidance(
        "A destination the service or the carrier does not call.",
        "Tell the user the call cannot be placed to that destination.",
    ),
    core.IDEMPOTENCY: Guidance(
        "An Idempotency-Key conflict or a concurrent change of the same object.",
        "Follow the code: retry with the same key, or use a new key for a new request.",
    ),
    core.RATE_LIMIT: Guidance(
        "A request budget is spent. Carries Retry-After.",
        "Wait Retry-After seconds, with jitter, before the next request.",
    ),
    core.API: Guidance(
        "A fault on the server's side.",
        "Retry with backoff, with the same Idempotency-Key where one applies; quote the Request-Id if it persists.",
    ),
}

# Every code of ``core.REGISTRY`` (docs/spec.md 7.2), in the registry's order when rendered.
GUIDANCE: dict[str, Guidance] = {
    "invalid_request": Guidance(
        "A parameter or field failed validation; param names it. Also the answer to any other client error "
        "that has no more specific code.",
        "Fix the named parameter and send the request again.",
    ),
    "invalid_body": Guidance(
        "The body of a POST to /v1, /v1/api-keys or the consent decision could not be read as JSON of the "
        "expected shape.",
        "Send one JSON object with Content-Type: application/json, shaped as the API reference describes.",
    ),
    "invalid_version": Guidance(
        "The Service-Version header names a version this API does not know; the message lists the known ones.",
        "Send one of the listed versions, or omit the header to be served your pinned or the current version.",
    ),
    "version_sunset": Guidance(
        "The version the request would be served in is past its Sunset date.",
        "Move to a current version as the versions page describes, then send it in Service-Version.",
    ),
    "token_in_query": Guidance(
        "An access_token query parameter was sent to /v1 or /mcp. It is refused before any lookup.",
        "Send credentials only in the Authorization: Bearer header. Treat a token that was put in a URL as "
        "leaked: revoke it.",
    ),
    "invalid_token": Guidance(
        "No credential; an unknown, expired or revoked one; the wrong kind (a refresh token, or an API key at "
        "/mcp); a token bound to the other resource; an authorization ended by a disconnect or a password "
        "change; or no signed-in session on a session-only endpoint. WWW-Authenticate carries resource_metadata.",
        "Do not retry with the same credential. Refresh an OAuth access token once; if that fails, authorize "
        "again from the protected-resource metadata. Replace a dead API key; sign in again for session "
        "endpoints.",
    ),
    "insufficient_scope": Guidance(
        "The credential is valid but lacks the scope this operation needs; WWW-Authenticate names it in scope.",
        "Authorize again asking for that scope as well (a refresh can only narrow scopes), or use an API key "
        "that carries it.",
    ),
    "ip_not_allowed": Guidance(
        "An API key with an IP allowlist was used from an address outside the list.",
        "Call from an allowed address, or change the key's allowlist on the API keys page.",
    ),
    "forbidden": Guidance(
        "A policy refused the request and no more specific code applies, for example a web page calling /mcp "
        "from an origin the server does not allow.",
        "Do not retry unchanged; the message says what is not allowed.",
    ),
    "not_found": Guidance(
        "No object with that id in the caller's account and mode (objects of other accounts, and test objects "
        "seen with a live key, are not found either).",
        "Check the id, and that the credential belongs to the right account and mode.",
    ),
    "route_not_found": Guidance(
        "The path does not exist under /v1. The message links the OpenAPI document.",
        "Check the path against the API reference.",
    ),
    "method_not_allowed": Guidance(
        "The path exists but does not take this method; the Allow header lists the methods it does take.",
        "Use one of the methods in Allow.",
    ),
    "not_acceptable": Guidance(
        "The Accept header excludes application/json.",
        "Accept application/json, or leave the header out.",
    ),
    "unsupported_media_type": Guidance(
        "A body was sent with a content type other than application/json.",
        "Send the body as JSON with Content-Type: application/json.",
    ),
    "request_too_large": Guidance(
        "The body is over the cap: {v1_body_kb} KB on /v1 and /mcp, {keys_body_kb} KB on /v1/api-keys.",
        "Send a smaller body.",
    ),
    "invalid_limit": Guidance(
        "The list parameter limit is not an integer from 1 to 100; param is limit.",
        "Send a limit from 1 to 100, or leave it out for 10.",
    ),
    "invalid_cursor": Guidance(
        "starting_after or ending_before is not the id of an object of this list in the caller's account, or "
        "both were sent; param names the cursor.",
        "Pass the id of the last (or first) object of the page you received, and only one of the two.",
    ),
    "idempotency_key_required": Guidance(
        "A spending operation was sent without an Idempotency-Key header (no spending operation is live yet).",
        "Send a new UUID v4 as Idempotency-Key, and reuse it only to retry that same request.",
    ),
    "invalid_idempotency_key": Guidance(
        "Idempotency-Key is empty, longer than 255 characters, or not printable ASCII.",
        "Use a UUID v4.",
    ),
    "idempotency_in_progress": Guidance(
        "A request with the same Idempotency-Key is still being processed.",
        "Retry shortly with the same key: once the first request finishes, its stored response is returned.",
    ),
    "idempotency_key_reused": Guidance(
        "The Idempotency-Key was used in the last 24 hours for a different method, path or body (keys are "
        "scoped to the user and the credential).",
        "Use a new key for a new request; reuse a key only to retry exactly the same request.",
    ),
    "conflict": Guidance(
        "The request collided with another one changing the same object at the same moment.",
        "Retry it, with the same Idempotency-Key if it had one.",
    ),
    "rate_limited": Guidance(
        "A request budget is spent. Also the answer instead of 401 once a source has failed more than "
        "{bearer_failures} bearer checks in a minute.",
        "Wait the Retry-After seconds (add jitter) before the next request; the RateLimit headers show the "
        "budget. Cache /v1/me and the metadata documents.",
    ),
    "rate_limiter_unavailable": Guidance(
        "The rate limiter's store cannot be reached, and public paths fail closed. Retry-After: {limiter_retry_after}.",
        "Retry after Retry-After seconds, with backoff.",
    ),
    "internal_error": Guidance(
        "Something failed on the server. The message carries no internal detail.",
        "Retry with backoff (with the same Idempotency-Key where one applies). If it persists, contact support "
        "with the Request-Id.",
    ),
    "service_unavailable": Guidance(
        "A service the server depends on, such as its database, cannot be reached for a moment. "
        "Retry-After: {database_retry_after}.",
        "Retry after Retry-After seconds, with backoff.",
    ),
    "invalid_name": Guidance(
        "POST /v1/api-keys: name is empty, only spaces, or over 100 characters; param is name.",
        "Send a name of 1 to 100 characters.",
    ),
    "invalid_scopes": Guidance(
        "POST /v1/api-keys: scopes is empty or names a scope that does not exist; param is scopes.",
        "Send a non-empty list of scope names from the scope table.",
    ),
    "invalid_expiry": Guidance(
        "POST /v1/api-keys: expires_in_days is not an integer from 1 to 365; param is expires_in_days.",
        "Send 1 to 365, or leave it out for the default of 90 days.",
    ),
    "invalid_ip_allowlist": Guidance(
        "POST /v1/api-keys: too many entries, or an entry that is not an IPv4 or IPv6 address or CIDR range; "
        "param is ip_allowlist.",
        "Send addresses, or CIDR ranges without host bits such as 10.0.0.0/8.",
    ),
    "api_key_limit": Guidance(
        "The account already has 10 live keys (test keys count; revoked and expired keys do not).",
        "Revoke a key that is no longer used, then create the new one.",
    ),
    "api_key_revoked": Guidance(
        "Rotate was asked of a revoked key.",
        "Create a new key instead.",
    ),
    "api_key_expired": Guidance(
        "Rotate was asked of an expired key.",
        "Create a new key instead.",
    ),
    "api_key_not_found": Guidance(
        "No API key with that id in the account.",
        "List the keys to find the right id.",
    ),
    "transaction_not_found": Guidance(
        "The authorization request id does not exist.",
        "Start again from the app: it sends the browser to /oauth/authorize again.",
    ),
    "transaction_binding_failed": Guidance(
        "The authorization request was started in another browser, or by another signed-in user.",
        "Finish in the browser that started it, signed in as the same user, or start again from the app.",
    ),
    "transaction_decided": Guidance(
        "The authorization request was already allowed or denied.",
        "Nothing to do: the app already has its answer. Start again from the app for a new one.",
    ),
    "transaction_expired": Guidance(
        "More than {transaction_minutes} minutes passed between the request and the decision.",
        "Start again from the app.",
    ),
    "client_disabled": Guidance(
        "The service disabled this app.",
        "The app cannot be connected; contact its developer.",
    ),
    "confirmation_required": Guidance(
        "Allow was sent for a self-registered app that asks for a sensitive scope, without the confirmation "
        "(confirm_sensitive).",
        "Confirm on the consent page that you trust the app (send confirm_sensitive: true), or deny.",
    ),
    "invalid_decision": Guidance(
        "decision is not allow or deny.",
        "Send allow or deny.",
    ),
    "connection_not_found": Guidance(
        "DELETE /api/oauth/connections/{{client_id}} named an app that is not connected.",
        "List the connections to find the client_id; the app may already be disconnected.",
    ),
    "insufficient_credits": Guidance(
        "The available balance (the balance less what live calls hold) is below what the first billing "
        "increment of the call costs, at a quote or a placement. The body carries billing_url.",
        "Ask the user to top up at billing_url; do not retry until they have.",
    ),
    "number_not_opted_in": Guidance(
        "Messages of a number whose sharing switch is off (param number names it): the account holder has not "
        "let connected apps read that number's messages, or turned it off since. The message names the page.",
        "Ask the user to turn on message reading for that number on the sharing page; do not retry until they have.",
    ),
    "quote_expired": Guidance(
        "POST /v1/calls named a quote past its expires_at (a quote lives 10 minutes); param quote.",
        "Ask for a new quote, confirm its price with the user, and place that one.",
    ),
    "quote_used": Guidance(
        "POST /v1/calls named a quote that another request already placed; the message names that call. "
        "A retry with the same Idempotency-Key gets the first answer instead.",
        "Read the named call; a quote is placed once. Ask for a new quote to call again.",
    ),
    "call_in_progress": Guidance(
        "A callback call of this account and mode is still live (one at a time); the message names it. "
        "Inbound calls do not count.",
        "Wait until that call ends, or end it with POST /v1/calls/{{id}}/end, then place again.",
    ),
    "call_not_ended": Guidance(
        "POST /v1/calls/{{id}}/transcript named a call that is still live (queued, ringing or in progress).",
        "Wait until the call has ended (GET /v1/calls/{{id}} shows a final status), then ask again.",
    ),
    "call_not_recorded": Guidance(
        "POST /v1/calls/{{id}}/transcript named a call placed without record, so no audio exists to transcribe.",
        "Tell the user this call cannot be transcribed; quote the next call with record true if they want one.",
    ),
    "spend_limit_exceeded": Guidance(
        "A spend limit stops the quote or placement: the daily cap of the account or of this key or app, "
        "the calls to one number in an hour, or the destinations in a day. The message names which and when "
        "it frees up.",
        "Tell the user which limit was reached and when it frees up; do not retry before then.",
    ),
    "user_confirmation_required": Guidance(
        "The account holder must say yes on the service's own page first: this app's connection asks first, "
        "or it received message bodies in the last 60 minutes and wants to place a call or aim a webhook "
        "endpoint. confirm_url is that page; a declined quote also says decision: declined.",
        "Give the user confirm_url to open while signed in; once they press Confirm, send the same request "
        "again. Never open or confirm it yourself. After Decline, do not retry.",
    ),
    "destination_not_allowed": Guidance(
        "The number is one the service does not call: premium-rate, shared-cost, an international network "
        "(+881, +882, +883) or a blocked prefix; param to.",
        "Tell the user the call cannot be placed to that number; another number of the contact may work.",
    ),
    "webhook_endpoint_limit": Guidance(
        "The account already has 16 webhook endpoints in this mode (disabled ones count).",
        "Delete an endpoint you no longer use, or subscribe an existing one to more event types.",
    ),
    "invalid_url": Guidance(
        "A webhook url that is not https (live mode), carries user:password@ or a #fragment, or resolves to "
        "an address that is not public. Where the operator allows loopback (WEBHOOK_ALLOW_LOOPBACK, a "
        "development server's default), test mode also takes http on loopback (127.0.0.1, ::1, localhost).",
        "Use a public https URL; to receive events on your machine, expose your receiver through an https tunnel "
        "(or, on a development server of your own, use http://127.0.0.1:PORT/...).",
    ),
}


@dataclass(frozen=True)
class Case:
    where: str
    status: str
    when: str


@dataclass(frozen=True)
class OAuthError:
    code: str
    cases: tuple[Case, ...]
    action: str


TOKEN = "POST /oauth/token"
REVOKE = "POST /oauth/revoke"
AUTHORIZE = "GET /oauth/authorize"
REGISTER = "POST /oauth/register"

# docs/spec.md 7.3: the body is {"error": code, "error_description": text}; never the envelope.
OAUTH_ERRORS: tuple[OAuthError, ...] = (
    OAuthError(
        "invalid_request",
        (
            Case(
                f"{TOKEN}, {REVOKE}",
                "400",
                "A required form field is missing (code grant: grant_type, code, code_verifier, client_id, "
                "redirect_uri, resource; refresh: refresh_token, client_id), the body is not form-encoded, or "
                "revoke has no token.",
            ),
            Case(
                AUTHORIZE,
                "error page",
                "redirect_uri is not registered for the client; the browser is never redirected to it.",
            ),
            Case(
                AUTHORIZE,
                "redirect",
                "state, code_challenge or code_challenge_method is missing, or the method is not S256.",
            ),
        ),
        "Send every required field, form-encoded in the body (never the query string), with PKCE S256 and a state.",
    ),
    OAuthError(
        "invalid_client",
        (
            Case(
                AUTHORIZE,
                "error page",
                "client_id is unknown (registrations never used are purged after {purge_days} days), its client "
                "metadata document cannot be fetched or is invalid, or the client is disabled.",
            ),
        ),
        "Check the client_id. A metadata document must be served over https with client_id equal to its URL; "
        "a dcr_ client that was purged registers again.",
    ),
    OAuthError(
        "invalid_grant",
        (
            Case(
                TOKEN,
                "400",
                "The code or refresh token is unknown, expired, already used, issued to another client, or bound "
                "to another redirect_uri or resource, or the PKCE code_verifier does not match. Reusing a rotated "
                "refresh token revokes its whole grant family; {credential_failures} failed exchanges with one "
                "credential within {credential_failure_window_minutes} minutes revoke it.",
            ),
        ),
        "Do not retry with the same code or token: send the user through authorize again. Store each new refresh "
        "token before using the access token that came with it; the previous one stops working.",
    ),
    OAuthError(
        "invalid_scope",
        (
            Case(TOKEN, "400", "A refresh asked for a scope the grant does not hold."),
            Case(AUTHORIZE, "redirect", "scope is empty or names an unknown scope."),
        ),
        "Ask only for scopes of the scope table. A refresh may narrow scopes, never widen them: for more, "
        "authorize again.",
    ),
    OAuthError(
        "unsupported_grant_type",
        (Case(TOKEN, "400", "grant_type is neither authorization_code nor refresh_token."),),
        "Use one of these two; there is no client-credentials or password grant.",
    ),
    OAuthError(
        "unsupported_response_type",
        (Case(AUTHORIZE, "redirect", "response_type is not code."),),
        "Send response_type=code.",
    ),
    OAuthError(
        "invalid_target",
        (
            Case(
                AUTHORIZE,
                "redirect",
                "resource is missing, repeated, or not exactly {base_url}/v1 or {base_url}/mcp.",
            ),
        ),
        "Send resource once, with exactly one of the two values, and the same value on the code exchange.",
    ),
    OAuthError(
        "access_denied",
        (Case(AUTHORIZE, "redirect", "The user chose Deny."),),
        "Respect the choice; offer to connect again only when the user asks.",
    ),
    OAuthError(
        "temporarily_unavailable",
        (
            Case(
                f"{TOKEN}, {REVOKE}",
                "429",
                "The source is backing off ({exchange_failures_ip} failed exchanges in a minute: "
                "{exchange_backoff} s), the grant family was refreshed more than {grant_family} times in a "
                "minute, or the flood guard tripped (burst {token_flood_burst}, then {token_flood_rate} a "
                "minute). Carries Retry-After.",
            ),
            Case(
                "any /oauth endpoint",
                "503",
                "The rate limiter or the database cannot be reached. Retry-After: {limiter_retry_after}.",
            ),
            Case(
                REGISTER,
                "503",
                "Registration is closed: {registration_cap:,} self-registered clients exist. "
                "Retry-After: {registration_retry_after}.",
            ),
        ),
        "Wait Retry-After seconds before trying again. Refresh once per access-token lifetime, never in a loop.",
    ),
    OAuthError(
        "server_error",
        (
            Case(TOKEN, "500", "The exchange failed on the server."),
            Case(AUTHORIZE, "redirect", "The authorization request could not be stored."),
        ),
        "Retry once after a short wait, then start the authorization again; quote the Request-Id to support.",
    ),
    OAuthError(
        "invalid_client_metadata",
        (
            Case(
                REGISTER,
                "400",
                "The body is not a JSON object; application_type is not web or native; "
                "token_endpoint_auth_method is not none; a grant or response type is not supported; client_name "
                "is over {max_client_name} characters; or client_uri is not an http(s) URL.",
            ),
        ),
        "Fix the field that error_description names and register again.",
    ),
    OAuthError(
        "invalid_redirect_uri",
        (
            Case(
                REGISTER,
                "400",
                "More than {max_redirect_uris} redirect URIs; a URI that is neither https nor http loopback; a "
                "fragment, userinfo or wildcard; or a web client's URI that is not https.",
            ),
        ),
        "Register https URIs, or for a native app http://127.0.0.1, http://localhost or http://[::1] on any port.",
    ),
)
