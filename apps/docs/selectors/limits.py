"""The request budgets and the token endpoint's lockouts, as the pages list them."""

from dataclasses import dataclass

from apps.ratelimit.public import budgets

from .facts import facts


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
