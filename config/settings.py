"""Settings for the service, read from the environment once at start-up.

Everything that differs between the quick start, CI and production is an
environment variable; nothing secret has a literal default.
"""

import base64
import hashlib
import os
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key

from apps.core import surfaces

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value in (None, "") else value


def env_bool(name: str, default: bool = False) -> bool:
    value = env(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in (env(name, default) or "").split(",") if item.strip()]


DEBUG = env_bool("DEBUG")

SECRET_KEY = env("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set unless DEBUG is on.")
    # Development only: a per-process key, so sessions do not survive a restart.
    SECRET_KEY = get_random_secret_key()

# Without BASE_URL the service is on loopback at PORT (what `make run` serves), so the
# addresses it advertises (issuer, resource, endpoints) are the ones clients reach.
PORT = env("PORT", "8000")
BASE_URL = env("BASE_URL", f"http://127.0.0.1:{PORT}").rstrip("/")
APP_URL = env("APP_URL", BASE_URL).rstrip("/")
DOCS_URL = env("DOCS_URL", f"{BASE_URL}/docs").rstrip("/")

_base_host = urlsplit(BASE_URL).hostname or "127.0.0.1"
_app_host = urlsplit(APP_URL).hostname or _base_host
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS") or sorted({_base_host, _app_host, "127.0.0.1", "localhost"})

