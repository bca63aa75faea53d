"""What every fuzzed response must satisfy: no 500, no stack trace, only the spec's codes and shapes."""

import json
import socket

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from apps.core.errors import REGISTRY

# Bounded so the whole fuzz package stays well under two minutes (about 30 s on PostgreSQL).
FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)

# docs/spec.md 7.3, token and revocation endpoints (invalid_client: an unknown or disabled client_id).
TOKEN_ERRORS = {
    "invalid_request",
    "invalid_grant",
    "invalid_scope",
    "unsupported_grant_type",
    "invalid_client",
    "temporarily_unavailable",
}
REGISTER_ERRORS = {"invalid_client_metadata", "invalid_redirect_uri", "temporarily_unavailable"}
AUTHORIZE_REDIRECT_ERRORS = {
    "invalid_request",
    "unsupported_response_type",
    "invalid_target",
    "invalid_scope",
    "access_denied",
    "server_error",
}
TRACE_MARKERS = (b"Traceback (most recent call last)", b'File "/', b"site-packages", b"django.db.utils")

# Text that exercises the awkward corners: NUL and control characters, very long
# strings, unicode, URL syntax. Lone surrogates, which only a JSON escape can carry,
# are fuzzed in test_input_guard.py.
nasty_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x1F), max_size=10),
    st.sampled_from(["", " ", "\x00", "%00", "null", "[]", "{}", "a" * 3000, "é", "🙂", "..", "../..", "%", "+"]),
    st.from_regex(r"[a-z]{1,8}://[a-z0-9.\[\]:@#*]{0,30}(/[a-z0-9%?#=&]{0,20})?", fullmatch=True),
)


def no_trace(response):
    content = response.content if hasattr(response, "content") else b""
    for marker in TRACE_MARKERS:
        assert marker not in content, content[:2000]


def assert_not_server_error(response):
    assert response.status_code < 500 or response.status_code == 503, response.content[:2000]
    no_trace(response)


def assert_oauth_error(response, allowed: set[str]):
    """docs/spec.md 7.3 shape: {"error", "error_description"?}, never the envelope, never cached."""
    assert_not_server_error(response)
    assert response["Content-Type"].startswith("application/json")
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert isinstance(body, dict)
    assert set(body) <= {"error", "error_description"}, body
    assert body["error"] in allowed, body
    if "error_description" in body:
        assert isinstance(body["error_description"], str)
    if body["error"] == "temporarily_unavailable":
        assert response.status_code in (429, 503)
        assert int(response["Retry-After"]) >= 1
    elif body["error"] == "invalid_client":
        assert response.status_code in (400, 401)
    else:
        assert response.status_code == 400, (response.status_code, body)
    assert "Request-Id" in response


def assert_registered_envelope(response, allowed: set[str] | None = None):
    """docs/spec.md 2.4: the envelope, a registered code with its registered status and type."""
    assert_not_server_error(response)
    assert response["Content-Type"] == "application/json"
    # Session endpoints add Django's never_cache directives beside no-store.
    assert "no-store" in [d.strip() for d in response["Cache-Control"].split(",")]
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert {"type", "code", "message", "param", "doc_url", "request_id"} <= set(error)
    code = error["code"]
    assert code in REGISTRY, code
    assert response.status_code == REGISTRY[code].status, (response.status_code, code)
    assert error["type"] == REGISTRY[code].type
    assert error["request_id"] == response["Request-Id"]
    assert isinstance(error["message"], str) and error["message"]
    assert error["param"] is None or isinstance(error["param"], str)
    if allowed is not None:
        assert code in allowed, code
    return error


def is_json(response) -> bool:
    try:
        json.loads(response.content)
    except ValueError:
        return False
    return True


@pytest.fixture
def no_network(monkeypatch):
    """Client metadata documents are never fetched from the internet during fuzzing."""

    def refuse(*args, **kwargs):
        raise socket.gaierror("fuzzing: no network")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def fresh_budgets():
    from apps.ratelimit.testing import clear_budgets

    clear_budgets()


def json_values(max_leaves: int = 8):
    """Any JSON document: scalars, lists and objects nested a few levels."""
    scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), nasty_text)
    return st.recursive(
        scalar,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(nasty_text, inner, max_size=3),
        max_leaves=max_leaves,
    )
