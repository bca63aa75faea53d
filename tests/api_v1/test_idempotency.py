"""Idempotency-Key on /v1 writes (docs/spec.md 4, 7.2, 8.5), through the API-key endpoints
and test-only views that stand in for the planned spending operations."""

import json
import uuid
from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver, include, path
from django.utils import timezone
from rest_framework.response import Response
from rest_framework.test import APIClient
from rest_framework.views import APIView

from apps.api_v1.idempotency import (
    Claim,
    IdempotentMixin,
    idempotency_claim,
    idempotency_complete,
    request_fingerprint,
)
from apps.api_v1.models import IdempotencyRecord
from apps.api_v1.urls import CATCH_ALL
from apps.apikeys.services import apikey_create
from apps.core.errors import ApiError
from tests.support.factories import UserFactory, make_api_key

KEY = "8e5b6f1c-3d2a-4b7e-9c0f-1a2b3c4d5e6f"
CALLS = []


class CountingView(IdempotentMixin, APIView):
    """A write that counts its executions; answers 201 with the count."""

    def post(self, request):
        CALLS.append(request.data)
        return Response({"n": len(CALLS), "echo": request.data}, status=201)

    def delete(self, request):
        CALLS.append("delete")
        return Response({"n": len(CALLS)})


class RichView(IdempotentMixin, APIView):
    """Answers values that only DRF's encoder can write."""

    def post(self, request):
        CALLS.append("rich")
        return Response({"at": timezone.now(), "amount": Decimal("1.10"), "id": uuid.uuid4()}, status=201)


class NulView(IdempotentMixin, APIView):
    """Answers text holding NUL: a stored value may (a request may not: apps/core/inputs.py)."""

    def post(self, request):
        CALLS.append("nul")
        return Response({"a": "nul\u0000byte"}, status=201)


class SpendingView(CountingView):
    """Stands in for POST /v1/calls: a spending operation needs the header."""

    idempotency_key_required = True


class CrashingView(IdempotentMixin, APIView):
    """Writes, then fails: the write must roll back and the key be released."""

    def post(self, request):
        CALLS.append("crash")
        apikey_create(user=request.user, name="half-made", scopes=["rates:read"])
        raise RuntimeError("boom")


class RefusingView(IdempotentMixin, APIView):
    """A handler that answers a 4xx Response without raising."""

    def post(self, request):
        CALLS.append("refuse")
        return Response({"error": "nope"}, status=409)


urlpatterns = [
    path("v1/_count", CountingView.as_view()),
    path("v1/_count/other", CountingView.as_view()),
    path("v1/_spend", SpendingView.as_view()),
    path("v1/_rich", RichView.as_view()),
    path("v1/_nul", NulView.as_view()),
    path("v1/_crash", CrashingView.as_view()),
    path("v1/_refuse", RefusingView.as_view()),
    path("", include("config.urls")),
    *CATCH_ALL,
]
handler404 = "apps.core.views.handler404"
handler500 = "apps.core.views.handler500"

pytestmark = pytest.mark.urls(__name__)


@pytest.fixture(autouse=True)
def _reset_calls():
    CALLS.clear()


@pytest.fixture
def dashboard(user):
    client = APIClient()
    client.force_login(user)
    return client


def post(client, url, body=None, key=KEY, **extra):
    if key is not None:
        extra["HTTP_IDEMPOTENCY_KEY"] = key
    return client.post(url, body if body is not None else {"a": 1}, format="json", **extra)


def error_of(response, code, status):
    assert response.status_code == status, response.content
    assert response["Cache-Control"] == "no-store"
    error = response.json()["error"]
    assert error["code"] == code
    return error


# --- replay -----------------------------------------------------------------------------


def test_without_the_header_every_request_executes(api, bearer):
    assert post(api, "/v1/_count", key=None, **bearer).json()["n"] == 1
    assert post(api, "/v1/_count", key=None, **bearer).json()["n"] == 2


