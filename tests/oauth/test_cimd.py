"""Client metadata documents (docs/spec.md 5.3): fetching rules and caching.

The servers and the DNS stand-in are in tests/oauth/cimd_support.py; their
fixtures (``cimd``, ``dns``) in tests/oauth/conftest.py.
"""

import json
import socket
import time

import pytest
from django.test import Client
from django.utils import timezone

from apps.oauth.client_metadata import client_get_by_metadata_url
from apps.oauth.models import Application
from tests.oauth.cimd_support import PATH, Route, document, refused, serve_document
from tests.support.addresses import INTERNAL_ANSWERS
from tests.support.oauth import authorize_params, decide, exchange, make_client, pkce, query, signed_in, start

pytestmark = pytest.mark.django_db


# --- a valid document ------------------------------------------------------------------------


class TestValidDocument:
    def test_creates_a_public_client_registered_by_url(self, cimd):
        url = serve_document(cimd, headers={"Cache-Control": "max-age=600"})
        client = client_get_by_metadata_url(url, None)
        assert client is not None
        assert client.client_id == url
        assert client.registration_source == Application.RegistrationSource.CIMD
        assert client.registration_kind == "registered by URL"
        assert not client.is_self_registered
        assert client.name == "Example Assistant"
        assert client.client_uri == "https://assistant.example"
        assert client.redirect_uris.split() == ["https://assistant.example/callback", "http://127.0.0.1/callback"]
        assert client.application_type == "native"
        assert client.client_type == Application.CLIENT_PUBLIC
        assert client.client_secret == ""
        assert client.user is None

    def test_connects_to_the_validated_address_with_the_real_host_name(self, cimd):
        url = serve_document(cimd)
        assert client_get_by_metadata_url(url, None) is not None
        assert cimd.hits == [(PATH, f"client.example.test:{cimd.port}")]

    def test_document_of_exactly_5_kb_is_accepted(self, cimd):
        url = cimd.url()
        doc = document(url, padding="")
        doc["padding"] = "x" * (5 * 1024 - len(json.dumps(doc).encode()))
        body = json.dumps(doc).encode()
        assert len(body) == 5 * 1024
        cimd.serve(PATH, Route(200, body))
        assert client_get_by_metadata_url(url, None) is not None

    def test_structured_json_content_type(self, cimd):
        url = cimd.url()
        cimd.serve(PATH, Route(200, document(url), headers={"Content-Type": "application/example+json"}))
        assert client_get_by_metadata_url(url, None) is not None


# --- the safety rules ------------------------------------------------------------------------


class TestAddresses:
    def test_loopback_refused_without_the_test_admission(self, cimd, settings):
        url = serve_document(cimd)
        settings.CIMD_TEST_ALLOWED_ADDRESSES = []
        assert "non-public address" in refused(url)
        assert client_get_by_metadata_url(url, None) is None
        assert cimd.hits == []  # the server was never contacted
        assert Application.objects.count() == 0

    @pytest.mark.parametrize("answer", [*INTERNAL_ANSWERS, ["::1"]], ids=lambda a: ",".join(a))
    def test_private_and_special_use_addresses_are_refused(self, cimd, dns, answer):
        dns.answers["internal.example.test"] = answer
        url = f"https://internal.example.test:{cimd.port}{PATH}"
        assert "non-public address" in refused(url)
        assert client_get_by_metadata_url(url, None) is None
        assert Application.objects.count() == 0

    @pytest.mark.parametrize("host", ["127.0.0.1", "[::1]", "10.0.0.5", "169.254.169.254"])
    def test_address_literals_are_checked_too(self, cimd, settings, host):
        settings.CIMD_TEST_ALLOWED_ADDRESSES = []
        assert "non-public address" in refused(f"https://{host}:{cimd.port}{PATH}")

    def test_resolved_once_so_rebinding_cannot_move_the_connection(self, cimd, dns):
        url = serve_document(cimd, path="/rebind.json")
        url = url.replace("client.example.test", "rebind.example.test")
        cimd.routes["/rebind.json"] = Route(200, document(url))
        answers = iter([["127.0.0.1"]])
        # The first answer is the admitted fixture; any later one would be an internal address.
        dns.answers["rebind.example.test"] = lambda: next(answers, ["10.0.0.5"])
        assert client_get_by_metadata_url(url, None) is not None
        assert dns.lookups.count("rebind.example.test") == 1

    def test_a_private_first_answer_is_refused_even_if_later_ones_are_public(self, cimd, dns):
        answers = iter([["10.0.0.5"]])
        dns.answers["rebind.example.test"] = lambda: next(answers, ["127.0.0.1"])
        url = f"https://rebind.example.test:{cimd.port}{PATH}"
        assert "non-public address" in refused(url)

    def test_unresolvable_host(self, cimd, dns):
        dns.answers["nxdomain.example.test"] = socket.gaierror("Name or service not known")
        assert client_get_by_metadata_url(f"https://nxdomain.example.test{PATH}", None) is None


