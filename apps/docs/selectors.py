"""Reads behind the documentation pages: every row comes from the table the code itself runs on.

Error codes from ``apps.core.errors.REGISTRY``, scopes from the scope table, tools
from the MCP registry, budgets from ``apps.ratelimit.budgets``, lifetimes and caps
from the modules that enforce them. A page built from these cannot promise what
the service does not do.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from oauth2_provider.settings import oauth2_settings

from apps.api_v1.public import BODY_CAP as V1_BODY_CAP
from apps.api_v1.public import CURRENT_VERSION, VERSIONS
from apps.apikeys.apis import KeyApi
from apps.apikeys.services import DEFAULT_EXPIRY_DAYS, MAX_EXPIRY_DAYS, MAX_LIVE_KEYS
from apps.core.envelope import error_body
from apps.core.errors import REGISTRY, ApiError
from apps.core.middleware import DatabaseUnavailableMiddleware
from apps.credentials.scopes import READ_ONLY_STARTER_SET, SCOPES
from apps.mcp_bridge.public import INSTRUCTIONS, SERVER_NAME, SERVER_VERSION, TOOLS
from apps.oauth.client_metadata import DEFAULT_MAX_AGE_SECONDS, MAX_CLIENT_ID_LENGTH
from apps.oauth.discovery import authorization_server_metadata, security_txt
from apps.oauth.models import TRANSACTION_LIFETIME
from apps.oauth.registration.metadata import MAX_CLIENT_NAME, MAX_REDIRECT_URIS
from apps.oauth.registration.selectors import UNUSED_REGISTRATION_LIFETIME
from apps.oauth.registration.services import REGISTRATION_CAP, REGISTRATION_CLOSED_RETRY_AFTER
from apps.oauth.selectors import permitted_resources
from apps.oauth.token import lifetimes, lockouts
from apps.ratelimit.public import budgets
from apps.ratelimit.public import conf as ratelimit_conf

from . import errors as docs_errors


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


# --- errors ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorRow:
    code: str
    status: int
    type: str
    message: str
    when: str
    action: str


def error_rows(known: dict | None = None) -> list[ErrorRow]:
    """Every code of the envelope's registry, in its order, with what it means and what to do."""
    known = known if known is not None else facts()
    rows = []
    for code, entry in REGISTRY.items():
        guidance = docs_errors.GUIDANCE.get(code)
        rows.append(
            ErrorRow(
                code=code,
                status=entry.status,
                type=entry.type,
                message=entry.message,
                # A code registered without its sentences still gets its row (and its anchor);
                # tests/docs fail until the sentences are written.
                when=guidance.when.format(**known) if guidance else entry.message,
                action=guidance.action.format(**known) if guidance else "",
            )
        )
    return rows


@dataclass(frozen=True)
class TypeRow:
    type: str
    statuses: list[int]
    when: str
    action: str


def type_rows() -> list[TypeRow]:
    return [
        TypeRow(
            type=name,
            statuses=sorted({e.status for e in REGISTRY.values() if e.type == name}),
            when=guidance.when,
            action=guidance.action,
        )
        for name, guidance in docs_errors.TYPE_GUIDANCE.items()
    ]


@dataclass(frozen=True)
class OAuthErrorRow:
    code: str
    cases: list[docs_errors.Case]
    action: str


def oauth_error_rows(known: dict | None = None) -> list[OAuthErrorRow]:
    known = known if known is not None else facts()
    return [
        OAuthErrorRow(
            code=error.code,
            cases=[docs_errors.Case(c.where, c.status, c.when.format(**known)) for c in error.cases],
            action=error.action.format(**known),
        )
        for error in docs_errors.OAUTH_ERRORS
    ]


def sample_error_body(code: str = "invalid_token") -> dict:
    """The envelope exactly as the renderer writes it (request_id as a sample value)."""
    body = error_body(None, ApiError(code))
    body["error"]["request_id"] = "req_3kTMd4J9c8pXn2Lq7vWb1Zy0"
    return body


# --- scopes and tools ------------------------------------------------------------------------


def scope_anchor(name: str) -> str:
    return "scope-" + name.replace(":", "-")


