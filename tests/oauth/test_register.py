"""POST /oauth/register (docs/spec.md 2.5, 4.3, 7.3, 8.2): every rule and error, and nothing written on refusal."""

import json
import logging
import time

import pytest
from django.utils import timezone

from apps.core.ids import new_id
from apps.oauth.models import Application
from apps.oauth.registration import services
from tests.support.oauth import client_fields, make_client

REGISTER = "/oauth/register"

pytestmark = pytest.mark.django_db


def register(client, body, **extra):
    payload = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return client.post(REGISTER, data=payload, content_type="application/json", **extra)


def assert_refused(response, error):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == error
    assert isinstance(body["error_description"], str) and body["error_description"]
    assert set(body) == {"error", "error_description"}
    assert response["Cache-Control"] == "no-store"
    assert response["Request-Id"].startswith("req_")
    assert Application.objects.count() == 0


FULL = {
    "client_name": "Example Assistant",
    "redirect_uris": ["https://assistant.example/oauth/callback"],
    "application_type": "web",
    "token_endpoint_auth_method": "none",
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "client_uri": "https://assistant.example",
}


class TestSuccess:
    def test_registration_record_of_spec_2_5(self, client):
        before = int(time.time())
        response = register(client, FULL)
        assert response.status_code == 201
        assert response["Content-Type"] == "application/json"
        assert response["Cache-Control"] == "no-store"
        body = response.json()
        assert body["client_id"].startswith("dcr_")
        assert before <= body["client_id_issued_at"] <= int(time.time()) + 1
        assert isinstance(body["client_id_issued_at"], int)
        assert body["redirect_uris"] == FULL["redirect_uris"]
        assert body["token_endpoint_auth_method"] == "none"
        assert body["grant_types"] == ["authorization_code", "refresh_token"]
        assert body["response_types"] == ["code"]
        assert body["client_name"] == "Example Assistant"
        assert body["application_type"] == "web"
        assert body["client_uri"] == "https://assistant.example"

    def test_no_secret_and_no_registration_token(self, client):
        body = register(client, FULL).json()
        for absent in ("client_secret", "client_secret_expires_at", "registration_access_token"):
            assert absent not in body
        client_row = Application.objects.get(client_id=body["client_id"])
        assert client_row.client_secret == ""

    def test_stored_as_public_self_registered_client(self, client):
        body = register(client, FULL).json()
        row = Application.objects.get(client_id=body["client_id"])
        assert row.client_type == Application.CLIENT_PUBLIC
        assert row.authorization_grant_type == Application.GRANT_AUTHORIZATION_CODE
        assert row.registration_source == Application.RegistrationSource.DCR
        assert row.registration_kind == "self-registered"
        assert row.is_self_registered
        assert row.name == "Example Assistant"
        assert row.redirect_uris.split() == FULL["redirect_uris"]
        assert row.user is None
        assert row.last_used_at is None
        assert not row.is_disabled
        assert not row.verified_partner

    def test_client_ids_are_unique_and_dcr_prefixed(self, client):
        ids = {register(client, FULL).json()["client_id"] for _ in range(5)}
        assert len(ids) == 5
        assert all(i.startswith("dcr_") and len(i) == 28 for i in ids)

    def test_minimal_body_with_defaults(self, client):
        response = register(client, {"redirect_uris": ["http://127.0.0.1/callback"]})
        assert response.status_code == 201
        body = response.json()
        assert body["grant_types"] == ["authorization_code"]
        assert body["response_types"] == ["code"]
        assert body["token_endpoint_auth_method"] == "none"
        assert body["application_type"] == "native"
        assert body["client_name"] == ""

    def test_grant_types_echoed_as_sent(self, client):
        body = register(client, {**FULL, "grant_types": ["authorization_code"]}).json()
        assert body["grant_types"] == ["authorization_code"]

    def test_unknown_metadata_is_ignored(self, client):
        extra = {"logo_uri": "https://assistant.example/logo.png", "scope": "rates:read", "software_id": "x"}
        response = register(client, {**FULL, **extra})
        assert response.status_code == 201
        assert "logo_uri" not in response.json()

    def test_null_optional_fields_mean_absent(self, client):
        response = register(client, {**FULL, "client_uri": None, "client_name": None})
        assert response.status_code == 201
        assert "client_uri" not in response.json()

    def test_client_name_of_exactly_100_characters(self, client):
        assert register(client, {**FULL, "client_name": "n" * 100}).status_code == 201

    def test_ten_redirect_uris(self, client):
        uris = [f"https://assistant.example/cb{i}" for i in range(10)]
        response = register(client, {**FULL, "redirect_uris": uris})
        assert response.status_code == 201
        assert response.json()["redirect_uris"] == uris

    @pytest.mark.parametrize(
        "uri",
        [
            "http://127.0.0.1/callback",
            "http://127.0.0.1:8765/callback",
            "http://localhost/callback",
            "http://localhost:33418/",
            "http://[::1]/callback",
            "http://[::1]:9000/cb?x=1",
        ],
    )
    def test_http_loopback_redirects_for_native_clients(self, client, uri):
        response = register(client, {"client_name": "CLI", "redirect_uris": [uri], "application_type": "native"})
        assert response.status_code == 201, response.content
        assert response.json()["redirect_uris"] == [uri]

    def test_native_clients_may_use_https_redirects(self, client):
        body = {**FULL, "application_type": "native", "redirect_uris": ["https://app.example/cb"]}
        assert register(client, body).status_code == 201

    def test_application_type_inferred_from_redirects(self, client):
        web = register(client, {"redirect_uris": ["https://assistant.example/cb"]}).json()
        native = register(client, {"redirect_uris": ["https://a.example/cb", "http://127.0.0.1/cb"]}).json()
        assert web["application_type"] == "web"
        assert native["application_type"] == "native"

    def test_json_content_type_with_charset(self, client):
        response = client.post(REGISTER, data=json.dumps(FULL), content_type="application/json; charset=utf-8")
        assert response.status_code == 201