class TestTransport:
    def test_redirect_is_never_followed(self, cimd):
        url = cimd.url()
        target = serve_document(cimd, path="/elsewhere.json")
        cimd.serve(PATH, Route(302, b"", headers={"Location": target}))
        assert "redirect" in refused(url)
        assert client_get_by_metadata_url(url, None) is None
        assert cimd.hits_on("/elsewhere.json") == 0

    @pytest.mark.parametrize("status", [301, 303, 307, 308])
    def test_every_redirect_status_is_refused(self, cimd, status):
        cimd.serve(PATH, Route(status, b"", headers={"Location": cimd.url("/x.json")}))
        assert client_get_by_metadata_url(cimd.url(), None) is None

    def test_oversized_body_is_refused(self, cimd):
        url = cimd.url()
        cimd.serve(PATH, Route(200, document(url, padding="x" * 6000)))
        assert "size" in refused(url)
        assert client_get_by_metadata_url(url, None) is None

    def test_oversized_body_without_content_length_is_refused(self, cimd):
        url = cimd.url()
        cimd.serve(PATH, Route(200, document(url, padding="x" * 6000), content_length=False))
        assert "size" in refused(url)

    def test_one_byte_over_5_kb_is_refused(self, cimd):
        url = cimd.url()
        doc = document(url, padding="")
        doc["padding"] = "x" * (5 * 1024 + 1 - len(json.dumps(doc).encode()))
        cimd.serve(PATH, Route(200, json.dumps(doc).encode(), content_length=False))
        assert "size" in refused(url)

    # A slow server times out; a body trickled byte by byte is cut too: each byte arrives well within
    # a per-read timeout, only a whole-fetch deadline stops it.
    @pytest.mark.parametrize("slowness", [{"delay": 2}, {"trickle": 0.2}], ids=["slow server", "trickled body"])
    def test_a_fetch_is_cut_at_the_deadline(self, cimd, settings, slowness):
        settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_FETCH_TIMEOUT_SECONDS": 0.5}
        url = cimd.url()
        cimd.serve(PATH, Route(200, document(url), **slowness))
        started = time.monotonic()
        assert client_get_by_metadata_url(url, None) is None
        assert time.monotonic() - started < 1.5

    def test_certificate_must_name_the_host(self, cimd):
        url = f"https://wrong-name.example.test:{cimd.port}{PATH}"
        cimd.serve(PATH, Route(200, document(url)))
        assert "Hostname mismatch" in refused(url)
        assert client_get_by_metadata_url(url, None) is None

    def test_untrusted_certificate(self, cimd, settings):
        url = serve_document(cimd)
        del settings.CIMD_TEST_CA_FILE
        assert "CERTIFICATE_VERIFY_FAILED" in refused(url)
        assert client_get_by_metadata_url(url, None) is None

    @pytest.mark.parametrize("status", [404, 500, 204])
    def test_non_200(self, cimd, status):
        cimd.serve(PATH, Route(status, document(cimd.url())))
        assert client_get_by_metadata_url(cimd.url(), None) is None

    @pytest.mark.parametrize("content_type", ["text/html", "text/plain", "application/octet-stream"])
    def test_not_json_content_type(self, cimd, content_type):
        cimd.serve(PATH, Route(200, document(cimd.url()), headers={"Content-Type": content_type}))
        assert client_get_by_metadata_url(cimd.url(), None) is None

    @pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'"string"'])
    def test_not_a_json_object(self, cimd, body):
        cimd.serve(PATH, Route(200, body))
        assert client_get_by_metadata_url(cimd.url(), None) is None


