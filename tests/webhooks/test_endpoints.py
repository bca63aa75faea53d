"""/v1/webhook_endpoints: every operation, code and param (docs/design.md "Webhooks")."""

import pytest
from django.utils import timezone

from apps.webhooks.models import WebhookEndpoint
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.webhooks import key_caller

pytestmark = pytest.mark.django_db

ENDPOINT_FIELDS = {
    "id",
    "object",
    "url",
    "description",
    "enabled_events",
    "status",
    "disabled_reason",
    "api_version",
    "secret",
    "previous_secret_expires_at",
    "created",
    "livemode",
}


def create(caller, **fields):
    body = {"url": "http://127.0.0.1:9/hooks", "enabled_events": ["call.ended"], **fields}
    return caller.post("/v1/webhook_endpoints", body)


class TestCreate:
    def test_created_with_its_secret_once(self, caller):
        response = create(caller, description="Billing sync")
        assert response.status_code == 201
        body = response.json()
        assert set(body) == ENDPOINT_FIELDS
        assert body["id"].startswith("we_")
        assert body["object"] == "webhook_endpoint"
        assert body["url"] == "http://127.0.0.1:9/hooks"
        assert body["enabled_events"] == ["call.ended"]
        assert body["status"] == "enabled"
        assert body["disabled_reason"] is None
        assert body["description"] == "Billing sync"
        assert body["livemode"] is False
        assert body["secret"].startswith("whsec_")
        assert body["previous_secret_expires_at"] is None
        read = caller.get(f"/v1/webhook_endpoints/{body['id']}").json()
        assert read["secret"] is None
        assert {k: v for k, v in read.items() if k != "secret"} == {k: v for k, v in body.items() if k != "secret"}

    def test_secret_is_encrypted_at_rest(self, caller):
        body = create(caller).json()
        row = WebhookEndpoint.objects.get(pk=body["id"])
        secret = body["secret"]
        assert secret not in row.secret_encrypted
        assert secret.removeprefix("whsec_") not in row.secret_encrypted

    def test_every_type_with_star(self, caller):
        assert create(caller, enabled_events=["*"]).json()["enabled_events"] == ["*"]

    def test_https_on_a_public_address_in_live_mode(self, live_caller, dns):
        response = create(live_caller, url="https://hooks.example.com/in")
        assert response.status_code == 201
        assert response.json()["livemode"] is True

    @pytest.mark.parametrize(
        "url",
        [
            "http://hooks.example.com/in",  # http in live mode
            "https://user:pw@hooks.example.com/in",
            "https://hooks.example.com/in#frag",
            "https://internal.example.com/in",  # resolves to 10.0.0.5
            "https://127.0.0.1/in",  # loopback in live mode
            "https://[::ffff:10.0.0.5]/in",
            "https://169.254.169.254/latest",
            "ftp://hooks.example.com/in",
            "hooks.example.com/in",
            "https://hooks.example.com/in with space",
            "https://hooks.example.com:0/in",
            "https://" + "a" * 2050 + ".example.com/",
        ],
    )
    def test_invalid_url_in_live_mode(self, live_caller, dns, url):
        assert_error(create(live_caller, url=url), 400, "invalid_url", param="url")
        assert WebhookEndpoint.objects.count() == 0

    @pytest.mark.parametrize(
        "url", ["http://hooks.example.com/in", "http://10.0.0.5/in", "https://internal.example.com/in"]
    )
    def test_invalid_url_in_test_mode(self, caller, dns, url):
        assert_error(create(caller, url=url), 400, "invalid_url", param="url")

    @pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hooks", "http://localhost:3000/in", "http://[::1]:80/"])
    def test_loopback_http_in_test_mode(self, caller, url):
        assert create(caller, url=url).status_code == 201

    def test_url_required(self, caller):
        assert_error(
            caller.post("/v1/webhook_endpoints", {"enabled_events": ["call.ended"]}),
            400,
            "invalid_request",
            param="url",
        )

    @pytest.mark.parametrize("value", [None, [], "call.ended", ["call.nope"], [1], ["*", "call.ended"], ["ping"]])
    def test_enabled_events_invalid(self, caller, value):
        body = {"url": "http://127.0.0.1:9/hooks"}
        if value is not None:
            body["enabled_events"] = value
        assert_error(caller.post("/v1/webhook_endpoints", body), 400, "invalid_request", param="enabled_events")

    @pytest.mark.parametrize(
        ("event_type", "scope"),
        [
            ("call.ended", "calls:read"),
            ("transcript.completed", "transcripts:read"),
            ("message.received", "messages:read"),
            ("balance.low", "credits:read"),
        ],
    )
    def test_types_limited_by_the_credentials_scopes(self, owner, event_type, scope):
        _key, narrow = key_caller(owner, scopes=["webhooks:manage"])
        error = assert_error(
            create(narrow, enabled_events=[event_type]), 400, "invalid_request", param="enabled_events"
        )
        assert scope in error["message"]

    def test_description_too_long(self, caller):
        assert_error(create(caller, description="x" * 501), 400, "invalid_request", param="description")

    def test_unknown_field(self, caller):
        assert_error(create(caller, metadata={}), 400, "invalid_request", param="metadata")

    def test_body_not_an_object(self, caller):
        response = caller.post("/v1/webhook_endpoints", ["x"])
        assert_error(response, 400, "invalid_body")

    def test_limit_of_16_per_account_and_mode(self, caller, live_caller, dns):
        for _ in range(16):
            assert create(caller).status_code == 201
        assert_error(create(caller), 409, "webhook_endpoint_limit")
        assert WebhookEndpoint.objects.filter(livemode=False).count() == 16
        # The other mode counts on its own.
        assert create(live_caller, url="https://hooks.example.com/in").status_code == 201

    def test_scope_required(self, owner):
        _key, other = key_caller(owner, scopes=["calls:read"])
        response = create(other)
        assert_error(response, 403, "insufficient_scope")
        assert 'scope="webhooks:manage"' in response["WWW-Authenticate"]

    def test_idempotent_replay_never_shows_the_secret_again(self, caller):
        first = caller.post(
            "/v1/webhook_endpoints",
            {"url": "http://127.0.0.1:9/hooks", "enabled_events": ["call.ended"]},
            HTTP_IDEMPOTENCY_KEY="k1",
        )
        again = caller.post(
            "/v1/webhook_endpoints",
            {"url": "http://127.0.0.1:9/hooks", "enabled_events": ["call.ended"]},
            HTTP_IDEMPOTENCY_KEY="k1",
        )
        assert first.status_code == again.status_code == 201
        assert again.json()["id"] == first.json()["id"]
        assert again.json()["secret"] is None
        assert WebhookEndpoint.objects.count() == 1