class TestInvalidClientMetadata:
    @pytest.mark.parametrize("raw", ["not json", "[1, 2]", '"a string"', "null", "42", "", b"\xff\xfe{}"], ids=repr)
    def test_body_not_a_json_object(self, client, raw):
        assert_refused(register(client, raw), "invalid_client_metadata")

    def test_deeply_nested_json(self, client):
        assert_refused(register(client, "[" * 5000 + "]" * 5000), "invalid_client_metadata")
        assert_refused(register(client, '{"a":' * 3000 + "1" + "}" * 3000), "invalid_client_metadata")

    def test_body_over_16_kb(self, client):
        body = {**FULL, "padding": "x" * 17000}
        assert_refused(register(client, body), "invalid_client_metadata")

    @pytest.mark.parametrize("value", ["spa", "", "WEB", 1, "browser"])
    def test_application_type_not_web_or_native(self, client, value):
        assert_refused(register(client, {**FULL, "application_type": value}), "invalid_client_metadata")

    @pytest.mark.parametrize(
        "method", ["client_secret_post", "client_secret_basic", "private_key_jwt", "tls_client_auth", "", 0]
    )
    def test_auth_method_other_than_none_is_refused_not_changed(self, client, method):
        assert_refused(register(client, {**FULL, "token_endpoint_auth_method": method}), "invalid_client_metadata")

    @pytest.mark.parametrize(
        "grants",
        [
            ["client_credentials"],
            ["authorization_code", "client_credentials"],
            ["implicit"],
            ["password"],
            ["urn:ietf:params:oauth:grant-type:device_code"],
            ["refresh_token"],
            [],
            "authorization_code",
            [1],
        ],
        ids=repr,
    )
    def test_unsupported_grant_types(self, client, grants):
        assert_refused(register(client, {**FULL, "grant_types": grants}), "invalid_client_metadata")

    @pytest.mark.parametrize("types", [["token"], ["code", "token"], ["code id_token"], [], "code", [None]], ids=repr)
    def test_unsupported_response_types(self, client, types):
        assert_refused(register(client, {**FULL, "response_types": types}), "invalid_client_metadata")

    def test_client_name_over_100_characters(self, client):
        assert_refused(register(client, {**FULL, "client_name": "n" * 101}), "invalid_client_metadata")

    @pytest.mark.parametrize("name", [42, ["a"], {"en": "a"}, "Evil\u202eppA", "Line\nbreak"], ids=repr)
    def test_client_name_not_a_plain_string(self, client, name):
        assert_refused(register(client, {**FULL, "client_name": name}), "invalid_client_metadata")

    @pytest.mark.parametrize(
        "uri",
        ["ftp://assistant.example", "javascript:alert(1)", "assistant.example", "https://", 7, "https://u@a.example"],
        ids=repr,
    )
    def test_client_uri_not_http_or_https(self, client, uri):
        assert_refused(register(client, {**FULL, "client_uri": uri}), "invalid_client_metadata")

    def test_http_client_uri_is_allowed(self, client):
        assert register(client, {**FULL, "client_uri": "http://assistant.example"}).status_code == 201