class TestClientIdUrl:
    @pytest.mark.parametrize(
        "client_id",
        [
            "http://client.example.test/oauth/client.json",
            "https://user@client.example.test/oauth/client.json",
            "https://client.example.test/oauth/client.json#frag",
            "https://client.example.test/a/../client.json",
            "https://client.example.test",
            "https://client.example.test/" + "a" * 255,
            "dcr_notaurl",
            "",
        ],
    )
    def test_invalid_client_id_urls_are_unknown_clients(self, cimd, client_id):
        assert client_get_by_metadata_url(client_id, None) is None
        assert cimd.hits == []


class TestDocumentRules:
    def test_client_id_must_equal_the_url_exactly(self, cimd):
        url = cimd.url()
        for other in (url + "?x=1", url.upper(), url.replace(PATH, "/other.json"), "https://evil.example/c.json"):
            cimd.serve(PATH, Route(200, document(url, client_id=other)))
            assert "does not match" in refused(url)
            assert client_get_by_metadata_url(url, None) is None
        assert Application.objects.count() == 0

    def test_client_id_missing(self, cimd):
        url = cimd.url()
        cimd.serve(PATH, Route(200, {k: v for k, v in document(url).items() if k != "client_id"}))
        assert client_get_by_metadata_url(url, None) is None

    @pytest.mark.parametrize(
        "overrides",
        [
            {"token_endpoint_auth_method": "client_secret_post"},
            {"token_endpoint_auth_method": "private_key_jwt"},
            {"client_secret": "s3cret"},
            {"client_secret_expires_at": 0},
            {"redirect_uris": ["http://assistant.example/callback"]},
            {"redirect_uris": ["https://assistant.example/cb#x"]},
            {"redirect_uris": []},
            {"redirect_uris": None},
            {"redirect_uris": [f"https://a.example/{i}" for i in range(11)]},
            {"grant_types": ["client_credentials"]},
            {"response_types": ["token"]},
            {"client_name": "n" * 101},
            {"application_type": "web"},  # with an http loopback redirect URI
            {"client_uri": "javascript:alert(1)"},
        ],
        ids=lambda o: ",".join(o),
    )
    def test_registration_rules_apply_to_documents(self, cimd, overrides):
        url = cimd.url()
        cimd.serve(PATH, Route(200, document(url, **overrides)))
        assert client_get_by_metadata_url(url, None) is None
        assert Application.objects.count() == 0


# --- caching ---------------------------------------------------------------------------------


def lifetime(client):
    return (client.cimd_expires_at - timezone.now()).total_seconds()


