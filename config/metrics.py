"""``GET /metrics``: Prometheus text for the operator's scraper (docs/operations.md, "Metrics").

Off unless ``METRICS_TOKEN`` is set: the path answers 404 as any unknown path does. With
it, the scraper sends ``Authorization: Bearer <METRICS_TOKEN>`` (compared in constant time);
anything else is 401. Outside every budget (no budget's path table names it), so a scraper
never spends a client's budget nor is refused by one.

Two kinds of figures: what the web processes counted (apps/core/metrics.py: requests,
latency, refusals, cache lookups), summed over gunicorn's workers from
``PROMETHEUS_MULTIPROC_DIR``; and what the database holds at the scrape (durable work,
webhook deliveries, calls), read here. The database figures are the same from every node:
aggregate them with ``max``, not ``sum``. They are read at most once every
``METRICS_DATABASE_SECONDS`` per process, so scrapers of many nodes cost the database little.
"""

import hmac
import os
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Min, Q
from django.http import HttpResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily

from apps.core.envelope import render
from apps.core.metrics import PREFIX

RECENT = timedelta(hours=1)
_cache_lock = threading.Lock()
_cache: dict = {"at": None, "families": []}


def _token_matches(request, token: str) -> bool:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, presented = header.partition(" ")
    if scheme.lower() != "bearer":
        presented = ""
    return hmac.compare_digest(presented.strip().encode(), token.encode())


@never_cache
@require_safe
def metrics(request):
    token = getattr(settings, "METRICS_TOKEN", "")
    if not token:
        return render(request, "route_not_found")
    if not _token_matches(request, token):
        response = render(request, "invalid_token", "Send Authorization: Bearer <METRICS_TOKEN>.")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    body = generate_latest(_process_registry()) + generate_latest(_database_registry())
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)


def _process_registry():
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


class _Families:
    def __init__(self, families):
        self.families = families

    def collect(self):
        return iter(self.families)


def _database_registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(_database_families()))
    return registry


def _database_families() -> list:
    seconds = getattr(settings, "METRICS_DATABASE_SECONDS", 15)
    now = time.monotonic()
    with _cache_lock:
        if _cache["at"] is not None and now - _cache["at"] < seconds:
            return _cache["families"]
        families = [*_jobs_families(), *_webhook_families(), *_call_families()]
        _cache.update(at=now, families=families)
        return families


def reset_cache() -> None:
    with _cache_lock:
        _cache.update(at=None, families=[])


def _gauge(name: str, documentation: str, labels: list[str], samples) -> GaugeMetricFamily:
    family = GaugeMetricFamily(f"{PREFIX}_{name}", documentation, labels=labels)
    for values, value in samples:
        family.add_metric(values, value)
    return family


def _jobs_families() -> list:
    from apps.jobs.public import Job, JobStatus

    now = timezone.now()
    # The lane a row runs in; where rows carry no lane yet, their kind stands for it.
    lane = "lane" if any(field.name == "lane" for field in Job._meta.get_fields()) else "kind"
    free = Q(locked_until__isnull=True) | Q(locked_until__lte=now)
    due = Q(run_at__lte=now) & free
    ready = (
        Job.objects.filter(status=JobStatus.READY)
        .values(lane)
        .annotate(
            due=Count("id", filter=due),
            running=Count("id", filter=Q(locked_until__gt=now)),
            retrying=Count("id", filter=~Q(last_error="") & free),
            oldest=Min("run_at", filter=due),
        )
        .order_by(lane)
    )
    failed = Job.objects.filter(status=JobStatus.FAILED).values(lane).annotate(count=Count("id")).order_by(lane)
    ready = list(ready)
    return [
        _gauge(
            "jobs_due", "Durable work due and not taken, by lane.", ["lane"], [([r[lane]], r["due"]) for r in ready]
        ),
        _gauge(
            "jobs_running",
            "Durable work taken by a worker (leased), by lane.",
            ["lane"],
            [([r[lane]], r["running"]) for r in ready],
        ),
        _gauge(
            "jobs_oldest_due_age_seconds",
            "How long the oldest due row of a lane has waited (0 when none is due).",
            ["lane"],
            [([r[lane]], max((now - r["oldest"]).total_seconds(), 0.0) if r["oldest"] else 0.0) for r in ready],
        ),
        _gauge(
            "jobs_retrying",
            "Durable work that failed at least once and waits for its next try, by lane.",
            ["lane"],
            [([r[lane]], r["retrying"]) for r in ready],
        ),
        _gauge(
            "jobs_failed",
            "Durable work that gave up (kept JOBS KEEP_FAILED_DAYS), by lane.",
            ["lane"],
            [([r[lane]], r["count"]) for r in failed],
        ),
    ]


def _last_hour(model, column: str, name: str, documentation: str, label: str) -> GaugeMetricFamily:
    """Rows created in the last hour, by ``column``."""
    since = timezone.now() - RECENT
    rows = model.objects.filter(created__gte=since).values(column).annotate(count=Count("id")).order_by(column)
    return _gauge(name, documentation, [label], [([row[column]], row["count"]) for row in rows])


def _webhook_families() -> list:
    from apps.webhooks.models import Delivery

    return [
        _last_hour(
            Delivery,
            "status",
            "webhook_deliveries_last_hour",
            "Webhook delivery attempts made in the last hour, by outcome (pending, succeeded, failed, skipped).",
            "outcome",
        )
    ]


def _call_families() -> list:
    from apps.calls.models import Call

    documentation = "Calls placed in the last hour, by their state now."
    return [_last_hour(Call, "status", "calls_last_hour", documentation, "state")]
