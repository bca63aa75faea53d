"""Fuzzing the input guard (apps/core/inputs.py) with what JSON can carry and UTF-8 cannot.

A JSON string may hold a lone surrogate (``"\\ud800"``) and any control
character as an escape. Wherever one appears in a body, the answer is the
surface's 400 for that field, nothing is written, and never a 500.
"""

import contextlib
import json

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from apps.apikeys.models import ApiKey
from apps.audit.models import AuditEvent
from apps.core.inputs import find_in_json, forbidden_text, json_may_hold_forbidden_text
from apps.oauth.models import Application

from .checks import FUZZ, REGISTER_ERRORS, assert_oauth_error, assert_registered_envelope, fresh_budgets

surrogate = st.integers(0xD800, 0xDFFF).map(chr)
control = st.sampled_from([chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))])
plain = st.text(max_size=6)
bad_text = st.builds(lambda a, bad, b: a + bad + b, plain, st.one_of(surrogate, control), plain)
text = st.one_of(plain, bad_text)
json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), text),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)


def encodings(value) -> list[bytes]:
    """The bodies a client can send for ``value``: escaped always, raw UTF-8 when it has a UTF-8 form."""
    bodies = [json.dumps(value).encode()]
    with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate has no UTF-8 form: only its escape travels
        bodies.append(json.dumps(value, ensure_ascii=False).encode())
    return bodies


@FUZZ
@given(json_value)
def test_the_quick_scan_never_misses(value):
    found = find_in_json({"v": value})
    for body in encodings(value):
        assert json.loads(body) == value
        if found is not None:
            assert json_may_hold_forbidden_text(body), body


API_KEY_CODES = {
    "invalid_name",
    "invalid_scopes",
    "invalid_expiry",
    "invalid_ip_allowlist",
    "invalid_request",
    "invalid_body",
    "rate_limited",
}


def holds_forbidden(value) -> bool:
    return find_in_json({"v": value}) is not None


@pytest.mark.django_db
def test_api_key_bodies(user):
    client = Client()
    client.force_login(user)

    @FUZZ
    @given(
        name=text,
        scopes=st.one_of(st.just(["rates:read"]), st.lists(text, max_size=2)),
        extra=st.dictionaries(st.sampled_from(["ip_allowlist", "expires_in_days", "livemode"]), json_value, max_size=2),
    )
    def run(name, scopes, extra):
        fresh_budgets()
        ApiKey.objects.all().delete()
        before = AuditEvent.objects.count()
        payload = {"name": name, "scopes": scopes, **extra}
        response = client.post("/v1/api-keys", json.dumps(payload), content_type="application/json")
        if holds_forbidden(payload):
            error = assert_registered_envelope(response, API_KEY_CODES)
            assert response.status_code == 400
            if forbidden_text(name):
                assert error["code"] == "invalid_name" and error["param"] == "name"
            assert ApiKey.objects.count() == 0
            assert AuditEvent.objects.count() == before
        elif response.status_code != 201:
            assert_registered_envelope(response, API_KEY_CODES)

    run()


@pytest.mark.django_db
def test_registration_bodies():
    @FUZZ
    @given(
        client_name=text,
        redirect=st.one_of(st.just("https://client.example.com/cb"), text.map(lambda t: f"https://c.example/{t}")),
        extra=st.dictionaries(st.sampled_from(["client_uri", "application_type", "grant_types"]), json_value),
    )
    def run(client_name, redirect, extra):
        fresh_budgets()
        before = Application.objects.count()
        payload = {"client_name": client_name, "redirect_uris": [redirect], **extra}
        response = Client().post("/oauth/register", json.dumps(payload), content_type="application/json")
        if holds_forbidden(payload):
            assert_oauth_error(response, {"invalid_client_metadata", "invalid_redirect_uri"})
            assert Application.objects.count() == before
            if holds_forbidden(client_name):  # the first field that holds it names the code
                assert response.json()["error"] == "invalid_client_metadata"
        elif response.status_code != 201:
            assert_oauth_error(response, REGISTER_ERRORS)

    run()