class TestCaching:
    def test_valid_document_is_reused_within_its_lifetime(self, cimd):
        url = serve_document(cimd, headers={"Cache-Control": "public, max-age=600"})
        first = client_get_by_metadata_url(url, None)
        assert 590 < lifetime(first) <= 600
        second = client_get_by_metadata_url(url, None)
        assert second.pk == first.pk
        assert cimd.hits_on(PATH) == 1

    def test_lifetime_is_bounded_to_a_day(self, cimd):
        url = serve_document(cimd, headers={"Cache-Control": "max-age=31536000"})
        assert 86390 < lifetime(client_get_by_metadata_url(url, None)) <= 86400

    def test_no_cache_headers_means_one_hour(self, cimd):
        url = serve_document(cimd)
        assert 3590 < lifetime(client_get_by_metadata_url(url, None)) <= 3600

    @pytest.mark.parametrize("header", ["no-store", "no-cache", "max-age=0", "no-store, max-age=600"])
    def test_uncacheable_documents_are_fetched_every_time(self, cimd, header):
        url = serve_document(cimd, headers={"Cache-Control": header})
        assert client_get_by_metadata_url(url, None) is not None
        assert client_get_by_metadata_url(url, None) is not None
        assert cimd.hits_on(PATH) == 2

    def test_an_error_is_never_kept_as_the_document_only_delays_the_next_fetch(self, cimd, limiter):
        # A failing URL is not fetched again for a minute; after that it is, whatever the error said.
        url = cimd.url()
        cimd.serve(PATH, Route(500, b"oops", headers={"Cache-Control": "max-age=3600"}))
        assert client_get_by_metadata_url(url, None) is None
        serve_document(cimd)
        limiter.clock.advance(59)
        assert client_get_by_metadata_url(url, None) is None
        assert cimd.hits_on(PATH) == 1
        limiter.clock.advance(1)
        assert client_get_by_metadata_url(url, None) is not None
        assert cimd.hits_on(PATH) == 2

    def test_an_invalid_document_is_never_kept_either(self, cimd, limiter):
        url = cimd.url()
        cimd.serve(PATH, Route(200, document(url, client_id="https://other.example/c.json")))
        assert client_get_by_metadata_url(url, None) is None
        serve_document(cimd)
        limiter.clock.advance(60)
        assert client_get_by_metadata_url(url, None) is not None
        assert not Application.objects.exclude(client_id=url).exists()

    def test_expired_document_is_fetched_again_and_updated(self, cimd):
        url = serve_document(cimd, headers={"Cache-Control": "max-age=600"})
        client = client_get_by_metadata_url(url, None)
        Application.objects.filter(pk=client.pk).update(cimd_expires_at=timezone.now())
        serve_document(cimd, client_name="Renamed Assistant")
        refreshed = client_get_by_metadata_url(url, None)
        assert refreshed.pk == client.pk
        assert refreshed.name == "Renamed Assistant"
        assert cimd.hits_on(PATH) == 2

    def test_stale_document_is_never_used_when_the_refetch_fails(self, cimd):
        url = serve_document(cimd, headers={"Cache-Control": "max-age=600"})
        client = client_get_by_metadata_url(url, None)
        Application.objects.filter(pk=client.pk).update(cimd_expires_at=timezone.now())
        cimd.serve(PATH, Route(503, b"down"))
        assert client_get_by_metadata_url(url, None) is None
        # The row stays (tokens may reference it); only its use at authorize is refused.
        assert Application.objects.filter(pk=client.pk).exists()

    def test_refetch_keeps_staff_decisions(self, cimd):
        url = serve_document(cimd, headers={"Cache-Control": "no-store"})
        client = client_get_by_metadata_url(url, None)
        Application.objects.filter(pk=client.pk).update(verified_partner=True, last_used_at=timezone.now())
        refreshed = client_get_by_metadata_url(url, None)
        assert refreshed.verified_partner
        assert refreshed.last_used_at is not None
        assert refreshed.registration_kind == "verified partner"

    def test_disabled_client_is_returned_without_a_fetch(self, cimd):
        url = serve_document(cimd, headers={"Cache-Control": "no-store"})
        client = client_get_by_metadata_url(url, None)
        Application.objects.filter(pk=client.pk).update(disabled_at=timezone.now())
        assert client_get_by_metadata_url(url, None).is_disabled
        assert cimd.hits_on(PATH) == 1

    def test_dot_permission_classes_gate_fetches(self, cimd, settings):
        url = serve_document(cimd)
        settings.OAUTH2_PROVIDER = {
            **settings.OAUTH2_PROVIDER,
            "CIMD_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.cimd.HostAllowlistCIMDPermission",),
            "CIMD_ALLOWED_HOSTS": [".partner.example"],
        }
        assert client_get_by_metadata_url(url, None) is None
        assert cimd.hits == []
        settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_ALLOWED_HOSTS": [".example.test"]}
        assert client_get_by_metadata_url(url, None) is not None

    def test_a_url_owned_by_another_kind_of_client_is_never_taken_over(self, cimd):
        url = serve_document(cimd, client_name="Impostor")
        make_client(client_id=url, name="Partner", redirect_uris="https://partner.example/cb")
        assert client_get_by_metadata_url(url, None).name == "Partner"
        assert cimd.hits == []