def test_same_key_same_request_executes_once_and_replays(api, bearer):
    first = post(api, "/v1/_count", {"a": 1}, **bearer)
    second = post(api, "/v1/_count", {"a": 1}, **bearer)
    assert first.status_code == second.status_code == 201
    assert "Idempotent-Replayed" not in first
    assert second["Idempotent-Replayed"] == "true"
    assert second.json() == first.json() == {"n": 1, "echo": {"a": 1}}
    assert len(CALLS) == 1
    # A replay is still a normal /v1 response.
    assert second["Service-Version"] == "2026-10-01"
    assert second["Request-Id"] != first["Request-Id"]


def test_replay_is_byte_identical_for_values_only_drf_can_encode(api, bearer):
    first = post(api, "/v1/_rich", **bearer)
    second = post(api, "/v1/_rich", **bearer)
    assert first.status_code == second.status_code == 201
    assert second.content == first.content
    assert CALLS == ["rich"]


def test_a_response_holding_nul_is_stored_and_replayed(api, bearer):
    first = post(api, "/v1/_nul", **bearer)
    second = post(api, "/v1/_nul", **bearer)
    assert second["Idempotent-Replayed"] == "true"
    assert second.content == first.content
    assert second.json() == {"a": "nul\x00byte"}
    assert CALLS == ["nul"]


def test_a_request_holding_nul_is_refused_before_anything_is_stored(api, bearer, dashboard):
    refused = post(api, "/v1/_count", {"a": "nul\u0000byte"}, **bearer)
    assert refused.json()["error"]["code"] == "invalid_request"
    response = post(dashboard, "/v1/api-keys/key_%00x/rotate")
    assert response.json()["error"]["code"] == "invalid_request"
    assert CALLS == []
    assert not IdempotencyRecord.objects.exists()


def test_json_key_order_does_not_make_a_different_request(api, bearer):
    a = api.post("/v1/_count", '{"a": 1, "b": 2}', content_type="application/json", HTTP_IDEMPOTENCY_KEY=KEY, **bearer)
    b = api.post("/v1/_count", '{"b":2,"a":1}', content_type="application/json", HTTP_IDEMPOTENCY_KEY=KEY, **bearer)
    assert a.status_code == 201
    assert b["Idempotent-Replayed"] == "true"
    assert len(CALLS) == 1


def test_replayed_create_returns_the_record_with_a_null_secret(dashboard, user):
    body = {"name": "deploy", "scopes": ["rates:read"]}
    first = post(dashboard, "/v1/api-keys", body)
    second = post(dashboard, "/v1/api-keys", body)
    assert first.status_code == second.status_code == 201
    assert first.json()["secret"].startswith("sk_live_")
    assert second["Idempotent-Replayed"] == "true"
    assert second.json() == {**first.json(), "secret": None}
    assert user.api_keys.count() == 1
    # Nothing plaintext at rest: the stored response holds no secret.
    record = IdempotencyRecord.objects.get()
    assert json.loads(record.response_body)["secret"] is None
    assert first.json()["secret"] not in record.response_body


def test_replayed_rotate_does_not_rotate_again(dashboard, user):
    key, _ = make_api_key(user)
    first = post(dashboard, f"/v1/api-keys/{key.id}/rotate", key="rotate-1")
    new_secret = first.json()["secret"]
    second = post(dashboard, f"/v1/api-keys/{key.id}/rotate", key="rotate-1")
    assert second["Idempotent-Replayed"] == "true"
    assert second.json()["secret"] is None
    key.refresh_from_db()
    assert key.secret_last4 == new_secret[-4:]


def test_delete_with_a_key_replays_too(dashboard, user):
    key, _ = make_api_key(user)
    first = dashboard.delete(f"/v1/api-keys/{key.id}", HTTP_IDEMPOTENCY_KEY="del-1")
    second = dashboard.delete(f"/v1/api-keys/{key.id}", HTTP_IDEMPOTENCY_KEY="del-1")
    assert second["Idempotent-Replayed"] == "true"
    assert second.json() == first.json()


def test_reads_ignore_the_header(dashboard):
    response = dashboard.get("/v1/api-keys", HTTP_IDEMPOTENCY_KEY="")
    assert response.status_code == 200
    assert "Idempotent-Replayed" not in response
    assert not IdempotencyRecord.objects.exists()


# --- reuse ------------------------------------------------------------------------------


