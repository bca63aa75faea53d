"""The one table of request budgets (docs/spec.md 8.1, 8.2, 8.3).

A budget is a GCRA / token bucket: ``burst`` requests at once, then refilled
continuously at ``rate`` per ``period`` seconds (``60/min`` is a burst of 60,
then one a second). ``RateLimit-Policy`` advertises ``<burst>;w=<period>``,
which is how the token flood guard (burst 600, 120/min sustained) comes out as
``600;w=60``.

A budget is keyed by one dimension of the caller (``principal``, ``user``,
``ip``, ``net48``, ``client``, ``family``, ``account``, ``host``, ``url``). Alert-only
budgets never block: crossing one writes a single structured warning line per window.
``penalty`` turns a budget into a lockout: the request that spends its last unit
starts a back-off of that many seconds during which the budget stays empty.

A ``Concurrency`` row is a cap on work in progress rather than a rate: at most
``limit`` at once across every process sharing the store (apps/ratelimit/concurrency.py).
"""

import functools
import ipaddress
from dataclasses import dataclass

from .concurrency import Concurrency

PRINCIPAL = "principal"
USER = "user"
IP = "ip"
CLIENT = "client"
FAMILY = "family"
NUMBER = "number"
ACCOUNT = "account"  # an account name as typed on a page (a digest), whether or not an account has it
NET48 = "net48"  # an IPv6 caller's /48 (IPv4 callers have none)
HOST = "host"  # the host of a client metadata document URL
URL = "url"  # a client metadata document URL


@dataclass(frozen=True)
class Budget:
    name: str
    burst: int
    rate: int
    period: int  # seconds
    key: str
    alert_only: bool = False
    penalty: int = 0  # seconds of back-off once the budget is spent
    live: bool = True
    # The Redis Cluster hash tag shared by every key of this budget, for a budget whose call
    # also spends a budget of another dimension (see ``slot``); None: derived from the key.
    slot: str | None = None

    @property
    def interval_ms(self) -> int:
        """Milliseconds for one unit to refill."""
        return max(1, round(self.period * 1000 / self.rate))

    @property
    def capacity_ms(self) -> int:
        """GCRA burst tolerance: how far ahead of now the theoretical arrival time may run."""
        return self.burst * self.interval_ms

    @property
    def policy(self) -> str:
        return f"{self.burst};w={self.period}"


def per_minute(name: str, n: int, key: str, **kw) -> Budget:
    return Budget(name, burst=n, rate=n, period=60, key=key, **kw)


def per_caller_and_user(name: str, principal: int, user: int) -> tuple[Budget, Budget]:
    """An authenticated budget of docs/spec.md 8.1: one per connection or key, and one per user that
    all of a user's connections and keys spend together."""
    return per_minute(f"{name}.principal", principal, PRINCIPAL), per_minute(f"{name}.user", user, USER)


# --- 8.1 Authenticated budgets -------------------------------------------------
READS_PRINCIPAL, READS_USER = per_caller_and_user("reads", 60, 120)
READS_CLIENT = per_minute("reads.client", 3000, CLIENT, alert_only=True)
TRANSCRIPTS_PRINCIPAL, TRANSCRIPTS_USER = per_caller_and_user("transcripts", 5, 5)
QUOTES_PRINCIPAL, QUOTES_USER = per_caller_and_user("quotes", 20, 20)
CALLS_PRINCIPAL, CALLS_USER = per_caller_and_user("calls", 10, 10)
MESSAGES_PRINCIPAL, MESSAGES_USER = per_caller_and_user("messages", 60, 120)
# Beside the caller's budgets: one number's messages, whoever reads them (REST and the tool alike).
MESSAGES_NUMBER = per_minute("messages.number", 10, NUMBER)
KEY_MANAGEMENT_USER = per_minute("keys.user", 30, USER)