class TestInvalidRedirectUri:
    def test_more_than_10(self, client):
        uris = [f"https://assistant.example/cb{i}" for i in range(11)]
        assert_refused(register(client, {**FULL, "redirect_uris": uris}), "invalid_redirect_uri")

    @pytest.mark.parametrize("value", [None, [], "https://assistant.example/cb", [42]], ids=repr)
    def test_missing_or_not_an_array_of_strings(self, client, value):
        body = {k: v for k, v in FULL.items() if k != "redirect_uris"}
        if value is not None:
            body["redirect_uris"] = value
        assert_refused(register(client, body), "invalid_redirect_uri")

    @pytest.mark.parametrize(
        "uri",
        [
            # Neither https nor http on a loopback address.
            "http://assistant.example/cb",
            "http://192.168.1.10/cb",
            "http://127.0.0.2/cb",
            "http://localhost.example.com/cb",
            "myapp://callback",
            "com.example.app:/oauth2redirect",
            "/relative/callback",
            "https:///no-host",
            "ftp://assistant.example/cb",
            # A fragment.
            "https://assistant.example/cb#frag",
            "https://assistant.example/cb#",
            "http://127.0.0.1/cb#x",
            # Userinfo.
            "https://user@assistant.example/cb",
            "https://user:pw@assistant.example/cb",
            "http://u@127.0.0.1/cb",
            # A wildcard.
            "https://*.assistant.example/cb",
            "https://assistant.example/*",
            "http://127.0.0.1:*/cb",
        ],
    )
    def test_refused_even_for_a_native_client(self, client, uri):
        body = {**FULL, "application_type": "native", "redirect_uris": [uri]}
        assert_refused(register(client, body), "invalid_redirect_uri")

    @pytest.mark.parametrize(
        "uri",
        [
            "http://127.0.0.1/callback",
            "http://localhost:8080/callback",
            "http://[::1]/callback",
        ],
    )
    def test_web_clients_https_only(self, client, uri):
        body = {**FULL, "application_type": "web", "redirect_uris": ["https://assistant.example/cb", uri]}
        assert_refused(register(client, body), "invalid_redirect_uri")

    @pytest.mark.parametrize(
        "uri",
        [
            "https://assistant.example:99999/cb",
            "https://assistant.example:port/cb",
            "https://assistant.example:/cb",
            "https://assistant.example:0/cb",
            "https://a.example/c b",
            "https://a.example/\ncb",
        ],
        ids=repr,
    )
    def test_malformed(self, client, uri):
        assert_refused(register(client, {**FULL, "redirect_uris": [uri]}), "invalid_redirect_uri")

    @pytest.mark.parametrize(
        "uri",
        [
            "http://127.0.0.1:/cb",
            "http://127.0.0.1:0/cb",
            "http://127.0.0.1:-1/cb",
            "http://127.0.0.1:080/cb",
            "http://127.0.0.1:65536/cb",
            "http://localhost:abc/cb",
            "http://[::1]:/cb",
        ],
        ids=repr,
    )
    def test_loopback_ports_are_real_ports(self, client, uri):
        # docs/spec.md 5.4 allows any port on a loopback URI: a port is a number from 1 to 65535.
        body = {"client_name": "CLI", "application_type": "native", "redirect_uris": [uri]}
        assert_refused(register(client, body), "invalid_redirect_uri")

    @pytest.mark.parametrize(
        "uri",
        [
            "https://evil.example\\.assistant.example/cb",
            "https://assistant.example/c\\b",
            'https://assistant.example/"cb"',
            "https://assistant.example/<cb>",
            "https://b\u00fccher.example/cb",
            "https://assistant.example/caf\u00e9",
            "https://assist_ant.example/cb",
            "https://-assistant.example/cb",
            "https://assistant.example\u2024com/cb",
        ],
        ids=repr,
    )
    def test_only_rfc3986_characters_and_plain_host_names(self, client, uri):
        assert_refused(register(client, {**FULL, "redirect_uris": [uri]}), "invalid_redirect_uri")

    def test_percent_encoded_and_punycode_uris_are_fine(self, client):
        uris = ["https://xn--bcher-kva.example/cb", "https://assistant.example/caf%C3%A9?next=%2Fhome&x=1"]
        assert register(client, {**FULL, "redirect_uris": uris}).status_code == 201

    def test_eleven_entries_are_refused_even_with_duplicates(self, client):
        uris = ["https://assistant.example/cb"] * 11
        assert_refused(register(client, {**FULL, "redirect_uris": uris}), "invalid_redirect_uri")

    def test_over_long_uri(self, client):
        uri = "https://assistant.example/" + "a" * 2000
        assert_refused(register(client, {**FULL, "redirect_uris": [uri]}), "invalid_redirect_uri")

    def test_one_bad_uri_refuses_the_whole_registration(self, client):
        body = {**FULL, "redirect_uris": ["https://assistant.example/ok", "http://evil.example/cb"]}
        assert_refused(register(client, body), "invalid_redirect_uri")