@dataclass(frozen=True)
class ScopeRow:
    name: str
    sentence: str
    sensitive: bool
    starter: bool

    @property
    def anchor(self) -> str:
        return scope_anchor(self.name)


def scope_rows() -> list[ScopeRow]:
    return [ScopeRow(s.name, s.sentence, s.sensitive, s.name in READ_ONLY_STARTER_SET) for s in SCOPES.values()]


def starter_scopes() -> str:
    return " ".join(READ_ONLY_STARTER_SET)


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    required: bool
    description: str


@dataclass(frozen=True)
class ToolRow:
    name: str
    title: str
    description: str
    scope: str | None
    scope_sentence: str
    read_only: bool
    idempotent: bool
    destructive: bool
    open_world: bool
    inputs: list[Field]
    outputs: list[Field]

    @property
    def scope_anchor(self) -> str:
        return scope_anchor(self.scope) if self.scope else ""


def _type_of(schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type_of(schema['items'])}"
    if "const" in schema:
        return f"always {schema['const']}"
    if "enum" in schema:
        return " | ".join(str(v) for v in schema["enum"])
    return kind or "any"


def _fields(schema: dict) -> list[Field]:
    required = set(schema.get("required", ()))
    details = []
    for name, prop in (schema.get("properties") or {}).items():
        limits = [
            template.format(prop[key])
            for key, template in (
                ("minimum", "at least {}"),
                ("maximum", "at most {}"),
                ("minLength", "at least {} characters"),
                ("maxLength", "at most {} characters"),
            )
            if key in prop
        ]
        if "default" in prop:
            limits.append(f"default {prop['default']}")
        description = prop.get("description", "")
        if limits:
            description = f"{description} ({', '.join(limits)})".strip()
        details.append(Field(name, _type_of(prop), name in required, description))
    return details


def tool_rows() -> list[ToolRow]:
    """The live tools, as ``tools/list`` gives them, with the scope each needs."""
    rows = []
    for spec in sorted(TOOLS.values(), key=lambda s: s.name):
        scope = SCOPES.get(spec.scope) if spec.scope else None
        rows.append(
            ToolRow(
                name=spec.name,
                title=spec.title,
                description=spec.description,
                scope=spec.scope,
                scope_sentence=scope.sentence if scope else "",
                read_only=spec.read_only,
                idempotent=spec.idempotent,
                destructive=spec.destructive,
                open_world=spec.open_world,
                inputs=_fields(spec.input_schema),
                outputs=_fields(spec.output_schema),
            )
        )
    return rows


def mcp_server() -> dict:
    return {"name": SERVER_NAME, "version": SERVER_VERSION, "instructions": INSTRUCTIONS}


# --- limits ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LimitRow:
    what: str
    applies_to: str
    per: str
    limit: str
    effect: str


PERIODS = {60: "min", 3600: "hour"}
SAME = "the same, a user's connections and keys together"


def _rate(budget) -> str:
    per = PERIODS.get(budget.period, f"{budget.period} s")
    if budget.burst != budget.rate:
        return f"burst {budget.burst:,}, then {budget.rate:,}/{per}"
    return f"{budget.rate:,}/{per}"


# Who a budget counts, in the table's words: the budget's own key says it.
COUNTED_PER = {
    budgets.PRINCIPAL: "connection or key",
    budgets.USER: "user",
    budgets.NUMBER: "number",
    budgets.IP: "IP address",
    budgets.NET48: "IPv6 /48 network",
    budgets.CLIENT: "app",
    budgets.FAMILY: "grant family",
    budgets.ACCOUNT: "account name as typed",
    budgets.HOST: "client metadata host",
    budgets.URL: "client metadata URL",
}


def _caller_and_user(principal, user, what: str, applies_to: str) -> list[tuple]:
    """An authenticated budget of docs/spec.md 8.1: the connection's or key's, and beside it the user's,
    which all of a user's connections and keys spend together."""
    return [(principal, what, applies_to), (user, what, SAME)]


