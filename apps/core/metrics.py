"""What the web processes count for ``/metrics`` (prometheus-client), beside what is read at a scrape.

Counting is on when ``METRICS_TOKEN`` is set (the endpoint is off otherwise, so nothing would
read the counts). Under gunicorn each worker writes its counts to files in
``PROMETHEUS_MULTIPROC_DIR`` (set up by gunicorn.conf.py) and a scrape of any worker sums
them; outside gunicorn (runserver, tests) they are this process's.

Labels carry no user data: a route is its URL pattern (``v1/calls/<str:call_id>``, never
the path asked), a budget its name in the budgets table, a carrier its name. The catalogue
is in docs/operations.md.
"""

from django.conf import settings
from prometheus_client import Counter, Histogram

PREFIX = "service"
UNMATCHED = "(unmatched)"

# Seconds: the contract's reads answer in milliseconds; 10 s is the webhook and statement bound.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter(
    f"{PREFIX}_http_requests",
    "Requests answered, by route template, method and status code.",
    ["route", "method", "status"],
)
LATENCY = Histogram(
    f"{PREFIX}_http_request_duration_seconds",
    "Time from the request reaching Django to its response, by route template.",
    ["route"],
    buckets=LATENCY_BUCKETS,
)
RATELIMIT_REFUSALS = Counter(
    f"{PREFIX}_ratelimit_refusals",
    "Requests refused by a rate budget (429), by the budget that refused.",
    ["budget"],
)
CREDENTIAL_CACHE = Counter(
    f"{PREFIX}_credential_cache_lookups",
    "Bearer credentials looked up in the credential cache: hit (no database read) or miss.",
    ["result"],
)
CARRIER_REFUSALS = Counter(
    f"{PREFIX}_carrier_refusals",
    "Requests the carrier refused: a call it would not place, a callback whose signature failed.",
    ["carrier", "stage"],
)


def enabled() -> bool:
    return bool(getattr(settings, "METRICS_TOKEN", ""))


def route_of(request) -> str:
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else UNMATCHED


# A request's children, found once: ``labels()`` takes a lock and builds a key on every call,
# which cost as much as the count itself. Bounded: routes, methods and statuses are few.
_request_children: dict[tuple, tuple] = {}


def observe_request(request, status: int, seconds: float) -> None:
    route = route_of(request)
    method = request.method if request.method in KNOWN_METHODS else "other"
    key = (route, method, status)
    children = _request_children.get(key)
    if children is None:
        children = _request_children[key] = (REQUESTS.labels(route, method, str(status)), LATENCY.labels(route))
    children[0].inc()
    children[1].observe(seconds)


KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def count_ratelimit_refusal(budget: str) -> None:
    if enabled():
        RATELIMIT_REFUSALS.labels(budget).inc()


def count_credential_cache(*, hit: bool) -> None:
    if enabled():
        CREDENTIAL_CACHE.labels("hit" if hit else "miss").inc()


def count_carrier_refusal(*, carrier: str, stage: str) -> None:
    if enabled():
        CARRIER_REFUSALS.labels(carrier, stage).inc()
