"""The pages at {docs_url}: public, in the site's layout, built from the tables the code runs on."""

import re
import struct
from unittest import mock

import pytest
from django.conf import settings

from apps.credentials.scopes import READ_ONLY_STARTER_SET, SCOPES
from apps.mcp_bridge.registry import TOOLS, ToolSpec, register
from apps.oauth.discovery import security_txt
from apps.ratelimit import budgets
from tests.support.docs import page, text

pytestmark = pytest.mark.django_db

PAGES = [
    "/docs",
    "/docs/api",
    "/docs/errors",
    "/docs/oauth",
    "/docs/mcp",
    "/docs/versions",
    "/docs/security",
    "/docs/webhooks",
]


@pytest.mark.parametrize("path", PAGES)
def test_each_page_is_public_and_in_the_site_layout(client, docs_here, path):
    html = page(client, path)
    assert '<header class="site">' in html  # the site's base template
    assert 'name="viewport"' in html
    for other in PAGES:  # each page links to every other
        assert f'href="{docs_here}{other.removeprefix("/docs")}"' in html


@pytest.mark.parametrize("path", PAGES)
def test_nothing_is_loaded_from_another_origin(client, docs_here, path):
    html = page(client, path)
    for url in re.findall(r'<(?:script|link|img|iframe)[^>]+(?:src|href)="([^"]+)"', html):
        assert url.startswith(("http://testserver/", "/")), f"{path} loads {url}"
    assert "../" + "shared" not in html


def test_a_signed_in_visitor_sees_the_account_navigation(client, docs_here, user):
    client.force_login(user)
    html = page(client, "/docs/mcp")
    assert 'aria-label="Account settings"' in html and user.email in html


def test_the_docs_root_with_a_slash_redirects_to_the_index(client, docs_here):
    response = client.get("/docs/")
    assert response.status_code == 301 and response["Location"] == "/docs"


def test_the_reference_is_rendered_from_the_openapi_document_with_a_shipped_bundle(client, docs_here):
    html = page(client, "/docs/api")
    assert f'<script src="{docs_here}/assets/redoc.standalone.js"></script>' in html
    assert 'Redoc.init("http://testserver/v1/openapi.json"' in html
    bundle = client.get("/docs/assets/redoc.standalone.js")
    assert bundle.status_code == 200
    assert bundle["Content-Type"].startswith("text/javascript")
    assert "public" in bundle["Cache-Control"]
    assert b"redoc" in bundle.content[:100000].lower()


def test_only_the_shipped_assets_are_served(client, docs_here):
    for name in ("nope.js", "..%2F..%2Fsettings.py", "redoc.standalone.js.map"):
        assert client.get(f"/docs/assets/{name}").status_code == 404


def test_pages_take_no_writes(client, docs_here):
    assert client.post("/docs/errors").status_code == 405


def test_the_mcp_page_names_the_server_url_and_every_tool_of_the_registry(client, docs_here):
    html = page(client, "/docs/mcp")
    assert "http://testserver/mcp" in html
    for name, spec in TOOLS.items():
        assert f'id="{name}"' in html
        assert spec.title in html
    whoami = text(html[html.index('id="svc_whoami"') :])
    assert "any scope" in whoami
    for client_name in ("Claude", "ChatGPT", "VS Code", "Cursor", "MCP Inspector"):
        assert client_name in html


@mock.patch.dict(TOOLS)
def test_a_new_tool_appears_on_the_mcp_page_with_its_scope_and_inputs(client, docs_here):
    register(
        ToolSpec(
            name="svc_docs_probe",
            title="Docs probe",
            description="Only for this test.",
            handler=lambda **_: {"spoken": "ok"},
            input_schema={
                "type": "object",
                "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 5, "description": "How many."}},
                "required": ["limit"],
                "additionalProperties": False,
            },
            output_schema={"type": "object", "properties": {"spoken": {"type": "string"}}},
            scope="contacts:read",
        )
    )
    html = page(client, "/docs/mcp")
    section = text(html[html.index('id="svc_docs_probe"') :].split("</section>")[0])
    assert "Docs probe" in section and "Only for this test." in section
    assert "contacts:read" in section and SCOPES["contacts:read"].sentence in section
    assert "limit (required) integer How many. (at least 1, at most 5)" in section
    assert 'href="#scope-contacts-read"' in html and 'id="scope-contacts-read"' in html


