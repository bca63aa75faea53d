"""The /v1 reads as a good Django team would write them with stock parts: the benchmark's peer
for GET /v1/me, rates, the ledger, calls, contacts and messages (bench/run.py). Never installed in production.

The service's settings (its apps, models, database, Redis and secrets) with stock pieces swapped in:
its own URLconf (bench/drf_peer/urls.py), Django's startproject middleware, DRF's defaults with
django-oauth-toolkit's OAuth2Authentication and its stock validator (the service's access-token
model is DOT's swappable one, so the same tokens authenticate), UserRateThrottle on Django's cache
in the same Redis (django-redis), and Django's own PostgreSQL backend with its connection health
check. Same tables and indexes; the peer only reads them.
"""

from config.settings import *  # noqa: F403
from config.settings import DATABASES, OAUTH2_PROVIDER, REDIS_URL

ROOT_URLCONF = "bench.drf_peer.urls"
WSGI_APPLICATION = "bench.drf_peer.wsgi.application"

# Django's startproject middleware.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# Django's own backend (the service's is a subclass with a cheaper health check), kept 60 s and
# health-checked as Django does it.
DATABASES = {"default": {**DATABASES["default"], "ENGINE": "django.db.backends.postgresql", "OPTIONS": {}}}

# DRF's own budget on Django's cache, in the same Redis the service's limiter uses (its own prefix).
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "drfpeer",
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "bench.drf_peer.authentication.ApiKeyAuthentication",
        "oauth2_provider.contrib.rest_framework.OAuth2Authentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.UserRateThrottle"],
    # The service's read budget (120 a minute) a thousand times larger, as bench/roomy_store.py
    # makes the service's: the history cases read ten accounts at full speed, and nothing is refused.
    "DEFAULT_THROTTLE_RATES": {"user": "120000/min"},
    "UNAUTHENTICATED_USER": None,
}

# DOT's stock validator and server (the service swaps in its own).
_SERVICE_ONLY = {
    "OAUTH2_VALIDATOR_CLASS",
    "OAUTH2_SERVER_CLASS",
    "SCOPES_BACKEND_CLASS",
    "ACCESS_TOKEN_GENERATOR",
    "REFRESH_TOKEN_GENERATOR",
}
OAUTH2_PROVIDER = {key: value for key, value in OAUTH2_PROVIDER.items() if key not in _SERVICE_ONLY}
READ_SCOPES = ("rates:read", "credits:read", "calls:read", "contacts:read", "messages:read", "messages:history")
OAUTH2_PROVIDER["SCOPES"] = {scope: scope for scope in READ_SCOPES}