# --- 8.2 Unauthenticated and OAuth budgets -------------------------------------
METADATA_IP = per_minute("metadata.ip", 300, IP)
AUTHORIZE_REGISTER_IP = per_minute("authorize_register.ip", 30, IP)
REGISTER_IP_HOURLY = Budget("register.ip.hour", burst=20, rate=20, period=3600, key=IP)
# Each /64 has its own 20 an hour, and one network holds thousands of /64s: without
# an aggregate, a /56 would fill the 5,000-client cap in an hour. IPv4 addresses are
# scarce enough that the per-address budget stands alone.
REGISTER_NET48_HOURLY = Budget("register.net48.hour", burst=60, rate=60, period=3600, key=NET48)
TOKEN_FLOOD_IP = Budget("token_flood.ip", burst=600, rate=120, period=60, key=IP)
BEARER_FAILURES_IP = per_minute("bearer_failures.ip", 60, IP)
# A carrier's callbacks (/carrier/...): unauthenticated until the adapter checks the signature,
# and each refusal is a log line, so one address posting at will would fill the logs. A real
# carrier sends a few callbacks a call; 600 a minute is far above one carrier address's share.
CARRIER_IP = per_minute("carrier.ip", 600, IP)

# --- 8.3 OAuth lockouts ----------------------------------------------------------
# Failed exchanges per credential (3 an hour, then revocation) is a database
# rule of the OAuth app: it revokes rows, so it lives with them.
EXCHANGE_FAILURES_IP = per_minute("exchange_failures.ip", 10, IP, penalty=60)
EXCHANGE_FAILURES_CLIENT = per_minute("exchange_failures.client", 1000, CLIENT, alert_only=True)
EXCHANGE_SUCCESSES_CLIENT = per_minute("exchange_successes.client", 600, CLIENT, alert_only=True)
GRANT_FAMILY = per_minute("grant_family", 10, FAMILY)

# --- Sign-in and password reset (pages; docs/spec.md 8 names none, these are ours) ---
# Keyed by the source address and by the account name typed, never by a user id, so a
# refusal reads the same whether or not the account exists. A sign-in reserves a unit
# of both failure budgets before the password is checked and gives it back when the
# password is right: only failures count, and parallel guesses cannot overrun them.
SIGNIN_FAILURES_IP = per_minute("signin_failures.ip", 10, IP, penalty=60, slot="signin")
SIGNIN_FAILURES_ACCOUNT = Budget("signin_failures.account", burst=5, rate=5, period=900, key=ACCOUNT, slot="signin")
PASSWORD_RESET_IP = Budget("password_reset.ip", burst=10, rate=10, period=3600, key=IP, slot="password_reset")
PASSWORD_RESET_ACCOUNT = Budget(
    "password_reset.account", burst=3, rate=3, period=3600, key=ACCOUNT, slot="password_reset"
)

# --- Client metadata documents (docs/spec.md 5.3) ----------------------------
# A fetch of a client-chosen URL holds a worker for up to its deadline, so fetches are
# bounded server-wide (concurrency), per host, and per failing URL (a failed fetch is
# not tried again for a minute: a budget of one, spent by the failure, peeked before).
CIMD_FETCHES_IN_FLIGHT = Concurrency("cimd_fetches.in_flight", limit=2)
CIMD_FETCH_HOST = per_minute("cimd_fetch.host", 30, HOST, slot="cimd")
CIMD_FETCH_FAILED_URL = Budget("cimd_fetch_failed.url", burst=1, rate=1, period=60, key=URL, slot="cimd")