# --- end to end: authorize, consent, token -----------------------------------------------------

REDIRECT = "https://assistant.example/callback"


def test_full_flow_with_a_metadata_document_client(cimd, user):
    url = serve_document(cimd, headers={"Cache-Control": "max-age=600"})
    browser = signed_in(user)
    verifier, challenge = pkce()
    stub = Application(client_id=url)
    txn_id = start(browser, stub, challenge, redirect_uri=REDIRECT)

    body = browser.get(f"/api/oauth/transactions/{txn_id}").json()
    assert body["client"]["client_id"] == url
    assert body["client"]["name"] == "Example Assistant"
    assert body["client"]["registration"] == "registered by URL"
    assert body["client"]["redirect_host"] == "assistant.example"

    response = decide(browser, txn_id, "allow")
    assert response.status_code == 200, response.content
    code = query(response.json()["redirect_to"])["code"]
    tokens = exchange(Client(), stub, code, verifier, redirect_uri=REDIRECT)
    assert tokens.status_code == 200, tokens.content
    me = Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {tokens.json()['access_token']}")
    assert me.status_code == 200
    # One fetch served authorize; the cached row served the rest.
    assert cimd.hits_on(PATH) == 1


def test_loopback_redirect_of_a_document_matches_any_port(cimd, user):
    url = serve_document(cimd)
    _verifier, challenge = pkce()
    start(signed_in(user), Application(client_id=url), challenge, redirect_uri="http://127.0.0.1:61234/callback")


def assert_error_page(response):
    assert response.status_code == 400
    assert "Location" not in response
    assert "invalid_client" in response.content.decode()


def test_invalid_document_renders_the_error_page(cimd, user):
    url = cimd.url()
    cimd.serve(PATH, Route(200, document(url, client_id="https://evil.example/client.json")))
    _verifier, challenge = pkce()
    params = authorize_params(Application(client_id=url), challenge, redirect_uri=REDIRECT)
    assert_error_page(signed_in(user).get("/oauth/authorize", params))
    assert not Application.objects.filter(client_id=url).exists()


def test_document_on_a_private_address_renders_the_error_page(cimd, dns, user):
    dns.answers["internal.example.test"] = ["10.1.2.3"]
    url = f"https://internal.example.test:{cimd.port}{PATH}"
    _verifier, challenge = pkce()
    params = authorize_params(Application(client_id=url), challenge, redirect_uri=REDIRECT)
    assert_error_page(signed_in(user).get("/oauth/authorize", params))


def test_redirected_document_renders_the_error_page(cimd, user):
    target = serve_document(cimd, path="/moved.json")
    cimd.serve(PATH, Route(302, b"", headers={"Location": target}))
    _verifier, challenge = pkce()
    params = authorize_params(Application(client_id=cimd.url()), challenge, redirect_uri=REDIRECT)
    assert_error_page(signed_in(user).get("/oauth/authorize", params))
    assert cimd.hits_on("/moved.json") == 0


def test_unregistered_redirect_uri_of_a_document_client(cimd, user):
    url = serve_document(cimd)
    _verifier, challenge = pkce()
    params = authorize_params(Application(client_id=url), challenge, redirect_uri="https://evil.example/cb")
    response = signed_in(user).get("/oauth/authorize", params)
    assert response.status_code == 400
    assert "Location" not in response