class TestReadListDelete:
    def test_list_newest_first_in_the_callers_mode_and_account(self, caller, owner, live_caller, dns):
        ids = [create(caller).json()["id"] for _ in range(3)]
        create(live_caller, url="https://hooks.example.com/in")
        _key, stranger = key_caller(UserFactory())
        create(stranger)
        body = caller.get("/v1/webhook_endpoints").json()
        assert body["object"] == "list"
        assert [e["id"] for e in body["data"]] == ids[::-1]
        assert all(e["secret"] is None for e in body["data"])
        page = caller.get("/v1/webhook_endpoints", {"limit": 2}).json()
        assert page["has_more"] is True and len(page["data"]) == 2

    def test_any_credential_of_the_account_with_the_scope_manages(self, caller, owner):
        endpoint = create(caller).json()
        _key, colleague = key_caller(owner, scopes=["webhooks:manage"])
        assert colleague.get(f"/v1/webhook_endpoints/{endpoint['id']}").status_code == 200
        response = colleague.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"description": "renamed"})
        assert response.json()["description"] == "renamed"

    def test_control_characters_in_the_id(self, caller):
        response = caller.get("/v1/webhook_endpoints/we_%00")
        assert_error(response, 400, "invalid_request", param="endpoint_id")

    @pytest.mark.parametrize("endpoint_id", ["we_doesnotexist", "we_", "xx_abc", "we_" + "a" * 70])
    def test_unknown_id(self, caller, endpoint_id):
        assert_error(caller.get(f"/v1/webhook_endpoints/{endpoint_id}"), 404, "not_found", param="endpoint_id")

    def test_another_accounts_and_the_other_modes_endpoints_are_absent(self, caller, owner, live_caller, dns):
        _key, stranger = key_caller(UserFactory())
        theirs = create(stranger).json()["id"]
        live = create(live_caller, url="https://hooks.example.com/in").json()["id"]
        for endpoint_id in (theirs, live):
            assert_error(caller.get(f"/v1/webhook_endpoints/{endpoint_id}"), 404, "not_found", param="endpoint_id")
            assert_error(caller.delete(f"/v1/webhook_endpoints/{endpoint_id}"), 404, "not_found", param="endpoint_id")
            assert_error(
                caller.post(f"/v1/webhook_endpoints/{endpoint_id}", {"description": "x"}),
                404,
                "not_found",
                param="endpoint_id",
            )

    def test_delete(self, caller):
        endpoint_id = create(caller).json()["id"]
        response = caller.delete(f"/v1/webhook_endpoints/{endpoint_id}")
        assert response.status_code == 200
        assert response.json() == {"id": endpoint_id, "object": "webhook_endpoint", "deleted": True}
        assert_error(caller.get(f"/v1/webhook_endpoints/{endpoint_id}"), 404, "not_found", param="endpoint_id")


