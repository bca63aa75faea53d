"""The documentation pages at ``{docs_url}``: public, read-only, rendered from the code's tables."""

import functools
import json
from pathlib import Path
from urllib.parse import urlsplit

import drf_spectacular_sidecar
from django.conf import settings
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from . import selectors
from .favicon import favicon_ico

# Files shipped in drf-spectacular-sidecar, served from here so no page loads anything
# from a CDN and no static-file server is needed in production.
SIDECAR = Path(drf_spectacular_sidecar.__file__).resolve().parent / "static" / "drf_spectacular_sidecar"
ASSETS = {
    "redoc.standalone.js": (SIDECAR / "redoc" / "bundles" / "redoc.standalone.js", "text/javascript"),
    "redoc.LICENSE.txt": (SIDECAR / "redoc" / "bundles" / "redoc.standalone.js.LICENSE.txt", "text/plain"),
}
# The bundle changes only with the pinned package, i.e. with a deployment.
ASSET_CACHE_CONTROL = "public, max-age=86400"
# Redoc's sidebar shows a logo from Redocly's CDN; the bundle is served with that address
# replaced by an empty image, so the reference makes no request to another origin (the pages'
# Content-Security-Policy would refuse it, with an error in the console).
REDOC_CDN_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
EMPTY_IMAGE = b"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"

# (id, path under {docs_url}, title): the pages link to each other through DOCS_URL, so
# they work wherever DOCS_URL points (this service's /docs by default, or a proxy of it).
PAGES = (
    ("docs-index", "", "Overview"),
    ("docs-api", "/api", "API reference"),
    ("docs-errors", "/errors", "Errors"),
    ("docs-oauth", "/oauth", "OAuth"),
    ("docs-mcp", "/mcp", "MCP server"),
    ("docs-versions", "/versions", "Versions"),
    ("docs-calls", "/calls", "Callback calls"),
    ("docs-webhooks", "/webhooks", "Webhooks"),
    ("docs-security", "/security", "Security"),
)


def content_security_policy() -> str:
    """Everything from this origin, the OpenAPI document from BASE_URL's, nothing else: the
    browser itself enforces "no CDN" (the Redoc bundle would fetch its logo from one)."""
    parts = urlsplit(settings.BASE_URL)
    api_origin = f"{parts.scheme}://{parts.netloc}"
    return "; ".join(
        (
            "default-src 'self'",
            # The pages' own inline script (Redoc.init) and the styles Redoc injects.
            "script-src 'self' 'unsafe-inline'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            f"connect-src 'self' {api_origin}",
            "worker-src 'self' blob:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


def _page(request, name: str, known: dict | None = None, **context):
    """The page ``name``: its template ``docs/<name>.html``, and ``docs-<name>`` in the pages' menu."""
    known = known if known is not None else selectors.facts()
    context = {"facts": known, "pages": PAGES, "page": f"docs-{name}", **context}
    response = render(request, f"docs/{name}.html", context)
    response["Content-Security-Policy"] = content_security_policy()
    return response


@require_safe
def index(request):
    return _page(request, "index", limits=selectors.request_limits(), starter_scopes=selectors.starter_scopes())


@require_safe
def api_reference(request):
    return _page(request, "api")


@require_safe
def errors(request):
    known = selectors.facts()
    return _page(
        request,
        "errors",
        known,
        types=selectors.type_rows(),
        codes=selectors.error_rows(known),
        oauth_codes=selectors.oauth_error_rows(known),
        sample_json=json.dumps(selectors.sample_error_body(), indent=2),
    )


@require_safe
def oauth(request):
    known = selectors.facts()
    return _page(
        request,
        "oauth",
        known,
        metadata=selectors.authorization_server(),
        resources=selectors.protected_resources(),
        scopes=selectors.scope_rows(),
        starter_scopes=selectors.starter_scopes(),
        lockouts=selectors.oauth_lockouts(known),
        limits=[row for row in selectors.request_limits() if "oauth" in row.applies_to],
    )


@require_safe
def mcp(request):
    return _page(
        request,
        "mcp",
        server=selectors.mcp_server(),
        tools=selectors.tool_rows(),
        scopes=selectors.scope_rows(),
        starter_scopes=selectors.starter_scopes(),
    )


@require_safe
def versions(request):
    return _page(request, "versions", versions=selectors.version_rows(), server=selectors.mcp_server())


@require_safe
def security(request):
    local_host = selectors.contact_unset_on_local_address()
    return _page(
        request,
        "security",
        contact=selectors.security_contact(),
        contact_unset_on_local_address=local_host is not None,
        local_host=local_host,
    )


@functools.cache
def _redoc_bundle() -> bytes:
    return ASSETS["redoc.standalone.js"][0].read_bytes().replace(REDOC_CDN_LOGO, EMPTY_IMAGE)


@require_safe
def asset(request, name: str):
    try:
        path, content_type = ASSETS[name]
    except KeyError:
        raise Http404("No such asset.") from None
    if name == "redoc.standalone.js":
        response = HttpResponse(_redoc_bundle(), content_type=content_type)
    else:
        response = FileResponse(path.open("rb"), content_type=content_type)
    response["Cache-Control"] = ASSET_CACHE_CONTROL
    return response


@require_safe
def favicon(request):
    response = HttpResponse(favicon_ico(), content_type="image/x-icon")
    response["Cache-Control"] = ASSET_CACHE_CONTROL
    return response


@require_safe
def webhooks(request):
    return _page(request, "webhooks", **selectors.webhook_facts())


@require_safe
def calls(request):
    return _page(request, "calls", **selectors.simulator_facts())
