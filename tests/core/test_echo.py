"""Echoed input carries no bidi or zero-width characters (apps/core/echo.py, the one owner of the
rule): an assistant relaying an error message or a spoken line relays what the service said."""

import pytest
from django.test import Client

from apps.core.echo import echoed, has_formatting
from tests.rates.factories import make_deck
from tests.support.factories import make_api_key
from tests.support.mcp import McpClient, install_fake_tokens

FORMATTING = [chr(c) for c in [*range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]]


def test_every_formatting_character_is_stripped_and_nothing_else():
    assert len(FORMATTING) == 14
    for char in FORMATTING:
        assert echoed(f"DE{char}x") == "DEx" and has_formatting(char)
    kept = "José Álvarez 王小明 مرحبا \u00a0\u2010\u2060\ufeff"
    assert echoed(kept) == kept


@pytest.mark.django_db
@pytest.mark.parametrize("char", FORMATTING)
def test_a_rates_error_never_quotes_them(user, char):
    make_deck()
    secret = make_api_key(user, scopes=["rates:read"])[1]
    for to in (f"DE{char}land{char}", f"Kor{char}ea", f"+4{char}9 1"):
        response = Client().get("/v1/rates", {"to": to}, HTTP_AUTHORIZATION=f"Bearer {secret}")
        assert response.status_code == 400, response.content
        message = response.json()["error"]["message"]
        assert not has_formatting(message), message


@pytest.mark.django_db
def test_tool_sentences_never_quote_them(user, settings):
    make_deck()
    tokens = install_fake_tokens(settings)
    mcp = McpClient(tokens.issue(user, scopes=frozenset({"rates:read", "contacts:read"})))
    for name, arguments in [
        ("svc_get_rate", {"destination": "Narnia\u202e"}),
        ("svc_search_contacts", {"query": "ana\u202egnol\u2066\u200b"}),
    ]:
        result = mcp.request("tools/call", {"name": name, "arguments": arguments}).json()["result"]
        texts = [result["content"][0]["text"], (result.get("structuredContent") or {}).get("spoken", "")]
        assert all(not has_formatting(text) for text in texts), texts