def test_same_key_with_another_body_is_reused(api, bearer):
    post(api, "/v1/_count", {"a": 1}, **bearer)
    error = error_of(post(api, "/v1/_count", {"a": 2}, **bearer), "idempotency_key_reused", 409)
    assert error["type"] == "idempotency_error"
    assert error["param"] == "Idempotency-Key"
    assert len(CALLS) == 1


def test_same_key_on_another_path_is_reused(api, bearer):
    post(api, "/v1/_count", **bearer)
    error_of(post(api, "/v1/_count/other", **bearer), "idempotency_key_reused", 409)
    error_of(post(api, "/v1/_count?x=1", **bearer), "idempotency_key_reused", 409)
    assert len(CALLS) == 1


def test_same_key_with_another_method_is_reused(api, bearer):
    post(api, "/v1/_count", **bearer)
    response = api.delete("/v1/_count", {"a": 1}, format="json", HTTP_IDEMPOTENCY_KEY=KEY, **bearer)
    error_of(response, "idempotency_key_reused", 409)
    assert len(CALLS) == 1


def test_reused_key_on_create_makes_no_second_key(dashboard, user):
    post(dashboard, "/v1/api-keys", {"name": "one", "scopes": ["rates:read"]})
    response = post(dashboard, "/v1/api-keys", {"name": "two", "scopes": ["rates:read"]})
    error_of(response, "idempotency_key_reused", 409)
    assert list(user.api_keys.values_list("name", flat=True)) == ["one"]


def test_after_24_hours_a_key_may_be_used_again(api, bearer):
    post(api, "/v1/_count", {"a": 1}, **bearer)
    IdempotencyRecord.objects.update(created=timezone.now() - timedelta(hours=24, seconds=1))
    response = post(api, "/v1/_count", {"a": 2}, **bearer)
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response
    assert len(CALLS) == 2


def test_just_inside_24_hours_the_key_is_still_held(api, bearer):
    post(api, "/v1/_count", {"a": 1}, **bearer)
    IdempotencyRecord.objects.update(created=timezone.now() - timedelta(hours=23, minutes=59))
    error_of(post(api, "/v1/_count", {"a": 2}, **bearer), "idempotency_key_reused", 409)


# --- scope: per user and credential -----------------------------------------------------


def test_keys_are_per_user(api, bearer):
    _, other_secret = make_api_key(UserFactory())
    post(api, "/v1/_count", **bearer)
    response = post(api, "/v1/_count", HTTP_AUTHORIZATION=f"Bearer {other_secret}")
    assert response.status_code == 201 and "Idempotent-Replayed" not in response
    assert len(CALLS) == 2


def test_keys_are_per_credential_of_one_user(api, user, bearer):
    _, second_secret = make_api_key(user, name="second")
    post(api, "/v1/_count", **bearer)
    response = post(api, "/v1/_count", HTTP_AUTHORIZATION=f"Bearer {second_secret}")
    assert response.status_code == 201 and "Idempotent-Replayed" not in response
    assert len(CALLS) == 2


def test_a_dashboard_session_is_its_own_credential(dashboard, user, bearer, api):
    post(api, "/v1/_count", **bearer)
    assert IdempotencyRecord.objects.get().credential_id.startswith("key_")
    body = {"name": "k", "scopes": ["rates:read"]}
    # Same key string, same user, other credential (the session): executes.
    assert post(dashboard, "/v1/api-keys", body).status_code == 201
    assert set(IdempotencyRecord.objects.values_list("credential_id", flat=True)) == {
        "session",
        user.api_keys.order_by("created").first().id,
    }


