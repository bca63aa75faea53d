"""Every link the service gives out answers 200, and every #fragment names an element of its page.

The links: the ``doc_url`` of every registered error code (and of live error answers),
addresses in error messages and in ``WWW-Authenticate``, the documentation links of the
three discovery documents, the Policy and Canonical lines of security.txt, the addresses
in the OpenAPI document (description, externalDocs, security schemes), and every link,
script and stylesheet of the HTML pages reachable from those and from the home page,
signed out and signed in; and the links of the emails the service sends. DOCS_URL is
at its default, ``{BASE_URL}/docs``.
"""

import json
import re
from datetime import date
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from django.test import Client

from apps.api_v1 import versions
from apps.core.envelope import error_body
from apps.core.errors import REGISTRY, ApiError
from tests.support.docs import ORIGIN
from tests.support.factories import make_api_key

pytestmark = pytest.mark.django_db

URL = re.compile(r"https?://[^\s\"'<>)\]]+")
# Keys of the discovery documents that point people at pages (RFC 8414 2, RFC 9728 2).
DOCUMENTATION_KEYS = {
    "service_documentation",
    "op_policy_uri",
    "op_tos_uri",
    "resource_documentation",
    "resource_policy_uri",
    "resource_tos_uri",
}


class Page(HTMLParser):
    """The ids of a page and the addresses it refers to (links, scripts, stylesheets, images)."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for name in ("href", "src"):
            value = attrs.get(name)
            if value and tag in {"a", "link", "script", "img", "iframe", "area"}:
                self.refs.append(value)


def urls_in(text: str) -> list[str]:
    # A `code span` holds a value to send (resource=...), not a link to follow.
    prose = re.sub(r"`[^`]*`", "", text)
    return [url.rstrip(".,;:") for url in URL.findall(prose)]


def strings_in(document) -> list[str]:
    if isinstance(document, dict):
        return [s for value in document.values() for s in strings_in(value)]
    if isinstance(document, list):
        return [s for value in document for s in strings_in(value)]
    return [document] if isinstance(document, str) else []


def prose_of(document):
    """The document without its response examples and curl samples: those are requests to send
    (with a credential) and values of objects, not links a reader follows."""
    if isinstance(document, dict):
        return {k: prose_of(v) for k, v in document.items() if k not in {"example", "x-codeSamples"}}
    if isinstance(document, list):
        return [prose_of(value) for value in document]
    return document


def from_error(response) -> list[str]:
    links = []
    body = response.json()["error"]
    links.append(body["doc_url"])
    links += urls_in(body["message"])
    links += urls_in(response.headers.get("WWW-Authenticate", ""))
    return links


@pytest.fixture
def emitted(client, docs_here, user, monkeypatch):
    """{link: where the service gave it out}."""
    links: dict[str, str] = {}

    def add(found, where):
        for link in found:
            links.setdefault(link, where)

    # Error bodies: every registered code, rendered by the one renderer ...
    for code in REGISTRY:
        add([error_body(None, ApiError(code))["error"]["doc_url"]], f"doc_url of {code}")
    # ... and live answers, whose messages and challenges carry addresses too.
    add(from_error(client.get("/v1/no-such-route")), "route_not_found")
    add(from_error(client.get("/v1/me")), "GET /v1/me without a credential")
    add(from_error(client.post("/mcp", "{}", content_type="application/json")), "POST /mcp without a credential")
    add(from_error(client.get("/v1/me", HTTP_AUTHORIZATION="Bearer sk_live_nope")), "an unknown API key")
    _key, secret = make_api_key(user)
    retired = versions.ApiVersion("2020-01-01", deprecated_on=date(2020, 6, 1), sunset_on=date(2021, 1, 1))
    monkeypatch.setitem(versions.VERSIONS, retired.name, retired)
    sunset = client.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}", HTTP_SERVICE_VERSION=retired.name)
    assert sunset.json()["error"]["code"] == "version_sunset"
    add(from_error(sunset), "version_sunset")
    # Where a person adds credit: insufficient_credits errors, GET /v1/balance and svc_get_balance name it.
    billing = error_body(None, ApiError("insufficient_credits"))["error"]["billing_url"]
    add([billing], "billing_url of insufficient_credits")
    _key, credits = make_api_key(user, scopes=["credits:read"])
    add([client.get("/v1/balance", HTTP_AUTHORIZATION=f"Bearer {credits}").json()["billing_url"]], "GET /v1/balance")

    # Discovery documents.
    for path in (
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-protected-resource/v1",
        "/.well-known/oauth-protected-resource/mcp",
    ):
        document = client.get(path).json()
        add([v for k, v in document.items() if k in DOCUMENTATION_KEYS and v], path)

    # security.txt: the policy and the file's own address.
    txt = client.get("/.well-known/security.txt").content.decode()
    add(
        [line.split(": ", 1)[1] for line in txt.splitlines() if line.startswith(("Policy:", "Canonical:"))],
        "security.txt",
    )

    # The OpenAPI document: every address in its prose, externalDocs and security schemes' descriptions.
    document = client.get("/v1/openapi.json").json()
    add([s for text in strings_in(document.get("info", {})) for s in urls_in(text)], "openapi info")
    add([document["externalDocs"]["url"]], "openapi externalDocs")
    for name, scheme in document["components"]["securitySchemes"].items():
        add(urls_in(scheme.get("description", "")), f"openapi securitySchemes.{name}")
    for path, operations in document["paths"].items():
        add([url for text in strings_in(prose_of(operations)) for url in urls_in(text)], f"openapi {path}")
    return links


def test_the_places_that_must_link_to_the_docs_do(emitted, docs_here):
    links = set(emitted)
    assert f"{docs_here}/errors#invalid_token" in links
    assert f"{docs_here}/oauth" in links  # service_documentation
    assert f"{docs_here}/mcp" in links  # resource_documentation
    assert f"{docs_here}/security" in links  # security.txt Policy
    assert f"{docs_here}/versions#migrating" in links  # version_sunset
    assert docs_here in links  # openapi externalDocs
    assert f"{ORIGIN}/v1/openapi.json" in links  # route_not_found


def crawl(client: Client, start: dict[str, str], *, signed_in: bool) -> tuple[dict[str, str], list[str]]:
    """GET every link of ours from ``start`` on, following the HTML pages' own links.
    Signed out, a page that sends the visitor to sign in first counts as working (the
    signed-in walk requests it for real). Returns ({link: where found}, [problems])."""
    seen: dict[str, str] = {}
    pages: dict[str, Page] = {}
    problems: list[str] = []
    queue = list(start.items())
    while queue:
        link, where = queue.pop(0)
        if link in seen:
            continue
        seen[link] = where
        address, _fragment = urldefrag(link)
        parts = urlsplit(address)
        if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
            # Not ours: never a script or stylesheet (no CDN), and never a plain-http address.
            if parts.scheme != "https" and parts.scheme not in {"mailto"}:
                problems.append(f"{link} (from {where}): an address outside the service that is not https")
            continue
        if address not in pages:
            response = client.get(parts.path + (f"?{parts.query}" if parts.query else ""))
            if not signed_in and response.status_code == 302 and response["Location"].startswith("/login?next="):
                pages[address] = None
                continue
            if response.status_code != 200:
                problems.append(f"{link} (from {where}): {response.status_code}")
                pages[address] = None
                continue
            page = Page()
            if response["Content-Type"].startswith("text/html"):
                page.feed(response.content.decode())
                for ref in page.refs:
                    target = urljoin(address, ref)
                    if urlsplit(target).scheme in {"http", "https"}:
                        queue.append((target, address))
            pages[address] = page
    for link, where in seen.items():
        address, fragment = urldefrag(link)
        page = pages.get(address)
        if fragment and page is not None and fragment not in page.ids:
            problems.append(f"{link} (from {where}): no element with id {fragment!r}")
    return seen, problems


def test_every_link_the_service_emits_answers_200(client, emitted, docs_here):
    seen, problems = crawl(client, {**emitted, docs_here: "the docs", f"{ORIGIN}/login": "sign-in"}, signed_in=False)
    assert not problems, "\n".join(problems)
    # The walk reached every page of the docs and the shipped bundle.
    for path in ("", "/api", "/errors", "/oauth", "/mcp", "/versions", "/security", "/assets/redoc.standalone.js"):
        assert any(urldefrag(link)[0] == f"{docs_here}{path}" for link in seen), path


def test_every_link_of_the_signed_in_pages_answers_200(client, emitted, docs_here, user):
    client.force_login(user)
    seen, problems = crawl(client, {**emitted, f"{ORIGIN}/": "home", docs_here: "the docs"}, signed_in=True)
    assert not problems, "\n".join(problems)
    assert f"{ORIGIN}/settings/api-keys" in {urldefrag(link)[0] for link in seen}


def test_the_openapi_document_is_valid_with_its_links(client, docs_here):
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation import OpenAPIV31SpecValidator

    document = client.get("/v1/openapi.json").json()
    validate(json.loads(json.dumps(document)), cls=OpenAPIV31SpecValidator)


def test_the_links_in_the_emails_answer_200(docs_here, user, mailoutbox, django_capture_on_commit_callbacks):
    """The new-connection email and the password-reset email: each link works for the
    person it is sent to (the reset link hands over to the set-password page)."""
    from tests.support.oauth import get_code, make_client, pkce, signed_in

    browser = signed_in(user)
    _verifier, challenge = pkce()
    with django_capture_on_commit_callbacks(execute=True):  # the email leaves after the commit
        get_code(browser, make_client(), challenge)
    Client().post("/password-reset", {"email": user.email})
    links = [link for message in mailoutbox for link in urls_in(message.body)]
    assert len(mailoutbox) == 2 and len(links) >= 2, [m.subject for m in mailoutbox]
    for link in links:
        parts = urlsplit(link)
        assert f"{parts.scheme}://{parts.netloc}" == ORIGIN, link
        response = signed_in(user).get(parts.path, follow=True)
        assert response.status_code == 200, (link, response.redirect_chain)
