"""What a newcomer reads on the docs pages of a local server: the spend limits in force (from the settings the
limits are enforced with), a Claude-on-the-web address that can work, a security contact that exists, event
types that wrap only between their words."""

import re

import pytest

from tests.support.docs import page, text

pytestmark = pytest.mark.django_db


def test_the_calls_page_gives_the_spend_limits_in_force(client, docs_here, settings):
    words = text(page(client, "/docs/calls"))
    assert "The account's spend a day $50.00" in words
    assert "Each API key's or app's spend a day $20.00" in words
    assert "Calls to one number in the last hour 5" in words and "Different numbers called a day 20" in words
    assert "spend_limit_exceeded" in words
    # The page reads the settings the limits are enforced with: changed there, changed here.
    settings.CALL_SPEND_LIMIT_DAILY = "120.50"
    settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY = "7"
    settings.CALLS_PER_NUMBER_HOURLY = 3
    settings.CALL_DESTINATIONS_DAILY = 12
    html = page(client, "/docs/calls")
    for anchor, value in (
        ("limit-account-daily", "$120.50"),
        ("limit-credential-daily", "$7.00"),
        ("limit-calls-per-number", "3"),
        ("limit-destinations", "12"),
    ):
        assert re.search(rf'id="{anchor}">{re.escape(value)}<', html), anchor


def claude_web(html: str) -> str:
    return text(re.search(r"<strong>Claude \(web and desktop\)</strong>(.*?)</li>", html, re.S).group(1))


def test_claude_on_the_web_is_never_told_to_paste_a_local_address(client, docs_here, settings):
    said = claude_web(page(client, "/docs/mcp"))
    assert "public https address" in said and "BASE_URL" in said
    assert "paste http://testserver/mcp" not in said  # named only as what Claude's cloud cannot reach


def test_claude_on_the_web_pastes_the_servers_own_https_address(client, settings):
    settings.BASE_URL = settings.APP_URL = "https://api.example.com"
    settings.DOCS_URL = "https://api.example.com/docs"
    settings.ALLOWED_HOSTS = ["api.example.com", "testserver"]
    response = client.get("/docs/mcp", HTTP_HOST="api.example.com", secure=True)
    assert response.status_code == 200
    assert claude_web(response.content.decode()).startswith(
        ": Settings → Connectors → Add custom connector . Name it, paste https://api.example.com/mcp as the URL"
    )


@pytest.mark.parametrize("base", ["http://127.0.0.1:8000", "http://localhost:8000"])
def test_a_local_server_without_a_security_contact_says_so(client, settings, base):
    settings.BASE_URL = settings.APP_URL = base
    settings.DOCS_URL = f"{base}/docs"
    settings.SECURITY_CONTACT = ""
    html = page(client, "/docs/security")
    assert "security@127.0.0.1" not in html and "security@localhost" not in html
    assert 'id="no-contact"' in html and "SECURITY_CONTACT" in html


def test_a_deployment_on_its_domain_gets_security_at_that_domain(client, settings):
    settings.BASE_URL = settings.APP_URL = "https://api.example.com"
    settings.DOCS_URL = "https://api.example.com/docs"
    settings.ALLOWED_HOSTS = ["api.example.com"]
    settings.SECURITY_CONTACT = ""
    response = client.get("/docs/security", HTTP_HOST="api.example.com", secure=True)
    html = response.content.decode()
    assert 'href="mailto:security@api.example.com"' in html and 'id="no-contact"' not in html


def test_event_types_may_wrap_only_after_a_dot_or_an_underscore(client, docs_here):
    from apps.webhooks.public import EVENT_TYPES

    html = page(client, "/docs/webhooks")
    for name in EVENT_TYPES:
        assert f"<code>{name.replace('_', '_<wbr>').replace('.', '.<wbr>')}</code>" in html, name


def test_the_calls_page_says_how_to_try_the_numbers_for_your_own_phone(client, docs_here):
    from apps.telephony import simulator

    words = text(page(client, "/docs/calls"))
    command = f"manage.py sim_caller_id --email you@example.com --number {simulator.YOUR_NUMBERS[0].number} --test"
    assert command in words and "manage.py sim_sms" in words
