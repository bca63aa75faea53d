from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from apps.api_v1 import urls as v1_urls
from apps.mcp_bridge.views import mcp_endpoint
from apps.ratelimit.bench_views import bench_floor, bench_floor_round_trip

from . import health

urlpatterns = [
    # /v1: each resource app's routes, then the catch-all (apps/api_v1/urls.py); first, and not
    # inside an include of its own, as the hottest paths: Django tries each pattern in turn.
    *v1_urls.urlpatterns,
    # Exactly "mcp": no trailing-slash variant, so a POST is never redirected.
    path("mcp", mcp_endpoint, name="mcp"),
    # /oauth/authorize|token|revoke|consent and /api/oauth/transactions/*.
    path("", include("apps.oauth.urls")),
    # Well-known discovery documents and POST /oauth/register (exact paths, no trailing slash).
    path("", include("apps.oauth.discovery")),
    path("", include("apps.oauth.registration.urls")),
    path("admin/", admin.site.urls),
    # A carrier's callbacks (apps/telephony): outside /v1, verified by the carrier's adapter.
    path("carrier/", include("apps.telephony.urls")),
    # /api/oauth/connections* and /settings/connected-apps*.
    path("", include("apps.oauth.connections.urls")),
    path("", include("apps.safeguards.urls")),
    # Dashboard pages: /settings/api-keys, /settings/activity, password and sharing, sign-in, home.
    path("", include("apps.apikeys.page_urls")),
    path("", include("apps.billing.page_urls")),
    path("", include("apps.audit.urls")),
    path("", include("apps.accounts.settings_urls")),
    path("", include("apps.accounts.page_urls")),
    # {docs_url} when DOCS_URL is left at its default: /docs, /docs/errors, /docs/oauth, ...
    path("", include("apps.docs.urls")),
    # For a load balancer: outside every budget and surface, no data in the answer (config/health.py).
    path("livez", health.live, name="livez"),
    path("readyz", health.ready, name="readyz"),
]

if settings.BENCH_FLOOR:
    # The benchmark's floor: a bare JSON view behind the same middleware (bench/run.py).
    urlpatterns.insert(0, path("bench/floor", bench_floor))
    urlpatterns.insert(0, path("bench/floor-round-trip", bench_floor_round_trip))

handler400 = "apps.core.views.handler400"
handler404 = "apps.core.views.handler404"
handler500 = "apps.core.views.handler500"