def slot(budget: Budget, value: str) -> str:
    """The hash tag of a budget's key in Redis: keys with one tag share a Redis Cluster slot.

    The blocking budgets of one store call must share a tag so that one script spends them all
    or none (alert-only budgets never block, and are spent on their own). So every key of a
    user (its principals' and numbers' budgets too: their values start with the user id) carries
    the user's tag; an address carries its /48 for IPv6 (the register class pairs a /64 with
    its /48); budgets whose class pairs dimensions that share nothing (an address and an
    account name) carry their class's constant ``slot``: those classes are low-volume.
    """
    if budget.slot:
        return budget.slot
    if budget.key in (PRINCIPAL, USER, NUMBER):
        return "u:" + value.split(":", 1)[0]
    if budget.key == IP:
        return ip_slot(value)
    if budget.key == NET48:
        return "ip:" + value
    return f"{budget.key}:{value}"


@functools.lru_cache(maxsize=4096)
def ip_slot(source: str) -> str:
    """The tag of an address's budgets: an IPv6 source key is its /64, tagged by the /48 holding
    it (what NET48 keys name); an IPv4 address by itself."""
    if ":" not in source:
        return "ip:" + source
    try:
        return "ip:" + str(ipaddress.ip_network(source, strict=False).supernet(new_prefix=48))
    except ValueError:
        return "ip:" + source


# Budget classes: every budget that applies to one kind of request.
READS = "reads"  # an authenticated read (GET/HEAD with a bearer, and every /mcp call)
CLASSES: dict[str, tuple[Budget, ...]] = {
    READS: (READS_PRINCIPAL, READS_USER, READS_CLIENT),
    "transcripts": (TRANSCRIPTS_PRINCIPAL, TRANSCRIPTS_USER),
    "quotes": (QUOTES_PRINCIPAL, QUOTES_USER),
    "calls": (CALLS_PRINCIPAL, CALLS_USER),
    "messages": (MESSAGES_PRINCIPAL, MESSAGES_USER),
    "messages.number": (MESSAGES_NUMBER,),
    "key_management": (KEY_MANAGEMENT_USER,),
    "metadata": (METADATA_IP,),
    "authorize": (AUTHORIZE_REGISTER_IP,),
    "register": (AUTHORIZE_REGISTER_IP, REGISTER_IP_HOURLY, REGISTER_NET48_HOURLY),
    "token_flood": (TOKEN_FLOOD_IP,),
    "bearer_failure": (BEARER_FAILURES_IP,),
    "carrier": (CARRIER_IP,),
    "exchange_failure": (EXCHANGE_FAILURES_IP, EXCHANGE_FAILURES_CLIENT),
    "grant_family": (GRANT_FAMILY,),
    "exchange_success": (EXCHANGE_SUCCESSES_CLIENT,),
    "signin_failure": (SIGNIN_FAILURES_IP, SIGNIN_FAILURES_ACCOUNT),
    "password_reset": (PASSWORD_RESET_IP, PASSWORD_RESET_ACCOUNT),
    "cimd_fetch": (CIMD_FETCH_HOST,),
    "cimd_fetch_failed": (CIMD_FETCH_FAILED_URL,),
}

# Budgets applied by path before any view runs, keyed by source address.
# (exact path or prefix ending in "/", class). First match wins.
PATH_CLASSES: tuple[tuple[str, str], ...] = (
    ("/.well-known/", "metadata"),
    ("/v1/openapi.json", "metadata"),
    ("/oauth/authorize", "authorize"),
    ("/oauth/register", "register"),
    ("/oauth/token", "token_flood"),
    ("/oauth/revoke", "token_flood"),
    ("/carrier/", "carrier"),
)

# The token endpoint also refuses a source in back-off before any grant work.
BACKOFF_PATHS: tuple[str, ...] = ("/oauth/token",)


@functools.lru_cache(maxsize=1024)  # asked on every request, of a handful of paths
def path_class(path: str) -> str | None:
    bare = path.rstrip("/") or "/"
    for prefix, name in PATH_CLASSES:
        if bare == prefix or (prefix.endswith("/") and path.startswith(prefix)):
            return name
    return None


def is_backoff_path(path: str) -> bool:
    return (path.rstrip("/") or "/") in BACKOFF_PATHS
