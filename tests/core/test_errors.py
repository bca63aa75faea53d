"""The registry holds every code of docs/spec.md 7.2 with exactly the status and type the spec gives."""

import pytest

from apps.core.errors import REGISTRY, ApiError

# Quoted from docs/spec.md 7.2: code, status, type.
SPEC_7_2 = """
invalid_request 400 invalid_request_error
invalid_body 400 invalid_request_error
invalid_version 400 invalid_request_error
version_sunset 410 invalid_request_error
token_in_query 400 invalid_request_error
invalid_token 401 authentication_error
insufficient_scope 403 permission_error
ip_not_allowed 403 permission_error
forbidden 403 permission_error
not_found 404 not_found_error
route_not_found 404 not_found_error
method_not_allowed 405 invalid_request_error
not_acceptable 406 invalid_request_error
unsupported_media_type 415 invalid_request_error
request_too_large 413 invalid_request_error
invalid_limit 400 invalid_request_error
invalid_cursor 400 invalid_request_error
idempotency_key_required 400 invalid_request_error
invalid_idempotency_key 400 invalid_request_error
idempotency_in_progress 409 idempotency_error
idempotency_key_reused 409 idempotency_error
conflict 409 idempotency_error
rate_limited 429 rate_limit_error
rate_limiter_unavailable 503 api_error
internal_error 500 api_error
invalid_name 400 invalid_request_error
invalid_scopes 400 invalid_request_error
invalid_expiry 400 invalid_request_error
invalid_ip_allowlist 400 invalid_request_error
api_key_limit 409 invalid_request_error
api_key_revoked 409 invalid_request_error
api_key_expired 409 invalid_request_error
api_key_not_found 404 not_found_error
transaction_not_found 404 not_found_error
transaction_binding_failed 403 permission_error
transaction_decided 409 idempotency_error
transaction_expired 410 invalid_request_error
client_disabled 403 permission_error
confirmation_required 400 invalid_request_error
invalid_decision 400 invalid_request_error
connection_not_found 404 not_found_error
"""
ROWS = [line.split() for line in SPEC_7_2.strip().splitlines()]

# docs/spec.md 7.1: the statuses each type may carry.
TYPE_STATUSES = {
    "invalid_request_error": {400, 405, 406, 409, 410, 413, 415},
    "authentication_error": {401},
    "permission_error": {403},
    "not_found_error": {404},
    "insufficient_credits_error": {402},
    "call_error": {422},
    "idempotency_error": {409},
    "rate_limit_error": {429},
    "api_error": {500, 503},
}


@pytest.mark.parametrize(("code", "status", "type_"), ROWS, ids=[r[0] for r in ROWS])
def test_every_spec_code_is_registered_with_its_status_and_type(code, status, type_):
    entry = REGISTRY[code]
    assert (entry.status, entry.type) == (int(status), type_)


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_every_registered_code_fits_its_type(code):
    entry = REGISTRY[code]
    assert entry.status in TYPE_STATUSES[entry.type]
    assert entry.message.strip()


def test_unregistered_code_cannot_be_raised():
    with pytest.raises(KeyError):
        ApiError("made_up_code")