def test_the_scopes_are_the_scope_tables(client, docs_here):
    for path in ("/docs/mcp", "/docs/oauth"):
        html = text(page(client, path))
        for scope in SCOPES.values():
            assert scope.sentence in html
        assert " ".join(READ_ONLY_STARTER_SET) in html


def test_the_oauth_page_names_endpoints_pkce_resource_refresh_lockouts_and_registration(client, docs_here):
    html = page(client, "/docs/oauth")
    words = text(html)
    for endpoint in ("/oauth/authorize", "/oauth/token", "/oauth/revoke", "/oauth/register"):
        assert f"http://testserver{endpoint}" in words
    assert "S256" in words and "code_verifier" in words
    assert "http://testserver/v1" in words and "http://testserver/mcp" in words
    for anchor in ("endpoints", "pkce", "resource", "refresh", "lockouts", "registration", "client-metadata"):
        assert f'id="{anchor}"' in html
    # The numbers come from the budgets table.
    assert f"{budgets.EXCHANGE_FAILURES_IP.penalty} s back-off" in words
    assert f"{budgets.GRANT_FAMILY.rate}/min" in words
    assert f"burst {budgets.TOKEN_FLOOD_IP.burst}, then {budgets.TOKEN_FLOOD_IP.rate}/min" in words


def test_the_security_page_is_the_policy_security_txt_names(client, docs_here, settings):
    settings.SECURITY_CONTACT = "mailto:security@example.org"
    policy = next(line for line in security_txt().splitlines() if line.startswith("Policy:"))
    assert policy == f"Policy: {docs_here}/security"
    html = page(client, "/docs/security")
    assert 'href="mailto:security@example.org"' in html
    assert "Reporting a vulnerability" in html


def test_the_versions_page_has_the_migration_notes_the_sunset_message_links(client, docs_here):
    html = page(client, "/docs/versions")
    assert 'id="migrating"' in html
    from apps.api_v1.versions import CURRENT_VERSION

    assert CURRENT_VERSION in html


def test_the_index_lists_the_live_budgets(client, docs_here):
    words = text(page(client, "/docs"))
    assert f"{budgets.READS_PRINCIPAL.rate}/min" in words
    assert f"{budgets.REGISTER_IP_HOURLY.rate}/hour" in words


# docs/spec.md 8.1: each authenticated class, what it applies to, per principal and per user.
SPEC_CLASSES = (
    ("Transcript requests", "POST /v1/calls/{id}/transcript", "5/min", "5/min"),
    ("Quotes", "POST /v1/quotes, svc_quote_call", "20/min", "20/min"),
    ("Call placement", "POST /v1/calls, svc_place_call", "10/min", "10/min"),
    ("Message reads", "GET /v1/messages", "60/min", "120/min"),
)


@pytest.mark.parametrize(("name", "applies_to", "per_principal", "per_user"), SPEC_CLASSES)
def test_the_index_lists_each_phase_3_budget_of_the_spec(client, docs_here, name, applies_to, per_principal, per_user):
    rows = re.findall(r"<tr>(.*?)</tr>", page(client, "/docs"), re.S)
    cells = [re.findall(r'data-label="[^"]+">(.*?)</td>', row, re.S) for row in rows]
    mine = [row for row in cells if row and row[0] == name]
    assert [(row[2], row[3]) for row in mine] == [("connection or key", per_principal), ("user", per_user)]
    assert applies_to in mine[0][1]


def test_the_index_lists_each_numbers_own_message_budget(client, docs_here):
    words = text(page(client, "/docs"))
    assert "whoever reads them, REST and svc_read_messages alike" in words
    assert f"number {budgets.MESSAGES_NUMBER.rate}/min" in words


