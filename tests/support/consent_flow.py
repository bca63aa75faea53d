"""Pieces of the real-browser consent tests: the client's own redirect target, the way to a
consent page, signed in, and the code it sends back, exchanged."""

import re
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

from django.test import Client

from tests.browser import chromium_page
from tests.support.factories import PASSWORD
from tests.support.oauth import exchange, make_client, pkce, query


class _Callback(BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>client</title><p>Connected.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextmanager
def callback_server():
    """A loopback server on a free port standing for the client's redirect URI; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Callback)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/callback"
    finally:
        server.shutdown()
        server.server_close()


def authorize_query(
    service: str, client_id: str, redirect_uri: str, challenge: str, scope: str, state: str = "consent-state"
) -> str:
    return urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "scope": scope,
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": f"{service}/mcp",
        }
    )


def open_consent(page, service: str, email: str, query: str) -> None:
    """Sign in on the way to /oauth/authorize?query and wait for the consent page."""
    page.goto(f"{service}/login?" + urlencode({"next": f"/oauth/authorize?{query}"}))
    page.fill("#id_username", email)
    page.fill("#id_password", PASSWORD)
    page.click("form[action='/login'] button[type=submit]")
    page.wait_for_url(re.compile(re.escape(f"{service}/oauth/consent?transaction=otx_")))


def self_registered_app(name: str):
    """An app registered by itself (DCR) whose redirect URI is loopback, so any port of it matches."""
    return make_client(name=name, redirect_uris="http://127.0.0.1/callback", registration_source="dcr")


@contextmanager
def consent_page(service: str, width: int, email: str, app, scope: str, **query_options):
    """A browser ``width`` px wide on the consent page of ``app`` asking ``scope``, signed in as
    ``email`` on the way; yields the page, the client's redirect URI (``callback_server``) and the
    PKCE verifier of the request."""
    verifier, challenge = pkce()
    with callback_server() as callback, chromium_page(width) as page:
        query = authorize_query(service, app.client_id, callback, challenge, scope, **query_options)
        open_consent(page, service, email, query)
        yield page, callback, verifier


def land(page, callback: str, button: str = "#allow") -> str:
    """Click ``button``; the address the browser lands on at the client."""
    page.click(button)
    page.wait_for_url(re.compile(re.escape(f"{callback}?")))
    return page.url


def exchange_landed(service: str, app, landed: str, callback: str, verifier: str) -> dict:
    """The tokens for the code the browser landed with. Call it after the browser has closed:
    Django's ORM refuses to run inside Playwright's event loop."""
    response = exchange(
        Client(), app, query(landed)["code"], verifier, redirect_uri=callback, resource=f"{service}/mcp"
    )
    assert response.status_code == 200, response.content
    return response.json()
