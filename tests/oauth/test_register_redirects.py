"""Redirect URI matching at authorize time for registered clients (docs/spec.md 4.3, 5.4; RFC 8252 7.3).

Loopback redirect URIs on 127.0.0.1, localhost and [::1] match on any port; everything
else matches exactly. Both matchers are checked: the core's ``redirect_uri_allowed``
(authorize) and DOT's ``Application.redirect_uri_allowed`` (used inside oauthlib).
"""

import json

import pytest

from apps.oauth.models import Application
from apps.oauth.selectors import redirect_uri_allowed

pytestmark = pytest.mark.django_db


def registered(client, uris, application_type="native"):
    response = client.post(
        "/oauth/register",
        data=json.dumps({"client_name": "CLI", "redirect_uris": uris, "application_type": application_type}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return Application.objects.get(client_id=response.json()["client_id"])


def both(application, uri):
    core = redirect_uri_allowed(application, uri)
    dot = application.redirect_uri_allowed(uri)
    assert core == dot, (uri, core, dot)
    return core


@pytest.mark.parametrize(
    ("registered_uri", "requested"),
    [
        ("http://127.0.0.1/callback", "http://127.0.0.1:53127/callback"),
        ("http://127.0.0.1/callback", "http://127.0.0.1:1/callback"),
        ("http://127.0.0.1:8000/callback", "http://127.0.0.1:65535/callback"),
        ("http://127.0.0.1:8000/callback", "http://127.0.0.1/callback"),
        ("http://localhost/callback", "http://localhost:33418/callback"),
        ("http://localhost:3000/", "http://localhost:49152/"),
        ("http://[::1]/callback", "http://[::1]:8080/callback"),
        ("http://[::1]:9/cb?x=1", "http://[::1]:10/cb?x=1"),
    ],
)
def test_loopback_matches_any_port(client, registered_uri, requested):
    assert both(registered(client, [registered_uri]), requested)


@pytest.mark.parametrize(
    ("registered_uri", "requested"),
    [
        # Same port, different path or query: no match.
        ("http://127.0.0.1/callback", "http://127.0.0.1:5000/other"),
        ("http://127.0.0.1/callback", "http://127.0.0.1:5000/callback/extra"),
        ("http://127.0.0.1/callback", "http://127.0.0.1:5000/callback?x=1"),
        # Loopback hosts are not interchangeable.
        ("http://127.0.0.1/callback", "http://localhost:5000/callback"),
        ("http://localhost/callback", "http://[::1]:5000/callback"),
        ("http://[::1]/callback", "http://127.0.0.1:5000/callback"),
        # Not loopback at all.
        ("http://127.0.0.1/callback", "http://127.0.0.2:5000/callback"),
        ("http://localhost/callback", "http://localhost.evil.example:5000/callback"),
        # https is never port-flexible, even on loopback hosts.
        ("http://127.0.0.1/callback", "https://127.0.0.1:5000/callback"),
        # A fragment is never a registered URI.
        ("http://127.0.0.1/callback", "http://127.0.0.1:5000/callback#x"),
    ],
)
def test_loopback_other_parts_match_exactly(client, registered_uri, requested):
    assert not both(registered(client, [registered_uri]), requested)


def test_loopback_with_userinfo_is_refused(client):
    application = registered(client, ["http://127.0.0.1/callback"])
    assert not redirect_uri_allowed(application, "http://attacker@127.0.0.1:5000/callback")
    assert not application.redirect_uri_allowed("http://attacker@127.0.0.1:5000/callback")


@pytest.mark.parametrize(
    ("requested", "allowed"),
    [
        ("https://assistant.example/cb", True),
        ("https://assistant.example:443/cb", False),
        ("https://assistant.example:8443/cb", False),
        ("https://assistant.example/cb/", False),
        ("https://assistant.example/cb?x=1", False),
        ("https://assistant.example/CB", False),
        ("http://assistant.example/cb", False),
        ("https://evil.example/cb", False),
        ("https://assistant.example.evil.example/cb", False),
    ],
)
def test_https_matches_exactly(client, requested, allowed):
    application = registered(client, ["https://assistant.example/cb"], application_type="web")
    assert both(application, requested) is allowed


def test_any_registered_uri_may_match(client):
    application = registered(client, ["https://assistant.example/cb", "http://127.0.0.1/cb"])
    assert both(application, "https://assistant.example/cb")
    assert both(application, "http://127.0.0.1:4242/cb")
    assert not both(application, "http://127.0.0.1:4242/other")


@pytest.mark.parametrize(
    "requested",
    [
        "http://127.0.0.1:abc/cb",
        "http://127.0.0.1:99999/cb",
        "http://127.0.0.1:65536/cb",
        "http://127.0.0.1:-1/cb",
        "http://127.0.0.1:/cb",
        "http://127.0.0.1:0/cb",
        "http://127.0.0.1:+80/cb",
        "http://127.0.0.1: 80/cb",
        "http://127.0.0.1:080/cb",
        "http://127.0.0.1:8%30/cb",
        "http://127.0.0.1:\u0663/cb",
        "http://127.0.0.1:9999:9999/cb",
    ],
    ids=repr,
)
def test_a_loopback_port_must_be_a_real_port(client, requested):
    # docs/spec.md 5.4: any port, which is a number from 1 to 65535; anything else matches nothing.
    application = registered(client, ["http://127.0.0.1:9999/cb"])
    assert not both(application, requested)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]"])
@pytest.mark.parametrize("port", ["1", "80", "9999", "65535"])
def test_every_real_port_matches_on_every_loopback_host(client, host, port):
    application = registered(client, [f"http://{host}:9999/cb"])
    assert both(application, f"http://{host}:{port}/cb")
    assert both(application, f"http://{host}/cb")
    assert not both(application, f"http://{host}:{port}99999/cb")


@pytest.mark.parametrize("host", ["localhost", "[::1]"])
@pytest.mark.parametrize("port", ["abc", "99999", "-1", "", "0"])
def test_no_loopback_host_takes_a_port_that_is_not_one(client, host, port):
    application = registered(client, [f"http://{host}:9999/cb"])
    assert not both(application, f"http://{host}:{port}/cb")