def request_limits() -> list[LimitRow]:
    """The live budgets of docs/spec.md 8.1 and 8.2 that can refuse a request."""
    rows = [
        *_caller_and_user(
            budgets.READS_PRINCIPAL,
            budgets.READS_USER,
            "Reads",
            "every /v1 read (GET, HEAD, OPTIONS) with a key or token but the message reads, and every /mcp request",
        ),
        *_caller_and_user(
            budgets.TRANSCRIPTS_PRINCIPAL,
            budgets.TRANSCRIPTS_USER,
            "Transcript requests",
            "POST /v1/calls/{id}/transcript",
        ),
        *_caller_and_user(budgets.QUOTES_PRINCIPAL, budgets.QUOTES_USER, "Quotes", "POST /v1/quotes, svc_quote_call"),
        *_caller_and_user(
            budgets.CALLS_PRINCIPAL, budgets.CALLS_USER, "Call placement", "POST /v1/calls, svc_place_call"
        ),
        *_caller_and_user(
            budgets.MESSAGES_PRINCIPAL,
            budgets.MESSAGES_USER,
            "Message reads",
            "GET /v1/messages and /v1/messages/{id} (in place of Reads), svc_read_messages",
        ),
        (
            budgets.MESSAGES_NUMBER,
            "A number's messages",
            "every read of one number's messages, whoever reads them, REST and svc_read_messages alike",
        ),
        (budgets.KEY_MANAGEMENT_USER, "Key management", "/v1/api-keys (signed-in session)"),
        (budgets.METADATA_IP, "Metadata", "/.well-known/* and /v1/openapi.json"),
        (budgets.AUTHORIZE_REGISTER_IP, "Authorize and register", "GET /oauth/authorize, POST /oauth/register"),
        (budgets.REGISTER_IP_HOURLY, "Register", "POST /oauth/register, in addition"),
        (budgets.TOKEN_FLOOD_IP, "Token flood guard", "POST /oauth/token, POST /oauth/revoke"),
        (budgets.CARRIER_IP, "Carrier callbacks", "every request to /carrier/..."),
        (budgets.BEARER_FAILURES_IP, "Failed bearer checks", "a credential sent to /v1 or /mcp that fails lookup"),
    ]
    return [
        LimitRow(what, applies_to, COUNTED_PER[budget.key], _rate(budget), _refusal(budget))
        for budget, what, applies_to in rows
        if budget.live and not budget.alert_only
    ]


# The OAuth endpoints answer a spent budget in RFC 6749's words (docs/spec.md 8.2).
OAUTH_ANSWERED = {budgets.AUTHORIZE_REGISTER_IP, budgets.REGISTER_IP_HOURLY, budgets.TOKEN_FLOOD_IP}


def _refusal(budget) -> str:
    if budget is budgets.BEARER_FAILURES_IP:
        return "429 rate_limited instead of 401"
    return "429 temporarily_unavailable" if budget in OAUTH_ANSWERED else "429 rate_limited"


def oauth_lockouts(known: dict | None = None) -> list[LimitRow]:
    """docs/spec.md 8.3: the penalties of the token endpoint (alert-only thresholds are not listed)."""
    known = known if known is not None else facts()
    return [
        LimitRow(
            "Failed exchanges",
            "POST /oauth/token",
            COUNTED_PER[budgets.EXCHANGE_FAILURES_IP.key],
            _rate(budgets.EXCHANGE_FAILURES_IP),
            f"{budgets.EXCHANGE_FAILURES_IP.penalty} s back-off: 429 temporarily_unavailable before any grant work",
        ),
        LimitRow(
            "Failed exchanges",
            "POST /oauth/token",
            "code or refresh token",
            f"{known['credential_failures']} per {known['credential_failure_window_minutes']} min",
            "the credential and its grant family are revoked",
        ),
        LimitRow(
            "Successful refreshes",
            "POST /oauth/token",
            "grant family",
            _rate(budgets.GRANT_FAMILY),
            "429 temporarily_unavailable for that family only",
        ),
    ]


# --- other pages -------------------------------------------------------------------------------