# --- validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    ["", "x" * 256, "tab\there", "new\nline", "nul\x00", "del\x7f", "caf\u00e9", "snow\u2603"],
    ids=["empty", "256-chars", "tab", "newline", "nul", "del", "latin1", "unicode"],
)
def test_invalid_idempotency_key(api, bearer, bad):
    error = error_of(post(api, "/v1/_count", key=bad, **bearer), "invalid_idempotency_key", 400)
    assert error["param"] == "Idempotency-Key"
    assert error["type"] == "invalid_request_error"
    assert CALLS == []
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.parametrize("good", ["x" * 255, " ~!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "a", KEY])
def test_printable_ascii_keys_up_to_255_are_accepted(api, bearer, good):
    assert post(api, "/v1/_count", key=good, **bearer).status_code == 201


def test_invalid_key_on_create_creates_nothing(dashboard, user):
    response = post(dashboard, "/v1/api-keys", {"name": "k", "scopes": ["rates:read"]}, key="x" * 256)
    error_of(response, "invalid_idempotency_key", 400)
    assert user.api_keys.count() == 0


def test_authentication_comes_first(api, db):
    response = post(api, "/v1/_count", key="", HTTP_AUTHORIZATION="Bearer sk_live_" + "0" * 43)
    error_of(response, "invalid_token", 401)


# --- spending operations ----------------------------------------------------------------


def test_spending_operation_requires_the_header(api, bearer):
    error = error_of(post(api, "/v1/_spend", key=None, **bearer), "idempotency_key_required", 400)
    assert error["param"] == "Idempotency-Key"
    assert error["type"] == "invalid_request_error"
    assert CALLS == []


def test_spending_operation_with_the_header_runs_once(api, bearer):
    assert post(api, "/v1/_spend", **bearer).status_code == 201
    assert post(api, "/v1/_spend", **bearer)["Idempotent-Replayed"] == "true"
    assert len(CALLS) == 1


def test_spending_operation_still_validates_the_key(api, bearer):
    error_of(post(api, "/v1/_spend", key="", **bearer), "invalid_idempotency_key", 400)


# --- failures are not stored ------------------------------------------------------------


def test_an_error_is_not_stored_and_the_key_can_be_retried(dashboard, user):
    bad = post(dashboard, "/v1/api-keys", {"name": "", "scopes": ["rates:read"]})
    error_of(bad, "invalid_name", 400)
    again = post(dashboard, "/v1/api-keys", {"name": "", "scopes": ["rates:read"]})
    error_of(again, "invalid_name", 400)
    assert "Idempotent-Replayed" not in again
    assert not IdempotencyRecord.objects.exists()
    # The caller fixes the body and retries with the same key.
    assert post(dashboard, "/v1/api-keys", {"name": "fixed", "scopes": ["rates:read"]}).status_code == 201


def test_a_business_refusal_is_not_replayed_after_the_state_changes(dashboard, user):
    keys = [make_api_key(user, name=f"k{i}")[0] for i in range(10)]
    body = {"name": "eleventh", "scopes": ["rates:read"]}
    error_of(post(dashboard, "/v1/api-keys", body), "api_key_limit", 409)
    dashboard.delete(f"/v1/api-keys/{keys[0].id}")
    assert post(dashboard, "/v1/api-keys", body).status_code == 201


def test_a_4xx_response_releases_the_key(api, bearer):
    assert post(api, "/v1/_refuse", **bearer).status_code == 409
    assert post(api, "/v1/_refuse", **bearer).status_code == 409
    assert CALLS == ["refuse", "refuse"]
    assert not IdempotencyRecord.objects.exists()


def test_a_crash_rolls_back_its_writes_and_releases_the_key(api, bearer, user):
    before = user.api_keys.count()
    response = post(api, "/v1/_crash", **bearer)
    error = error_of(response, "internal_error", 500)
    assert "boom" not in json.dumps(error)
    assert user.api_keys.count() == before  # the half-made key rolled back with the handler
    assert not IdempotencyRecord.objects.exists()
    error_of(post(api, "/v1/_crash", **bearer), "internal_error", 500)
    assert CALLS == ["crash", "crash"]  # the retry with the same key ran again


def test_wrong_method_releases_the_key(dashboard):
    response = dashboard.put("/v1/api-keys", {}, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    error_of(response, "method_not_allowed", 405)
    assert not IdempotencyRecord.objects.exists()


# --- in progress and abandoned claims ---------------------------------------------------


def _claim_in_progress(user, credential_id, *, path="/v1/_count", body=b'{"a":1}', age=timedelta(0)):
    now = timezone.now()
    return IdempotencyRecord.objects.create(
        user=user,
        credential_id=credential_id,
        key=KEY,
        method="POST",
        path=path,
        request_digest=request_fingerprint(method="POST", path=path, body=body),
        lock_token="t" * 32,
        locked_at=now - age,
        created=now - age,
    )


def test_a_request_still_executing_answers_in_progress(api, api_key, bearer):
    key, _ = api_key
    _claim_in_progress(key.user, key.id)
    error = error_of(post(api, "/v1/_count", {"a": 1}, **bearer), "idempotency_in_progress", 409)
    assert error["type"] == "idempotency_error"
    assert "Retry-After" not in error  # docs/spec.md 8.4: Retry-After only on 429 and 503
    assert CALLS == []


def test_in_progress_with_another_body_is_reused_not_in_progress(api, api_key, bearer):
    key, _ = api_key
    _claim_in_progress(key.user, key.id)
    error_of(post(api, "/v1/_count", {"a": 2}, **bearer), "idempotency_key_reused", 409)


def test_an_abandoned_claim_is_taken_over(api, api_key, bearer):
    key, _ = api_key
    _claim_in_progress(key.user, key.id, age=timedelta(minutes=6))
    response = post(api, "/v1/_count", {"a": 1}, **bearer)
    assert response.status_code == 201
    assert len(CALLS) == 1
    record = IdempotencyRecord.objects.get()
    assert record.response_status == 201 and record.lock_token != "t" * 32


def test_completing_a_claim_that_was_taken_over_fails_and_rolls_back(user):
    claim = idempotency_claim(
        user=user, credential_id="session", key=KEY, method="POST", path="/v1/x", fingerprint="f" * 64
    )
    assert isinstance(claim, Claim)
    IdempotencyRecord.objects.filter(pk=claim.record_id).update(lock_token="someone-else")
    with pytest.raises(ApiError) as exc:
        idempotency_complete(claim=claim, status=201, body={})
    assert exc.value.code == "conflict"
    assert IdempotencyRecord.objects.get().response_status is None


# --- purge ------------------------------------------------------------------------------


def test_purge_command_removes_records_older_than_24_hours(api, bearer):
    post(api, "/v1/_count", **bearer, key="old")
    post(api, "/v1/_count", **bearer, key="recent")
    IdempotencyRecord.objects.filter(key="old").update(created=timezone.now() - timedelta(hours=24, minutes=1))
    IdempotencyRecord.objects.filter(key="recent").update(created=timezone.now() - timedelta(hours=23))
    out = StringIO()
    call_command("purge_idempotency_keys", stdout=out)
    assert "deleted 1 " in out.getvalue()
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["recent"]


def test_records_go_with_their_user(user, dashboard):
    post(dashboard, "/v1/api-keys", {"name": "k", "scopes": ["rates:read"]})
    user.delete()
    assert not IdempotencyRecord.objects.exists()


# --- coverage ---------------------------------------------------------------------------


def _routes(resolver, prefix=""):
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def test_every_v1_view_that_accepts_post_is_idempotent():
    """docs/spec.md 4: Idempotency-Key on every /v1 POST. A new POST view must mix it in."""
    checked = []
    for route, callback in _routes(get_resolver("config.urls")):
        view_class = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
        if not route.startswith("v1") or view_class is None:
            continue
        if "post" in getattr(view_class, "http_method_names", ()) and hasattr(view_class, "post"):
            assert issubclass(view_class, IdempotentMixin), f"{route} ({view_class.__name__}) takes POST"
            checked.append(route)
    assert {"v1/api-keys", "v1/api-keys/<str:key_id>/rotate"} <= set(checked)


def test_credential_scope_for_oauth_clients_and_long_client_ids():
    from types import SimpleNamespace

    from apps.api_v1.idempotency import credential_of
    from apps.credentials.principal import Principal

    def request(credential_id):
        return SimpleNamespace(auth=Principal(kind="oauth", user=None, credential_id=credential_id))

    assert credential_of(request("dcr_abc")) == "dcr_abc"
    # A client-metadata-document client id is a URL of any length: it still fits the column.
    long_id = "https://client.example/" + "a" * 400
    scoped = credential_of(request(long_id))
    assert scoped.startswith("sha256:") and len(scoped) <= 255
    assert scoped == credential_of(request(long_id)) != credential_of(request(long_id + "b"))
    assert credential_of(SimpleNamespace(auth=None)) == "session"
