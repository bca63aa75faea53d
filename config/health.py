"""Health checks for a load balancer or an orchestrator (docs/operations.md).

``GET /livez``: the process answers (no dependency is checked, so a database outage never
restarts every node at once). ``GET /readyz``: this node can serve now, PostgreSQL and the
budgets' Redis both answering; 503 otherwise. Neither carries data: the answer says ready or
not, never which dependency failed nor any version or address (the log line says which). Both
are outside every budget (no budget's path table names them) and outside the API's surfaces.
"""

import logging

from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from apps.ratelimit.services import ratelimit_store_ready

logger = logging.getLogger("config.health")


def _database_ready() -> bool:
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        logger.warning("readiness: the database does not answer: %s", exc)
        return False
    return True


@never_cache
@require_safe
def live(request):
    return JsonResponse({"status": "live"})


@never_cache
@require_safe
def ready(request):
    if _database_ready() and ratelimit_store_ready():
        return JsonResponse({"status": "ready"})
    return JsonResponse({"status": "unavailable"}, status=503, headers={"Retry-After": "5"})