def contact_unset_on_local_address() -> str | None:
    """The host of BASE_URL when no SECURITY_CONTACT is set and that host is an IP address or localhost: the
    derived security@<host> reaches nobody there. None otherwise."""
    import ipaddress
    from urllib.parse import urlsplit

    if getattr(settings, "SECURITY_CONTACT", ""):
        return None
    host = urlsplit(settings.BASE_URL).hostname or ""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host if host == "localhost" or host.endswith(".localhost") else None
    return host


def security_contact() -> str:
    """The Contact line of /.well-known/security.txt, from the function that writes the file."""
    for line in security_txt().splitlines():
        if line.startswith("Contact:"):
            return line.split(":", 1)[1].strip()
    return ""


@dataclass(frozen=True)
class VersionRow:
    name: str
    current: bool
    deprecated_on: object
    sunset_on: object


def version_rows() -> list[VersionRow]:
    return [
        VersionRow(v.name, v.name == CURRENT_VERSION, v.deprecated_on, v.sunset_on)
        for v in sorted(VERSIONS.values(), key=lambda v: v.name, reverse=True)
    ]


def authorization_server() -> dict:
    return authorization_server_metadata()


def protected_resources() -> list[str]:
    return list(permitted_resources())


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:g} s"
    if seconds < 3600:
        return f"{seconds / 60:g} min"
    return f"{seconds / 3600:g} h"


def webhook_facts() -> dict:
    """The event types and the retry schedule of /docs/webhooks, from the webhooks app's tables."""
    from apps.webhooks.public import (
        EVENT_TYPES,
        FAILING_AFTER,
        JITTER,
        RESEND_LIMIT,
        RETRY_DELAYS,
        TEST_MODE_RETRY_DELAYS,
    )

    return {
        "event_types": list(EVENT_TYPES.values()),
        "retries": [_duration(d) for d in RETRY_DELAYS],
        "test_retries": [_duration(d) for d in TEST_MODE_RETRY_DELAYS],
        "jitter_percent": round(JITTER * 100),
        "failing_days": FAILING_AFTER.days,
        "endpoint_limit": settings.WEBHOOK_ENDPOINT_LIMIT,
        "timeout_seconds": settings.WEBHOOK_TIMEOUT_SECONDS,
        "retention_days": settings.WEBHOOK_EVENT_RETENTION_DAYS,
        "loopback_allowed": settings.WEBHOOK_ALLOW_LOOPBACK,
        "resend_limit": RESEND_LIMIT,
    }


def call_limits() -> dict:
    """The spend limits and velocity checks of callback calls, from the settings apps/calls/limits.py enforces."""
    from decimal import Decimal

    from apps.core.money import display, to_minor

    currency = settings.SERVICE_CURRENCY

    def amount(setting: str) -> str:
        return display(to_minor(Decimal(setting), currency), currency)

    return {
        "account_daily": amount(settings.CALL_SPEND_LIMIT_DAILY),
        "credential_daily": amount(settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY),
        "calls_per_number_hourly": settings.CALLS_PER_NUMBER_HOURLY,
        "destinations_daily": settings.CALL_DESTINATIONS_DAILY,
    }


def simulator_facts() -> dict:
    """The simulator's magic numbers for /docs/calls, from the very table it plays (apps/telephony/simulator.py)."""
    from apps.core.phones import readable
    from apps.telephony.public import simulator

    def rows(behaviours, other):
        return [(readable(b.number) if b.number else "any other", b.says) for b in (*behaviours, other)]

    return {
        "destinations": rows(simulator.DESTINATIONS, simulator.ANY_DESTINATION),
        "your_numbers": rows(simulator.YOUR_NUMBERS, simulator.ANY_YOUR_NUMBER),
        "transcription_starts_seconds": simulator.TRANSCRIPTION_STARTS_SECONDS,
        "transcription_seconds": simulator.TRANSCRIPTION_SECONDS,
        "transcription_fails_to": readable(simulator.TRANSCRIPTION_FAILS_TO),
        "code_sender": readable(simulator.CODE_SENDER),
        "your_number_to_try": simulator.YOUR_NUMBERS[0].number,
        "limits": call_limits(),
        # Which carrier places this service's live-mode calls (test mode is always the simulator).
        "live_on_twilio": settings.TELEPHONY_CARRIER == "twilio",
    }
