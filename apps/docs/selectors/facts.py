"""The numbers and addresses the pages' prose names, read from the modules that enforce them."""

from datetime import timedelta

from django.conf import settings
from oauth2_provider.settings import oauth2_settings

from apps.api_v1.public import BODY_CAP as V1_BODY_CAP
from apps.apikeys.apis import KeyApi
from apps.apikeys.services import DEFAULT_EXPIRY_DAYS, MAX_EXPIRY_DAYS, MAX_LIVE_KEYS
from apps.core.middleware import DatabaseUnavailableMiddleware
from apps.oauth.client_metadata import DEFAULT_MAX_AGE_SECONDS, MAX_CLIENT_ID_LENGTH
from apps.oauth.models import TRANSACTION_LIFETIME
from apps.oauth.registration.metadata import MAX_CLIENT_NAME, MAX_REDIRECT_URIS
from apps.oauth.registration.selectors import UNUSED_REGISTRATION_LIFETIME
from apps.oauth.registration.services import REGISTRATION_CAP, REGISTRATION_CLOSED_RETRY_AFTER
from apps.oauth.token import lifetimes, lockouts
from apps.ratelimit.public import budgets
from apps.ratelimit.public import conf as ratelimit_conf


def _minutes(delta: timedelta) -> int:
    return int(delta.total_seconds() // 60)


def facts() -> dict:
    """The numbers and addresses the prose of the pages names, from where the code keeps them."""
    base = settings.BASE_URL
    return {
        "base_url": base,
        "app_url": settings.APP_URL,
        "docs_url": settings.DOCS_URL,
        "mcp_url": f"{base}/mcp",
        "api_url": f"{base}/v1",
        "v1_body_kb": V1_BODY_CAP // 1024,
        "keys_body_kb": KeyApi.body_cap // 1024,
        "bearer_failures": budgets.BEARER_FAILURES_IP.burst,
        "limiter_retry_after": ratelimit_conf.get("UNAVAILABLE_RETRY_AFTER"),
        "database_retry_after": DatabaseUnavailableMiddleware.RETRY_AFTER,
        "transaction_minutes": _minutes(TRANSACTION_LIFETIME),
        "code_seconds": int(lifetimes.CODE_LIFETIME.total_seconds()),
        "access_token_minutes": _minutes(lifetimes.ACCESS_TOKEN_LIFETIME),
        "refresh_idle_days": lifetimes.REFRESH_IDLE_LIFETIME.days,
        "refresh_absolute_days": lifetimes.REFRESH_ABSOLUTE_LIFETIME.days,
        "credential_failures": lockouts.FAILED_EXCHANGE_LIMIT,
        "credential_failure_window_minutes": lockouts.FAILED_EXCHANGE_WINDOW // 60,
        "exchange_failures_ip": budgets.EXCHANGE_FAILURES_IP.burst,
        "exchange_backoff": budgets.EXCHANGE_FAILURES_IP.penalty,
        "grant_family": budgets.GRANT_FAMILY.burst,
        "token_flood_burst": budgets.TOKEN_FLOOD_IP.burst,
        "token_flood_rate": budgets.TOKEN_FLOOD_IP.rate,
        "authorize_per_minute": budgets.AUTHORIZE_REGISTER_IP.burst,
        "register_per_hour": budgets.REGISTER_IP_HOURLY.burst,
        "register_per_hour_net48": budgets.REGISTER_NET48_HOURLY.burst,
        "registration_cap": REGISTRATION_CAP,
        "registration_retry_after": REGISTRATION_CLOSED_RETRY_AFTER,
        "purge_days": UNUSED_REGISTRATION_LIFETIME.days,
        "max_client_name": MAX_CLIENT_NAME,
        "max_redirect_uris": MAX_REDIRECT_URIS,
        "max_live_keys": MAX_LIVE_KEYS,
        "default_expiry_days": DEFAULT_EXPIRY_DAYS,
        "max_expiry_days": MAX_EXPIRY_DAYS,
        "cimd_timeout": oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS,
        "cimd_max_kb": oauth2_settings.CIMD_MAX_DOCUMENT_SIZE // 1024,
        "cimd_default_age_minutes": DEFAULT_MAX_AGE_SECONDS // 60,
        "cimd_max_age_hours": oauth2_settings.CIMD_METADATA_MAX_AGE_SECONDS // 3600,
        "cimd_max_url": MAX_CLIENT_ID_LENGTH,
        "cimd_failure_retry_seconds": budgets.CIMD_FETCH_FAILED_URL.period,
    }
