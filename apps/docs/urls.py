"""``{docs_url}``: the pages live under /docs on the service itself (DOCS_URL defaults to {BASE_URL}/docs).

Exact paths without a trailing slash, like every other path of the service, so that
``{docs_url}/errors#<code>`` lands on its page without a redirect.
"""

from django.urls import path
from django.views.generic import RedirectView

from . import views

urlpatterns = [
    path("docs", views.index, name="docs-index"),
    path("docs/", RedirectView.as_view(pattern_name="docs-index", permanent=True)),
    path("docs/api", views.api_reference, name="docs-api"),
    path("docs/errors", views.errors, name="docs-errors"),
    path("docs/oauth", views.oauth, name="docs-oauth"),
    path("docs/mcp", views.mcp, name="docs-mcp"),
    path("docs/versions", views.versions, name="docs-versions"),
    path("docs/security", views.security, name="docs-security"),
    path("docs/calls", views.calls, name="docs-calls"),
    path("docs/webhooks", views.webhooks, name="docs-webhooks"),
    path("docs/assets/<str:name>", views.asset, name="docs-asset"),
    # Every browser asks for it, on every page of the site.
    path("favicon.ico", views.favicon, name="favicon"),
]