class TestUpdate:
    def test_changes_fields(self, caller):
        endpoint_id = create(caller).json()["id"]
        response = caller.post(
            f"/v1/webhook_endpoints/{endpoint_id}",
            {"url": "http://127.0.0.1:10/new", "enabled_events": ["call.ended", "balance.low"], "description": "d"},
        )
        assert response.status_code == 200
        body = response.json()
        assert body["url"] == "http://127.0.0.1:10/new"
        assert body["enabled_events"] == ["call.ended", "balance.low"]
        assert body["description"] == "d"
        assert body["secret"] is None

    def test_disable_and_enable(self, caller):
        endpoint_id = create(caller).json()["id"]
        off = caller.post(f"/v1/webhook_endpoints/{endpoint_id}", {"disabled": True}).json()
        assert (off["status"], off["disabled_reason"]) == ("disabled", "requested")
        on = caller.post(f"/v1/webhook_endpoints/{endpoint_id}", {"disabled": False}).json()
        assert (on["status"], on["disabled_reason"]) == ("enabled", None)

    @pytest.mark.parametrize(
        ("body", "code", "param"),
        [
            ({"url": "http://10.0.0.5/x"}, "invalid_url", "url"),
            ({"url": ""}, "invalid_request", "url"),
            ({"enabled_events": []}, "invalid_request", "enabled_events"),
            ({"description": 5}, "invalid_request", "description"),
            ({"disabled": "yes"}, "invalid_request", "disabled"),
            ({"secret": "whsec_x"}, "invalid_request", "secret"),
        ],
    )
    def test_invalid_changes_change_nothing(self, caller, body, code, param):
        before = create(caller).json()
        assert_error(caller.post(f"/v1/webhook_endpoints/{before['id']}", body), 400, code, param=param)
        after = caller.get(f"/v1/webhook_endpoints/{before['id']}").json()
        assert after == {**before, "secret": None}

    def test_types_limited_by_the_changing_credentials_scopes(self, owner):
        _key, broad = key_caller(owner)
        endpoint_id = create(broad).json()["id"]
        _key, narrow = key_caller(owner, scopes=["webhooks:manage", "calls:read"])
        response = narrow.post(f"/v1/webhook_endpoints/{endpoint_id}", {"enabled_events": ["balance.low"]})
        assert_error(response, 400, "invalid_request", param="enabled_events")
        assert "credits:read" in response.json()["error"]["message"]
        # Types it can read: taken, and the endpoint is now the narrow key's.
        response = narrow.post(f"/v1/webhook_endpoints/{endpoint_id}", {"enabled_events": ["call.ended"]})
        assert response.status_code == 200


class TestRotate:
    def test_new_secret_and_the_old_one_signs_until_expiry(self, caller):
        created = create(caller).json()
        now = timezone.now()
        response = caller.post(f"/v1/webhook_endpoints/{created['id']}/rotate_secret", {"expires_in": 3600})
        assert response.status_code == 200
        body = response.json()
        assert body["secret"].startswith("whsec_") and body["secret"] != created["secret"]
        assert abs(body["previous_secret_expires_at"] - (now.timestamp() + 3600)) < 5
        assert caller.get(f"/v1/webhook_endpoints/{created['id']}").json()["secret"] is None

    def test_default_overlap_is_a_day(self, caller):
        created = create(caller).json()
        body = caller.post(f"/v1/webhook_endpoints/{created['id']}/rotate_secret").json()
        assert abs(body["previous_secret_expires_at"] - (timezone.now().timestamp() + 86400)) < 5

    def test_zero_ends_the_old_secret_now(self, caller):
        created = create(caller).json()
        body = caller.post(f"/v1/webhook_endpoints/{created['id']}/rotate_secret", {"expires_in": 0}).json()
        assert body["previous_secret_expires_at"] is None

    @pytest.mark.parametrize("value", [-1, 604801, "60", 1.5, True, None])
    def test_invalid_expires_in(self, caller, value):
        created = create(caller).json()
        body = {"expires_in": value} if value is not None else {"expires_in": None, "x": 1}
        param = "expires_in" if value is not None else "x"
        response = caller.post(f"/v1/webhook_endpoints/{created['id']}/rotate_secret", body)
        assert_error(response, 400, "invalid_request", param=param)

    def test_unknown_endpoint(self, caller):
        assert_error(caller.post("/v1/webhook_endpoints/we_nope/rotate_secret"), 404, "not_found", param="endpoint_id")


class TestDeliveriesList:
    def test_invalid_status_filter(self, caller):
        endpoint_id = create(caller).json()["id"]
        response = caller.get(f"/v1/webhook_endpoints/{endpoint_id}/deliveries", {"status": "lost"})
        assert_error(response, 400, "invalid_request", param="status")

    def test_unknown_endpoint(self, caller):
        assert_error(caller.get("/v1/webhook_endpoints/we_nope/deliveries"), 404, "not_found", param="endpoint_id")

    def test_empty(self, caller):
        endpoint_id = create(caller).json()["id"]
        body = caller.get(f"/v1/webhook_endpoints/{endpoint_id}/deliveries").json()
        assert body["data"] == [] and body["has_more"] is False