# Transport security follows BASE_URL, never DEBUG (docs/design.md).
SECURE_TRANSPORT = urlsplit(BASE_URL).scheme == "https"
SESSION_COOKIE_SECURE = SECURE_TRANSPORT
CSRF_COOKIE_SECURE = SECURE_TRANSPORT
SECURE_SSL_REDIRECT = SECURE_TRANSPORT and not env_bool("SECURE_SSL_REDIRECT_DISABLED")
SECURE_HSTS_SECONDS = 31536000 if SECURE_TRANSPORT else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_TRANSPORT
SECURE_HSTS_PRELOAD = SECURE_TRANSPORT
if env_bool("TRUST_X_FORWARDED_PROTO"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_TRUSTED_ORIGINS = sorted({f"{urlsplit(u).scheme}://{urlsplit(u).netloc}" for u in (BASE_URL, APP_URL)})
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"

INSTALLED_APPS = [
    # First, so that its `changepassword` (which also revokes every token and key)
    # takes precedence over django.contrib.auth's; it ships no templates.
    "apps.accounts",
    # Django's admin, its sign-in throttled like /login.
    "apps.accounts.apps.AdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "apps.core",
    "apps.credentials",
    "apps.apikeys",
    "apps.api_v1",
    "oauth2_provider",
    "apps.oauth",
    "apps.mcp_bridge",
    "apps.ratelimit",
    "apps.audit",
    "apps.safeguards",
    "apps.jobs",
    "apps.docs",
    # Resource apps: an app with apis.py serves its urls.py under /v1 (apps/api_v1/discovery.py).
    "apps.rates",
    "apps.billing",
    "apps.calls",
    "apps.contacts",
    "apps.numbers",
    "apps.messages",
    "apps.webhooks",
    # The carrier boundary: the telephony core behind one interface, and its simulator.
    "apps.telephony",
    # The demo data set of the quick start (manage.py seed_demo).
    "apps.demo",
    # The signed-in pages (home, billing, sharing, connected apps): they read every app above.
    "apps.dashboard",
]

# Bearer credentials by secret prefix (apps/credentials/resolvers.py): who resolves them,
# the resources they may serve, the model whose saves end a cached one, and the
# last-use stamp a cached one falls due for.
BEARER_RESOLVERS = {
    "sk_live_": {
        "resolve": "apps.apikeys.bearer.resolve",
        "stamp": "apps.apikeys.bearer.stamp_last_use",
        "model": "apikeys.ApiKey",
        "resources": ["v1"],
    },
    "sk_test_": {
        "resolve": "apps.apikeys.bearer.resolve",
        "stamp": "apps.apikeys.bearer.stamp_last_use",
        "model": "apikeys.ApiKey",
        "resources": ["v1"],
    },
    "sat_": {
        "resolve": "apps.oauth.tokens.resolve_access_token",
        "model": "oauth.AccessToken",
        "resources": ["v1", "mcp"],
    },
}

# The account currency of balances, rates and call costs (lowercase ISO 4217).
SERVICE_CURRENCY = env("SERVICE_CURRENCY", "usd")
# Days a received message is kept (manage.py purge_messages deletes older ones).
MESSAGE_RETENTION_DAYS = int(env("MESSAGE_RETENTION_DAYS", "30"))
# A balance below this many minor units of SERVICE_CURRENCY (500 = $5.00, a few calls' worth)
# answers low_balance: true on GET /v1/balance and svc_get_balance; exactly at it is not low.
LOW_BALANCE_THRESHOLD = int(env("LOW_BALANCE_THRESHOLD", "500"))

# Callback calls (docs/design.md "Quotes and callback calls"). The carrier of live-mode calls, by name
# (apps/telephony/carriers) or dotted path; test mode is always the simulator.
TELEPHONY_CARRIER = env("TELEPHONY_CARRIER", "simulated")
# TELEPHONY_CARRIER=twilio (docs/operations.md, "A real carrier"): the account that places calls and signs
# its callbacks, where its REST API is (a local fake in tests), and the Voice Intelligence service
# (GA...) that transcribes recorded calls.
TWILIO_ACCOUNT_SID = env("TWILIO_ACCOUNT_SID", "")
TWILIO_AUTH_TOKEN = env("TWILIO_AUTH_TOKEN", "")
TWILIO_API_BASE = env("TWILIO_API_BASE", "https://api.twilio.com")
TWILIO_INTELLIGENCE_SERVICE_SID = env("TWILIO_INTELLIGENCE_SERVICE_SID", "")
# Who applies the normalized events the carrier reports, by family (the boundary imports no app).
TELEPHONY_RECEIVERS = {
    "call": "apps.calls.states.call_apply_carrier_event",
    "transcription": "apps.calls.transcripts.transcript_apply_carrier_event",
    "message": "apps.messages.services.message_apply_carrier_event",
}
# The price of a transcript, in major units of SERVICE_CURRENCY a billed minute of the call (docs/design.md).
TRANSCRIPT_PER_MINUTE = env("TRANSCRIPT_PER_MINUTE", "0.05")
# Spend limits (docs/spec.md 8.5), per account and mode, in major units of SERVICE_CURRENCY; the day is UTC's.
CALL_SPEND_LIMIT_DAILY = env("CALL_SPEND_LIMIT_DAILY", "50.00")
CALL_SPEND_LIMIT_CREDENTIAL_DAILY = env("CALL_SPEND_LIMIT_CREDENTIAL_DAILY", "20.00")
CALLS_PER_NUMBER_HOURLY = int(env("CALLS_PER_NUMBER_HOURLY", "5"))
CALL_DESTINATIONS_DAILY = int(env("CALL_DESTINATIONS_DAILY", "20"))
# Dialled prefixes (digits after +) never called, besides premium-rate, shared-cost and +881/+882/+883.
BLOCKED_PREFIXES = [p for p in env("BLOCKED_PREFIXES", "").replace(",", " ").split() if p]

MIDDLEWARE = [
    "apps.core.middleware.RequestIdMiddleware",
    # Times and counts every answer, the other middleware's included; the JSON log line.
    "apps.core.observe.RequestObservationMiddleware",
    "apps.core.middleware.DatabaseUnavailableMiddleware",
    "apps.core.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "apps.api_v1.middleware.ApiV1Middleware",
    # Inside ApiV1Middleware so 429/503 answers on /v1 still carry Service-Version.
    "apps.ratelimit.middleware.RateLimitMiddleware",
    # Django's own, skipped for bearer-only requests to /v1 and /mcp (apps/core/middleware.py).
    "apps.core.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "apps.core.middleware.AuthenticationMiddleware",
    "apps.core.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: its process_view refuses control characters and unpaired surrogates after
    # routing (path ids are known) and after the /v1 body cap, before any view.
    "apps.core.inputs.InputGuardMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # Every template writes moments alike: {{ value|when }} (apps/core/templatetags/when.py).
            "builtins": ["apps.core.templatetags.when"],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=int(env("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
# The pooler between the service and PostgreSQL (docs/decisions/scale-out.md, "PgBouncer and
# connection pools"). "pgbouncer-transaction": a server connection is the service's for one
# transaction only, so nothing is prepared, no server-side cursor is declared (.iterator() then
# reads its result whole, as any query does), and no start-up `options` is sent (PgBouncer refuses
# it): the statement bound is then the database role's (ALTER ROLE ... SET statement_timeout).
DATABASE_POOLER = (env("DATABASE_POOLER", "") or "").strip().lower()
if DATABASE_POOLER not in {"", "pgbouncer-transaction"}:
    raise ImproperlyConfigured("DATABASE_POOLER must be empty (PostgreSQL itself) or pgbouncer-transaction.")
# Django's own pool of connections in each process, of at most this many (0: none, a connection
# per thread kept DB_CONN_MAX_AGE seconds). A request waits at most DATABASE_POOL_TIMEOUT seconds
# for a free one, then is answered 503 with Retry-After, as a database outage.
DATABASE_POOL = env("DATABASE_POOL", "0").strip()
if not DATABASE_POOL.isdigit():
    raise ImproperlyConfigured("DATABASE_POOL must be a whole number of connections (0: no pool).")
DATABASE_POOL = int(DATABASE_POOL)
DATABASE_POOL_TIMEOUT = 5

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, with a health check that needs no round trip (apps/core/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "apps.core.postgresql"
    # The statements compiled once are prepared after this many runs on a connection (psycopg's
    # default); "none" prepares nothing, for a pooler that cannot keep prepared statements.
    prepare_threshold = env("DATABASE_PREPARE_THRESHOLD", "none" if DATABASE_POOLER else "5").strip().lower()
    if prepare_threshold != "none" and not prepare_threshold.isdigit():
        raise ImproperlyConfigured("DATABASE_PREPARE_THRESHOLD must be a whole number of runs or none.")
    if DATABASE_POOLER and prepare_threshold != "none":
        raise ImproperlyConfigured(
            f"DATABASE_POOLER={DATABASE_POOLER} keeps no prepared statement: leave DATABASE_PREPARE_THRESHOLD unset."
        )
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = (
        None if prepare_threshold == "none" else int(prepare_threshold)
    )
    if DATABASE_POOLER:
        DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    if DATABASE_POOL:
        # A pooled connection goes back to the pool at the end of each request: Django refuses
        # a pool with connections kept by the thread (CONN_MAX_AGE).
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": 1,
            "max_size": DATABASE_POOL,
            "timeout": DATABASE_POOL_TIMEOUT,
        }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Django's backend, with the bound of a statement that SQLite itself lacks (apps/core/sqlite3/base.py).
    DATABASES["default"]["ENGINE"] = "apps.core.sqlite3"
    # Tests run in memory, as Django does for its own SQLite engine; named, because a test runner
    # that names each parallel worker's database (pytest-xdist) knows only Django's engine by name.
    DATABASES["default"].setdefault("TEST", {}).setdefault("NAME", ":memory:")
    # The server and the worker (make run) write to one file. A transaction takes the write
    # lock when it begins, so one that reads and then writes waits its turn (up to the busy
    # timeout) instead of failing at once with "database is locked" when the other holds it.
    DATABASES["default"].setdefault("OPTIONS", {}).update(transaction_mode="IMMEDIATE", timeout=20)


def env_seconds(name: str, default: str) -> float:
    value = env(name, default)
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < 10**6:
        raise ImproperlyConfigured(f"{name} must be a number of seconds (0: no bound).")
    return seconds


# The database cancels a statement running longer (PostgreSQL's statement_timeout; on SQLite a
# progress handler), answered 503 with Retry-After: no request
# holds a worker until gunicorn's 30 s timeout kills it (apps/core/statements.py). Commands of
# manage.py (migrations, imports, the worker) get the longer bound. 0: no bound.
DATABASE_STATEMENT_TIMEOUT = env_seconds("DATABASE_STATEMENT_TIMEOUT", "5")
DATABASE_COMMAND_STATEMENT_TIMEOUT = env_seconds("DATABASE_COMMAND_STATEMENT_TIMEOUT", "900")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL")
# REDIS_URL names any one node of a Redis Cluster (apps/ratelimit/stores/redis_cluster.py);
# redis+sentinel://host:port[,host:port]/service[/db] names a primary found through Sentinel.
REDIS_CLUSTER = env_bool("REDIS_CLUSTER")
if REDIS_URL and not REDIS_CLUSTER and not REDIS_URL.startswith("redis+sentinel://"):
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1},
        }
    }
else:
    # Nothing shared lives in Django's cache: what every process must see is in the limiter's store.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# Django raises RequestDataTooBig past this; each surface answers its own 413 first
# (the caps are in apps/core/surfaces.py).
DATA_UPLOAD_MAX_MEMORY_SIZE = surfaces.LARGEST_BODY_CAP

EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = int(env("EMAIL_PORT", "25"))
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS")
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "no-reply@localhost")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["apps.api_v1.authentication.BearerAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["apps.api_v1.parsers.BoundedJSONParser"],
    "DEFAULT_VERSIONING_CLASS": "apps.api_v1.versioning.ServiceVersioning",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "apps.api_v1.exceptions.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_THROTTLE_CLASSES": ["apps.api_v1.throttling.BudgetThrottle"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "apps.api_v1.negotiation.FastContentNegotiation",
    # JSON is the only representation. With DRF's override on, a ?format= naming any other value
    # is answered 404 before the credential is read.
    "URL_FORMAT_OVERRIDE": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Service public API",
    "VERSION": "2026-10-01",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVERS": [{"url": BASE_URL}],
    "POSTPROCESSING_HOOKS": [
        "apps.api_v1.openapi.postprocess",
        "apps.api_v1.openapi.declare_input_rules",
        "apps.apikeys.openapi.postprocess",
        # Last: the examples and curl samples read the operations as the hooks above left them.
        "apps.api_v1.examples.postprocess",
    ],
    "GET_LIB_DOC_EXCLUDES": "apps.api_v1.openapi.docstring_excludes",
    # Our header versioning is not one spectacular knows; the document is unversioned.
    "DISABLE_ERRORS_AND_WARNINGS": True,
}

# Cross-origin access for the public machine endpoints; never with credentials (the path
# table is apps/core/surfaces.py). /mcp is enabled per origin, as its view's Origin check
# admits (apps/mcp_bridge/views.cors_enabled).
CORS_URLS_REGEX = surfaces.CORS_URLS_REGEX
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = [
    "accept",
    "authorization",
    "content-type",
    "idempotency-key",
    "service-version",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
]
CORS_EXPOSE_HEADERS = [
    "RateLimit",
    "RateLimit-Policy",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "Retry-After",
    "Request-Id",
    "WWW-Authenticate",
    "Idempotent-Replayed",
    "Deprecation",
    "Sunset",
    "Service-Version",
    "Mcp-Session-Id",
]

# OAuth 2.1 authorization server (django-oauth-toolkit, extended in apps.oauth).
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth.Application"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth.AccessToken"
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth.RefreshToken"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth.Grant"
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth.IDToken"
OAUTH2_PROVIDER = {
    "OAUTH2_VALIDATOR_CLASS": "apps.oauth.token.validator.Validator",
    "ACCESS_TOKEN_GENERATOR": "apps.oauth.tokens.new_access_token",
    "REFRESH_TOKEN_GENERATOR": "apps.oauth.tokens.new_refresh_token",
    "OAUTH2_SERVER_CLASS": "apps.oauth.token.server.Server",
    "SCOPES_BACKEND_CLASS": "apps.oauth.token.validator.ScopesBackend",
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 30 * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "PKCE_REQUIRED": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none"],
    # The issuer (RFC 8414 / RFC 9207 `iss`) is the base URL itself.
    "OIDC_ISS_ENDPOINT": BASE_URL,
    # Clients (apps/oauth/registration, apps/oauth/client_metadata/; docs/decisions/oauth-clients.md).
    "APPLICATION_ADMIN_CLASS": "apps.oauth.admin.ApplicationAdmin",
    "CIMD_ENABLED": True,
    "CIMD_METADATA_FETCHER": "apps.oauth.client_metadata.ClientMetadataFetcher",
    "CIMD_FETCH_TIMEOUT_SECONDS": 3,
    "CIMD_MAX_DOCUMENT_SIZE": 5 * 1024,
    "CIMD_METADATA_MIN_AGE_SECONDS": 0,
    "CIMD_METADATA_MAX_AGE_SECONDS": 24 * 3600,
    # DOT's own back-off serves only DOT's resolver, which is not used: a failed URL waits a minute
    # in the limiter instead, and fetches are capped server-wide (apps/ratelimit/budgets.py).
    "CIMD_FAILURE_BACKOFF_SECONDS": 0,
}

SILENCED_SYSTEM_CHECKS = [
    # Our header versioning is not one drf-spectacular knows; the document is unversioned.
    "drf_spectacular.W001",
    # http redirect URIs are allowed for loopback only (RFC 8252, docs/spec.md 5.4); registration
    # refuses any other http URI.
    "oauth2_provider.W008",
]

# Addresses of reverse proxies whose X-Forwarded-For is believed.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES")

# Mounts /bench/floor, the benchmark's bare view; never on in a deployment.
BENCH_FLOOR = env_bool("BENCH_FLOOR")

# Request budgets of docs/spec.md 8 (apps/ratelimit/conf.py documents the keys). The
# store is Redis when REDIS_URL is set, else in-process (single process only).
RATELIMIT = {
    "ENABLED": env_bool("RATELIMIT_ENABLED", True),
    "STORE": env("RATELIMIT_STORE"),
    "KEY_PREFIX": env("RATELIMIT_KEY_PREFIX", "rl"),
    "CLUSTER_CLOCK_SKEW_MS": int(env("RATELIMIT_CLUSTER_CLOCK_SKEW_MS", "1000")),
}

# Durable work (apps/jobs/conf.py documents the keys and their defaults).
JOBS = {
    "LEASE_SECONDS": int(env("JOBS_LEASE_SECONDS", "300")),
    "MAX_ATTEMPTS": int(env("JOBS_MAX_ATTEMPTS", "8")),
    "POLL_SECONDS": float(env("JOBS_POLL_SECONDS", "1")),
}

# RFC 9116 Contact line of /.well-known/security.txt; default mailto:security@<BASE_URL host>.
SECURITY_CONTACT = env("SECURITY_CONTACT", "")

# Web origins whose pages may call /mcp (the MCP transport's DNS-rebinding
# guard); empty means the origins of BASE_URL and APP_URL only.
MCP_ALLOWED_ORIGINS = env_list("MCP_ALLOWED_ORIGINS")

# Webhooks (docs/webhooks, docs/design.md "Webhooks"). Signing secrets are kept encrypted under
# these Fernet keys, comma-separated: the first encrypts, any decrypts, so a key is rotated
# by putting a new one first and running `manage.py rotate_webhook_keys`. Without the
# setting one key is derived from SECRET_KEY (changing SECRET_KEY then loses every
# endpoint's secret; deployments set WEBHOOK_SECRET_KEYS).
WEBHOOK_SECRET_KEYS = env_list("WEBHOOK_SECRET_KEYS") or [
    base64.urlsafe_b64encode(hashlib.sha256(b"webhook-secrets:" + SECRET_KEY.encode()).digest()).decode()
]
WEBHOOK_ENDPOINT_LIMIT = 16  # per account and mode
WEBHOOK_TIMEOUT_SECONDS = 10  # one attempt, DNS lookup to the answer's first kilobyte
WEBHOOK_EVENT_RETENTION_DAYS = 30
# Test-mode endpoints may be http://127.0.0.1, ::1 or localhost (a receiver on the developer's
# machine) only where this is on: by default with DEBUG, the quick start's machine. Elsewhere a
# loopback URL would let any account's test key reach the server's own services.
WEBHOOK_ALLOW_LOOPBACK = env_bool("WEBHOOK_ALLOW_LOOPBACK", DEBUG)
# Credential standing (apps/credentials/standing.py): a credential kind's current scopes,
# or None once it has ended. Named here so that credentials imports no issuer.
# The /v1 version a new connection is pinned to at consent (docs/spec.md 9.4): named here so
# that the authorization server imports no resource server.
API_VERSION_IN_FORCE = "apps.api_v1.versions.current_version"
CREDENTIAL_STANDING = {
    "api_key": "apps.apikeys.bearer.standing",
    "oauth": "apps.oauth.tokens.standing",
}

# Observability (docs/operations.md). METRICS_TOKEN turns on GET /metrics (a bearer token the
# scraper sends; unset: the path is a 404 and nothing is counted). LOG_FORMAT=json writes one
# JSON object a line, a line per request among them; text is the default.
METRICS_TOKEN = env("METRICS_TOKEN", "")
METRICS_DATABASE_SECONDS = 15  # how long a process reuses the figures it read from the database
LOG_FORMAT = env("LOG_FORMAT", "text")
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured("LOG_FORMAT must be text or json.")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "refused_request_line": {"()": "apps.core.logfilters.RefusedRequestLine"},
        "context": {"()": "apps.core.observe.ContextFilter"},
    },
    "formatters": {
        "json": {
            "()": "apps.core.logfilters.JsonFormatter",
            "fmt": "{asctime}{levelname}{name}{message}",
            "style": "{",
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["context"],
            **({"formatter": "json"} if LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.request": {"level": "ERROR"},
        # The twilio package logs every request's headers and parameters (numbers, TwiML) at INFO.
        "twilio.http_client": {"level": "WARNING"},
        # Requests refused for their size or field count: one line each, never a traceback.
        **{
            f"django.security.{refusal}": {"filters": ["refused_request_line"]}
            for refusal in ("RequestDataTooBig", "TooManyFieldsSent", "TooManyFilesSent")
        },
    },
}
