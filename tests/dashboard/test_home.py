"""The home page after sign-in: how to connect an assistant, the API base, and where
the docs, API keys and connected apps are."""

import pytest
from django.test import Client

from tests.support.oauth import signed_in

pytestmark = pytest.mark.django_db


def test_home_needs_sign_in():
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login")


def test_home_shows_the_mcp_url_the_api_base_and_the_links(user, settings):
    settings.BASE_URL = "https://api.example.test"
    settings.DOCS_URL = "https://docs.example.test"

    html = signed_in(user).get("/").content.decode()

    assert '<code id="mcp-url">https://api.example.test/mcp</code>' in html
    assert 'data-copy="mcp-url"' in html  # its copy button
    assert '<code id="api-base">https://api.example.test/v1</code>' in html
    assert 'href="https://docs.example.test"' in html
    assert 'href="https://docs.example.test/mcp"' in html
    assert 'href="/settings/api-keys"' in html
    assert 'href="/settings/connected-apps"' in html
    assert "Ada Lovelace" in html


def test_home_follows_the_settings_of_the_deployment(user, settings):
    settings.BASE_URL = "http://127.0.0.1:8001"
    settings.DOCS_URL = "http://127.0.0.1:8001/docs"
    html = signed_in(user).get("/").content.decode()
    assert "http://127.0.0.1:8001/mcp" in html and 'href="http://127.0.0.1:8001/docs/mcp"' in html
