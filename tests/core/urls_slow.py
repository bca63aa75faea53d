"""Test-only route: a /v1 view whose statement runs past any bound a test sets (PostgreSQL's pg_sleep)."""

from django.db import connection
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.api_v1.urls import CATCH_ALL


class SlowView(APIView):
    authentication_classes = []
    permission_classes = []

    def get(self, request):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(5)")
        return Response({"slept": True})


urlpatterns = [path("v1/_slow", SlowView.as_view()), path("", include("config.urls")), *CATCH_ALL]

handler404 = "apps.core.views.handler404"
handler500 = "apps.core.views.handler500"