@pytest.mark.parametrize("path", PAGES)
def test_the_browser_is_told_to_load_nothing_from_another_origin(client, docs_here, path):
    policy = dict(
        directive.strip().split(" ", 1) for directive in client.get(path)["Content-Security-Policy"].split(";")
    )
    assert policy["default-src"] == "'self'"
    assert policy["img-src"] == "'self' data:"  # the Redoc bundle's CDN logo stays unloaded
    assert policy["connect-src"] == "'self' http://testserver"  # the OpenAPI document at BASE_URL
    assert policy["frame-ancestors"] == "'none'"


def test_the_reads_budget_is_said_to_cover_every_v1_read(client, docs_here):
    # Every bearer GET under /v1 spends it (apps.api_v1.throttling), not GET /v1/me alone.
    words = text(page(client, "/docs"))
    assert "GET /v1/me and every /mcp request" not in words
    assert "every /v1 read" in words


def test_the_index_says_how_to_send_a_plus_in_a_url(client, docs_here):
    words = text(page(client, "/docs"))
    assert "%2B" in words and "--data-urlencode" in words


def test_the_security_page_names_every_account_page_in_scope(client, docs_here):
    # Every page of the account navigation, read from the navigation itself.
    nav = (settings.BASE_DIR / "templates" / "settings" / "nav.html").read_text()
    labels = [label.lower() for label in re.findall(r">([^<>{}]+)</a>", nav)]
    assert {"api keys", "billing", "sharing", "activity"} <= set(labels)
    html = page(client, "/docs/security")
    in_scope = text(html.split('id="scope"', 1)[1].split("</ul>", 1)[0]).lower()
    for label in labels:
        assert label in in_scope, label


def test_the_webhooks_page_lists_every_event_type_and_the_retry_schedule(client, docs_here):
    from apps.webhooks.public import EVENT_TYPES

    page = client.get("/docs/webhooks").content.decode()
    for name, event_type in EVENT_TYPES.items():
        assert f'id="{name}"' in page
        if event_type.scope:
            assert event_type.scope in page
    assert "5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h" in page
    assert "standardwebhooks" in page and "webhook-signature" in page


@pytest.mark.parametrize("allowed", [True, False])
def test_the_webhooks_page_says_how_to_receive_webhooks_locally(client, docs_here, settings, allowed):
    settings.WEBHOOK_ALLOW_LOOPBACK = allowed
    said = text(client.get("/docs/webhooks").content.decode())
    assert "WEBHOOK_ALLOW_LOOPBACK" in said and "https tunnel" in said
    assert ("this one allows it" in said) is allowed
    assert ("this one does not" in said) is not allowed
    assert "Who owns an endpoint" in said and "re-aim an endpoint only by taking it over" in said


def test_the_redoc_bundle_asks_no_cdn_for_its_logo(client, docs_here):
    response = client.get("/docs/assets/redoc.standalone.js")
    bundle = response.content
    assert response.status_code == 200 and len(bundle) > 500_000
    assert b"cdn.redoc.ly" not in bundle
    assert b"Redoc" in bundle


def test_the_site_has_a_favicon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    icon = response.content
    # An ICO directory of one 32x32 32-bit image whose data follows the directory (Chromium
    # decodes it: tests/docs/test_docs_browser.py).
    reserved, kind, count = struct.unpack("<HHH", icon[:6])
    width, height, _colours, _reserved, _planes, bits, size, offset = struct.unpack("<BBBBHHII", icon[6:22])
    assert (reserved, kind, count, width, height, bits) == (0, 1, 1, 32, 32, 32)
    assert offset == 22 and offset + size == len(icon)


def test_the_mcp_page_has_a_table_of_contents_reaching_every_section_and_tool(client, docs_here):
    html = page(client, "/docs/mcp")
    contents = html.split('id="contents"', 1)[1].split("</nav>", 1)[0]
    linked = set(re.findall(r'href="#([^"]+)"', contents))
    sections = set(re.findall(r'<h[23] id="([^"]+)"', html))
    tools = set(re.findall(r'<section class="tool" id="([^"]+)"', html))
    assert sections and tools == set(TOOLS)
    assert sections | tools <= linked, (sections | tools) - linked
    assert linked <= sections | tools  # and nothing it links to is missing
