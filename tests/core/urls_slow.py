"""Test-only route: a /v1 view whose statement runs past any bound a test sets (PostgreSQL's pg_sleep,
or on SQLite a count to a billion)."""

from django.db import connection
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.api_v1.urls import CATCH_ALL

SLOW_STATEMENTS = {
    "postgresql": "SELECT pg_sleep(5)",
    "sqlite": (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c"
    ),
}


def run_a_slow_statement() -> None:
    with connection.cursor() as cursor:
        cursor.execute(SLOW_STATEMENTS[connection.vendor])


class SlowView(APIView):
    authentication_classes = []
    permission_classes = []

    def get(self, request):
        run_a_slow_statement()
        return Response({"slept": True})


urlpatterns = [path("v1/_slow", SlowView.as_view()), path("", include("config.urls")), *CATCH_ALL]

handler404 = "apps.core.views.handler404"
handler500 = "apps.core.views.handler500"
