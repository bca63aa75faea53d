"""The limiter: builds the checks of a request, asks the store once, decides.

A Decision carries every budget's result; the tightest blocking budget sets
the docs/spec.md 8.4 headers. Decisions are kept in the request notes (``ratelimit_decision``)
and written onto the response by RateLimitMiddleware, whatever its status.
"""

import contextlib
import functools
import hashlib
import ipaddress
import json
import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass

from apps.core import metrics
from apps.core.net import client_ip
from apps.core.request_context import notes

from . import budgets as table
from . import conf
from .exceptions import LimiterUnavailable, RateLimited
from .gcra import Check, Result
from .stores.base import StoreUnavailable

alerts = logging.getLogger("apps.ratelimit.alerts")
logger = logging.getLogger(__name__)

# The request being served, so OAuth hooks deep inside oauthlib need no request argument.


@dataclass(frozen=True)
class Decision:
    allowed: bool
    now_ms: int
    checks: tuple[Check, ...]
    results: tuple[Result, ...]

    def tightest(self) -> tuple[Check, Result] | None:
        return self._tightest

    @functools.cached_property
    def _tightest(self) -> tuple[Check, Result] | None:
        # Asked when the decision is kept and again for the headers: worked out once.
        pairs = [(c, r) for c, r in zip(self.checks, self.results, strict=True) if not c.budget.alert_only]
        if not self.allowed:
            return max(((c, r) for c, r in pairs if not r.allowed), key=lambda p: p[1].wait_ms)
        shown = [(c, r) for c, r in pairs if c.advertise]
        if not shown:
            return None
        return min(shown, key=lambda p: (p[1].remaining, -p[1].wait_ms))

    @property
    def retry_after(self) -> int:
        pair = self.tightest()
        return max(1, math.ceil(pair[1].wait_ms / 1000)) if pair else 1

    def headers(self) -> dict[str, str]:
        pair = self.tightest()
        if pair is None:
            return {}
        check, result = pair
        budget = check.budget
        reset = math.ceil(result.wait_ms / 1000)
        remaining = result.remaining if self.allowed else 0
        return {
            "RateLimit": f"limit={budget.burst}, remaining={remaining}, reset={reset}",
            "RateLimit-Policy": budget.policy,
            "X-RateLimit-Limit": str(budget.burst),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": str(math.ceil((self.now_ms + result.wait_ms) / 1000)),
        }


def source_key(request) -> str:
    """The caller's address; IPv6 callers are keyed by their /64 (one subscriber's allocation)."""
    return _source_key(client_ip(request))


@functools.lru_cache(maxsize=4096)  # asked several times a request; parsing an address is not free
def _source_key(raw: str) -> str:
    try:
        ip = ipaddress.ip_address(raw)
    except ValueError:
        return "unknown"
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@functools.lru_cache(maxsize=4096)
def _network48_key(raw: str) -> str | None:
    """An IPv6 caller's /48 (one site's allocation); None for IPv4 and unparsable addresses."""
    try:
        ip = ipaddress.ip_address(raw)
    except ValueError:
        return None
    if ip.version == 4 or ip.ipv4_mapped is not None:
        return None
    return str(ipaddress.ip_network(f"{ip}/48", strict=False))


def short(value: str) -> str:
    # Client ids may be long URLs (metadata documents); keys stay bounded.
    return value if len(value) <= 64 else hashlib.sha256(value.encode()).hexdigest()


def subject_of(request=None, *, principal=None, user=None, client_id=None, family_id=None, number=None) -> dict:
    if principal is not None:
        user = principal.user
        client_id = client_id or principal.client_id
    user_id = getattr(user, "pk", None)
    source = client_ip(request) if request is not None else None
    return {
        table.PRINCIPAL: f"{user_id}:{principal.credential_id}" if principal is not None else None,
        table.USER: str(user_id) if user_id is not None else None,
        table.IP: _source_key(source) if source is not None else None,
        table.NET48: _network48_key(source) if source is not None else None,
        table.CLIENT: short(client_id) if client_id else None,
        table.FAMILY: short(str(family_id)) if family_id else None,
        # A number belongs to one account: keyed under its user, its budget shares the user's slot.
        table.NUMBER: f"{user_id}:{number}" if number is not None and user_id is not None else number,
    }


def build_checks(budgets: Iterable, subject: dict, *, peek: bool = False, advertise: bool = True) -> list[Check]:
    checks = []
    for budget in budgets:
        value = subject.get(budget.key)
        if value is not None:
            checks.append(Check(budget, f"{budget.name}:{value}", peek=peek, advertise=advertise))
    return checks


def enabled() -> bool:
    return bool(conf.get("ENABLED"))


@contextlib.contextmanager
def store_call():
    """Fail closed: a store that cannot answer is LimiterUnavailable (503), never a 500."""
    try:
        yield
    except StoreUnavailable as exc:
        logger.warning("rate limiter store unavailable: %s", exc)
        raise LimiterUnavailable(int(conf.get("UNAVAILABLE_RETRY_AFTER"))) from None
    except ImportError:
        # A store path that does not import (ratelimit.E001).
        logger.exception("rate limiter store cannot be built")
        raise LimiterUnavailable(int(conf.get("UNAVAILABLE_RETRY_AFTER"))) from None


def evaluate(request, checks: list[Check], *, record: bool = True) -> Decision | None:
    """Ask the store once; raise RateLimited or LimiterUnavailable; return the decision.

    With ``record`` the decision is kept on the request for the headers.
    """
    if not checks or not enabled():
        return None
    with store_call():
        now_ms, allowed, results = conf.get_store().evaluate(checks)
    return decide(request, checks, now_ms, allowed, results, record=record)


def decide(request, checks, now_ms: int, allowed: bool, results, *, record: bool = True) -> Decision:
    """The decision of a store's answer: logs crossed ceilings, keeps it for the headers, raises when denied."""
    decision = Decision(allowed, now_ms, tuple(checks), tuple(results))
    for check, result in zip(checks, results, strict=True):
        if result.crossed:
            log_crossed(check)
    if record and request is not None and (not allowed or decision.tightest() is not None):
        # A decision with nothing to advertise leaves the earlier one's headers in place.
        notes(request).ratelimit_decision = decision
    if not allowed:
        for check, result in zip(checks, results, strict=True):
            if not result.allowed:
                metrics.count_ratelimit_refusal(check.budget.name)
        raise RateLimited(decision)
    return decision


def log_crossed(check: Check) -> None:
    budget = check.budget
    alerts.warning(
        json.dumps(
            {
                "event": "ratelimit.ceiling_crossed",
                "budget": budget.name,
                "dimension": budget.key,
                "key": check.key.split(":", 1)[1],
                "limit": budget.burst,
                "window": budget.period,
            },
            sort_keys=True,
        )
    )