class TestMethods:
    @pytest.mark.parametrize("method", ["get", "put", "patch", "delete"])
    def test_only_post(self, client, method):
        response = getattr(client, method)(REGISTER)
        assert response.status_code == 405
        assert response.json()["error"] == "invalid_request"
        assert "POST" in response["Allow"]

    def test_no_trailing_slash_variant(self, client):
        assert (
            client.post("/oauth/register/", data=json.dumps(FULL), content_type="application/json").status_code == 404
        )

    def test_no_rfc7592_management_endpoint(self, client):
        client_id = register(client, FULL).json()["client_id"]
        assert client.get(f"/oauth/register/{client_id}").status_code == 404
        assert client.delete(f"/oauth/register/{client_id}/").status_code == 404


def _bulk_self_registered(count, *, created=None, last_used_at=None):
    rows = [
        Application(
            **client_fields(
                client_id=new_id("dcr_"),
                name="bulk",
                redirect_uris="https://bulk.example/cb",
                registration_source=Application.RegistrationSource.DCR,
                last_used_at=last_used_at,
            )
        )
        for _ in range(count)
    ]
    Application.objects.bulk_create(rows, batch_size=500)
    if created is not None:
        # ``created`` is auto_now_add, so backdating takes an update.
        Application.objects.filter(client_id__in=[r.client_id for r in rows]).update(created=created)


class TestGlobalCap:
    def assert_closed(self, response):
        assert response.status_code == 503
        assert response.json()["error"] == "temporarily_unavailable"
        assert response["Retry-After"] == "3600"
        assert response["Cache-Control"] == "no-store"

    def test_cap_of_5000_unexpired_self_registered_clients(self, client):
        assert services.REGISTRATION_CAP == 5000
        _bulk_self_registered(4999)
        assert register(client, FULL).status_code == 201
        before = Application.objects.count()
        self.assert_closed(register(client, FULL))
        assert Application.objects.count() == before == 5000

    def test_expired_registrations_do_not_count(self, client, monkeypatch):
        monkeypatch.setattr(services, "REGISTRATION_CAP", 3)
        old = timezone.now() - timezone.timedelta(days=31)
        _bulk_self_registered(5, created=old)
        assert register(client, FULL).status_code == 201

    def test_used_registrations_count_whatever_their_age(self, client, monkeypatch):
        monkeypatch.setattr(services, "REGISTRATION_CAP", 3)
        old = timezone.now() - timezone.timedelta(days=90)
        _bulk_self_registered(3, created=old, last_used_at=timezone.now())
        self.assert_closed(register(client, FULL))

    def test_other_kinds_of_clients_do_not_count(self, client, monkeypatch):
        monkeypatch.setattr(services, "REGISTRATION_CAP", 1)
        make_client(
            client_id="https://client.example/metadata.json",
            redirect_uris="https://client.example/cb",
            registration_source=Application.RegistrationSource.CIMD,
        )
        assert register(client, FULL).status_code == 201
        self.assert_closed(register(client, FULL))

    def test_operators_are_warned_as_unused_registrations_pass_80_percent_of_the_cap(self, client, monkeypatch, caplog):
        monkeypatch.setattr(services, "REGISTRATION_CAP", 100)
        _bulk_self_registered(79)
        _bulk_self_registered(5, last_used_at=timezone.now())  # used: they count to the cap, not here

        def warnings():
            return [
                json.loads(r.getMessage())
                for r in caplog.records
                if r.name == "apps.oauth.registration.services" and r.levelno == logging.WARNING
            ]

        with caplog.at_level(logging.WARNING, logger="apps.oauth.registration.services"):
            assert register(client, FULL).status_code == 201  # the 80th unused registration
            assert register(client, FULL).status_code == 201  # the 81st: once per step, not per registration
            assert warnings() == [
                {"event": "oauth.registration_cap_filling", "unused": 80, "unexpired": 85, "cap": 100, "percent": 80}
            ]
            _bulk_self_registered(3)
            assert register(client, FULL).status_code == 201  # the 85th
        assert [w["percent"] for w in warnings()] == [80, 85]

    def test_no_warning_below_80_percent(self, client, monkeypatch, caplog):
        monkeypatch.setattr(services, "REGISTRATION_CAP", 100)
        _bulk_self_registered(70, last_used_at=timezone.now())
        _bulk_self_registered(8)
        with caplog.at_level(logging.WARNING, logger="apps.oauth.registration.services"):
            assert register(client, FULL).status_code == 201
        assert not [r for r in caplog.records if r.name == "apps.oauth.registration.services"]

    def test_invalid_body_is_still_400_when_closed(self, client, monkeypatch):
        monkeypatch.setattr(services, "REGISTRATION_CAP", 0)
        response = register(client, {**FULL, "token_endpoint_auth_method": "client_secret_post"})
        assert response.status_code == 400
